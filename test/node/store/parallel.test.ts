// Cold store reads on every core (issue #21): the files are shared out between the main thread and worker threads
// (the bundled dist/summaryWorker.cjs, which `npm test` builds before the unit tests), and the answer never depends
// on how many threads read: the same summaries as the single-threaded load, the same usage for every grouping, the
// same errors, and a failed worker's files read by the main thread. The built CLI is run on a store large enough to
// start its workers.
import * as assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateSession, generateStore } from "../../../bench/generate.js";
import { run } from "../../../src/cli/main.js";
import { FileBodySource } from "../../../src/node/fileBodies.js";
import { ioReason } from "../../../src/node/ioReason.js";
import { type GroupBy, usageReport } from "../../../src/node/report.js";
import { SessionLibrary } from "../../../src/node/library.js";
import { resolveRoots } from "../../../src/node/roots.js";
import { detailsRecovered, loadStore, realFs, type Store } from "../../../src/node/store/index.js";
import { EarlyWorkers, type ParallelOptions, summarizeInParallel } from "../../../src/node/store/parallel.js";
import { REAL } from "../../support/fixtures.js";
import { header, message } from "../../support/builders.js";
import { jsonl, plain } from "../../support/helpers.js";

const WORKER = join(import.meta.dirname, "..", "..", "..", "dist", "summaryWorker.cjs");
const CLI = join(import.meta.dirname, "..", "..", "..", "dist", "cli.js");
const GROUPINGS: GroupBy[] = ["day", "week", "month", "session", "model", "project"];

/** The store's files with their sizes, as the parallel read takes them. */
function storeFiles(store: Store): { file: string; size: number }[] {
  return store.sessions.map((s) => ({ file: s.file, size: s.sizeBytes }));
}

/** Each session's summary by file, as JSON (lazily unpacked details read out). */
function summaries(store: Store): Record<string, unknown> {
  return Object.fromEntries(store.sessions.map((s) => [s.file, plain(s.summary)]));
}

function reports(store: Store): unknown[] {
  return GROUPINGS.map((by) => plain(usageReport(store.sessions, { by, timeZone: "UTC" })));
}

describe("cold store reads on every core", () => {
  let dir: string;
  let roots: ReturnType<typeof resolveRoots>;
  let longFile: string;
  before(async function () {
    this.timeout(60_000);
    assert.ok(existsSync(WORKER), `${WORKER} is missing: npm run build makes it`);
    dir = mkdtempSync(join(tmpdir(), "pse-parallel-"));
    cpSync(join(REAL, "pi"), join(dir, "pi"), { recursive: true });
    cpSync(join(REAL, "omp"), join(dir, "omp"), { recursive: true });
    // Forks that copy their parents' entries, and large tool results (read by the scan in usage mode).
    await generateStore(join(dir, "gen", "sessions"), {
      sessions: 40,
      projects: 3,
      totalBytes: 3 * 1024 * 1024,
      forkShare: 0.3,
      seed: 21,
    });
    // A long session, whose details a worker sends as bytes (more than 64 KB of them).
    mkdirSync(join(dir, "long", "sessions", "--p--"), { recursive: true });
    longFile = join(
      dir,
      "long",
      "sessions",
      "--p--",
      "2026-06-01T09-00-00-000Z_0190a000-0000-7000-8000-00000000abcd.jsonl",
    );
    await generateSession(longFile, { targetBytes: 5_000_000, branchPoints: 4, seed: 5 });
    roots = resolveRoots({ agentDirs: ["pi", "omp", "gen", "long"].map((d) => join(dir, d)) });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const parallel = (o: Partial<ParallelOptions> = {}): ParallelOptions => ({
    workerFile: WORKER,
    mode: "full",
    threads: 3,
    minBytes: 0,
    ...o,
  });

  it("gives the summaries, usage and errors of a single-threaded load", async function () {
    this.timeout(60_000);
    const one = await loadStore({ roots, cacheFile: null });
    const three = await loadStore({ roots, cacheFile: null, parallel: parallel() });
    assert.ok(one.sessions.length > 60);
    // Only the workers read: their summaries come back packed (details decoded on first read).
    const workersOnly = await loadStore({ roots, cacheFile: null, parallel: parallel({ mainReads: false }) });
    const fromWorkers = workersOnly.sessions.filter((s) => Object.getOwnPropertyDescriptor(s.summary, "entries")?.get);
    assert.equal(fromWorkers.length, one.sessions.length, "every summary came from a worker");
    assert.deepEqual(summaries(workersOnly), summaries(one));
    assert.deepEqual(
      three.sessions.map((s) => s.file),
      one.sessions.map((s) => s.file),
    );
    assert.deepEqual(summaries(three), summaries(one));
    assert.deepEqual(reports(three), reports(one));
    assert.deepEqual(three.errors, one.errors);
    assert.equal(three.filesRead, one.filesRead);
    // Fork lineage is linked as before (the generated forks copy their parents' entries).
    const forks = three.sessions.filter((s) => s.parent);
    assert.ok(forks.length >= 5);
    assert.deepEqual(
      forks.map((s) => [s.file, s.parent!.file, s.inherited.size]),
      one.sessions.filter((s) => s.parent).map((s) => [s.file, s.parent!.file, s.inherited.size]),
    );
  });

  it("usage-only reads (no cache, tool results scanned) give the same report for every grouping", async function () {
    this.timeout(60_000);
    const one = await loadStore({ roots, cacheFile: null });
    const usageOnly = await loadStore({ roots, cacheFile: null, parallel: parallel({ mode: "usage" }) });
    assert.deepEqual(reports(usageOnly), reports(one));
    // …and are never cached, even when a cache file is given.
    const cacheFile = join(dir, "cache.jsonl");
    await loadStore({ roots, cacheFile, parallel: parallel({ mode: "usage" }) });
    const next = await loadStore({ roots, cacheFile });
    assert.equal(next.filesRead, one.filesRead, "every file read again: nothing was cached");
  });

  it("fills the cache from the threads' summaries, as a single-threaded load does", async function () {
    this.timeout(60_000);
    const cacheFile = join(dir, "cache-full.jsonl");
    // Workers only (an editor's pass): the long session is read by one of them, whatever the timing.
    const cold = await loadStore({ roots, cacheFile, parallel: parallel({ mainReads: false }) });
    // The cache a single-threaded load writes (the workers' packed summaries are saved as they came): each file's
    // listing and the checksums of its details and touches lines (their numbers follow the order files finished in).
    const single = join(dir, "cache-single.jsonl");
    await loadStore({ roots, cacheFile: single });
    const stored = (file: string) => {
      const { entries } = JSON.parse(readFileSync(file, "utf8").split("\n")[1]!) as {
        entries: Record<string, { d?: number; t?: number }>;
      };
      return Object.fromEntries(Object.entries(entries).map(([k, { d: _d, t: _t, ...e }]) => [k, e]));
    };
    assert.deepEqual(stored(cacheFile), stored(single));
    // The long session's details came from a worker as bytes (moved, not copied into a string), and were saved as
    // the same line (its checksum above) and read back the same (below).
    const [long] = await summarizeInParallel(
      [{ file: longFile, size: statSync(longFile).size }],
      parallel({ mainReads: false }),
    );
    const detail = long && "packed" in long && long.packed && "packed" in long.packed ? long.packed.detail : null;
    assert.ok(detail instanceof Uint8Array && detail.length > 64 * 1024, "a long session's details as bytes");
    const recovered = detailsRecovered();
    const warm = await loadStore({ roots, cacheFile });
    assert.equal(warm.filesRead, 0);
    // Reports first: from the cache's stored rows, before anything has built the records (`forEachUsage`).
    assert.deepEqual(reports(warm), reports(cold));
    assert.deepEqual(summaries(warm), summaries(cold));
    assert.equal(detailsRecovered(), recovered, "every details line read back as written (none made again)");
  });

  it("an editor's first listing completes in worker threads to the summaries of a full load", async function () {
    this.timeout(60_000);
    const one = await loadStore({ roots, cacheFile: null });
    const probed = await loadStore({ roots, cacheFile: null, probe: true, parallel: parallel() });
    assert.ok(probed.partial.length > 20, "the first paint probed the large files");
    const completed: string[] = [];
    assert.equal(await probed.complete((s) => completed.push(s.file)), completed.length);
    assert.equal(probed.partial.length, 0);
    assert.deepEqual(summaries(probed), summaries(one));
    assert.deepEqual(reports(probed), reports(one));
    // The background pass was read by the workers: their summaries come back packed.
    const byFile = new Map(probed.sessions.map((s) => [s.file, s]));
    assert.ok(completed.every((f) => Object.getOwnPropertyDescriptor(byFile.get(f)!.summary, "entries")?.get));
    // Through the library the extension uses.
    const library = new SessionLibrary({ roots, cacheFile: null, summaryWorker: WORKER });
    await library.whenComplete();
    assert.deepEqual(Object.fromEntries(library.sessions.map((s) => [s.file, plain(s.summary)])), summaries(one));
  });

  it("a new load stops the background pass before it: one pass completes, and the cache is saved", async function () {
    this.timeout(60_000);
    const one = await loadStore({ roots, cacheFile: null });
    let completions = 0;
    const cacheFile = join(dir, "cache-reload.jsonl");
    const library = new SessionLibrary({ roots, cacheFile, summaryWorker: WORKER, onComplete: () => completions++ });
    await library.ensureLoaded();
    const first = library.whenComplete();
    await library.load(); // a Refresh while the first background pass runs
    await first;
    await library.whenComplete();
    assert.equal(completions, 1, "only the pass of the last load completes");
    assert.deepEqual(library.errors, []);
    assert.deepEqual(Object.fromEntries(library.sessions.map((s) => [s.file, plain(s.summary)])), summaries(one));
    const warm = await loadStore({ roots, cacheFile });
    assert.equal(warm.filesRead, 0, "the cache was saved whole");
    library.dispose();
  });

  it("a stopped read ends its workers and reads nothing more", async function () {
    this.timeout(60_000);
    const files = storeFiles(await loadStore({ roots, cacheFile: null }));
    const stop = new AbortController();
    const started = Date.now();
    const reading = summarizeInParallel(files, parallel({ mainReads: false, threads: 2, signal: stop.signal }));
    stop.abort();
    const outcomes = await reading;
    assert.ok(Date.now() - started < 10_000);
    assert.ok(outcomes.some((o) => "error" in o && o.error === "the read was cancelled"));
    assert.equal(outcomes.length, files.length);
  });

  it("workers started while the store is listed give the same summaries, and all of them end", async function () {
    this.timeout(60_000);
    const one = await loadStore({ roots, cacheFile: null });
    for (const mode of ["full", "usage"] as const) {
      const store = await loadStore({ roots, cacheFile: null, parallel: parallel({ mode, startEarly: true }) });
      assert.deepEqual(
        mode === "full" ? summaries(store) : reports(store),
        mode === "full" ? summaries(one) : reports(one),
      );
    }
    // Started once the files found pass `minBytes`, used by the read, ended by its end (used or not).
    const early = new EarlyWorkers(parallel({ threads: 3, minBytes: 100 }));
    const idle = new EarlyWorkers(parallel({ threads: 2, minBytes: 0 }));
    try {
      early.found(60);
      assert.equal(early.started.length, 0, "not before 100 bytes");
      early.found(60);
      assert.equal(early.started.length, 2);
      early.found(1000);
      assert.equal(early.started.length, 2, "started once");
      const store = await loadStore({ roots, cacheFile: null, parallel: parallel({ started: early.started }) });
      assert.deepEqual(summaries(store), summaries(one));
      assert.ok(early.started.every((s) => s.used));
      idle.found(1);
    } finally {
      // (Also when an assertion fails: a worker left waiting would keep the test process alive.)
      early.stop();
      idle.stop();
    }
    await Promise.all([...early.started, ...idle.started].map((s) => s.ended));
    // Never for a store under `minBytes` (the CLI's 16 MB): none of them is started.
    const small = new EarlyWorkers(parallel({ minBytes: 16 * 1024 * 1024 }));
    for (const s of one.sessions) small.found(statSync(s.file).size);
    assert.equal(small.started.length, 0);
    // A worker that fails as it starts leaves its files to this thread.
    const throwing = join(dir, "throws-ahead.cjs");
    writeFileSync(throwing, "throw new Error('a worker that fails at once');\n");
    const failed = new EarlyWorkers(parallel({ workerFile: throwing, threads: 2 }));
    failed.found(1);
    await failed.started[0]!.ended;
    const fallback = await loadStore({ roots, cacheFile: null, parallel: parallel({ started: failed.started }) });
    assert.deepEqual(summaries(fallback), summaries(one));
  });

  it("reads a failed worker's files on the main thread", async function () {
    this.timeout(60_000);
    const one = await loadStore({ roots, cacheFile: null });
    const throwing = join(dir, "throws.cjs");
    writeFileSync(throwing, "throw new Error('a worker that fails at once');\n");
    const dying = join(dir, "dies.cjs");
    // Takes files from the counter, answers none, and ends: its files are read again by the main thread.
    writeFileSync(
      dying,
      "const { workerData } = require('node:worker_threads');\n" +
        "const next = new Int32Array(workerData.next);\n" +
        "for (let i = 0; i < 10; i++) Atomics.add(next, 0, 1);\n",
    );
    for (const workerFile of [throwing, dying, join(dir, "absent.cjs")]) {
      const store = await loadStore({ roots, cacheFile: null, parallel: parallel({ workerFile, mainReads: false }) });
      assert.deepEqual(summaries(store), summaries(one), workerFile);
      // An editor's background pass too (its files read on the main thread asynchronously).
      const probed = await loadStore({ roots, cacheFile: null, probe: true, parallel: parallel({ workerFile }) });
      await probed.complete();
      assert.deepEqual(summaries(probed), summaries(one), `${workerFile}, probed`);
    }
  });

  it("reports a file that cannot be read as the single-threaded load does", async () => {
    const missing = join(dir, "gone.jsonl");
    const [outcome] = await summarizeInParallel([{ file: missing, size: 0 }], parallel());
    const expected = await realFs.readSession(missing).then(
      () => assert.fail("a missing file was read"),
      (err: unknown) => ioReason(err),
    );
    assert.deepEqual(outcome, { error: expected });
    assert.match(expected, /no such file/);
  });

  it("a file that changes while it is summarized is an error of that file, not of the load", async () => {
    // The body of the first prompt (over 512 bytes) is read back from the file while summarizing; here it is gone.
    const store = join(dir, "changing");
    const sessions = join(store, "sessions", "--p--");
    mkdirSync(sessions, { recursive: true });
    const big = "q".repeat(2_000);
    writeFileSync(join(sessions, "a.jsonl"), jsonl(header(), message("u1", null, "user", big)));
    writeFileSync(join(sessions, "b.jsonl"), jsonl(header({ id: "b" }), message("u1", null, "user", "hi")));
    const changing = resolveRoots({ agentDirs: [store] });
    const read = FileBodySource.prototype.read;
    const recover = FileBodySource.prototype.recover;
    FileBodySource.prototype.read = () => null;
    FileBodySource.prototype.recover = () => undefined;
    try {
      const one = await loadStore({ roots: changing, cacheFile: null });
      const main = await loadStore({ roots: changing, cacheFile: null, parallel: parallel({ workerFile: undefined }) });
      assert.equal(one.errors.length, 1);
      assert.match(one.errors[0]!.message, /changed/);
      assert.deepEqual(main.errors, one.errors);
      assert.deepEqual(summaries(main), summaries(one));
      assert.deepEqual(
        main.sessions.map((s) => s.file),
        [join(sessions, "b.jsonl")],
      );
    } finally {
      FileBodySource.prototype.read = read;
      FileBodySource.prototype.recover = recover;
    }
  });

  it("refuses a FIFO and a device at once, on the main thread and in a worker", async function () {
    this.timeout(30_000);
    const fifo = join(dir, "pipe.jsonl");
    execFileSync("mkfifo", [fifo]);
    const files = [fifo, "/dev/zero"].map((file) => ({ file, size: 0 }));
    for (const mainReads of [true, false]) {
      const outcomes = await summarizeInParallel(files, parallel({ mainReads, threads: 2 }));
      for (const o of outcomes) assert.match("error" in o ? o.error : "", /not a regular file/);
    }
  });

  it("the built CLI reads a large store with its workers to the same usage and list", async function () {
    this.timeout(180_000);
    // Over the 16 MB below which the CLI starts no worker.
    const big = join(dir, "big");
    await generateStore(join(big, "sessions"), {
      sessions: 120,
      projects: 4,
      totalBytes: 20 * 1024 * 1024,
      forkShare: 0.2,
      seed: 8,
    });
    const env = { ...process.env, PI_SESSIONS_THREADS: "2", PI_SESSIONS_CACHE_DIR: join(dir, "cli-cache") };
    const cli = (...args: string[]) => {
      const r = spawnSync(process.execPath, [CLI, ...args, "--agent-dir", big], { env, encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout;
    };
    // Without WebAssembly (`--jitless` turns it off, in the workers too), every line is parsed: the same report.
    const jitless = (...args: string[]) => {
      const r = spawnSync(process.execPath, ["--jitless", CLI, ...args, "--agent-dir", big], { env, encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout;
    };
    const inProcess = async (...args: string[]) => {
      let out = "";
      const code = await run([...args, "--agent-dir", big, "--no-cache"], {
        out: (t) => (out += `${t}\n`),
        err: () => {},
      });
      assert.equal(code, 0);
      return out;
    };
    for (const by of ["day", "session", "model"]) {
      const expected = await inProcess("usage", "--by", by, "--json", "--timezone", "UTC");
      assert.equal(cli("usage", "--by", by, "--json", "--timezone", "UTC", "--no-cache"), expected, `${by}, no cache`);
      assert.equal(cli("usage", "--by", by, "--json", "--timezone", "UTC"), expected, `${by}, cache`);
    }
    const byDay = ["usage", "--by", "day", "--json", "--timezone", "UTC", "--no-cache"];
    assert.equal(jitless(...byDay), cli(...byDay), "without WebAssembly");
    assert.equal(cli("list", "--json", "--no-cache"), await inProcess("list", "--json"));
  });
});
