// What a cold pass read is not held twice (issue #38): a kept summary's details are written to the cache's spill at
// once and read back from there, and once the cache is saved from its lines, letting go of the text and bytes they
// came with (8,000 sessions held 146 MB of them until the pass ended, and for as long as the editor ran); what a
// killed process's saves left is removed by a later load; a summary kept while a save is under way is saved by the
// next one, not dropped as already saved.
import * as assert from "node:assert/strict";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateSession, generateStore } from "../../../bench/generate.js";
import { usageReport } from "../../../src/node/report.js";
import { resolveRoots, type SessionRoot } from "../../../src/node/roots.js";
import type { SessionSummary } from "../../../src/core/summary.js";
import { MetadataCache } from "../../../src/node/store/cache.js";
import { detailsRecovered, loadStore, summarizeFileSync, unpackSummary } from "../../../src/node/store/index.js";
import { REAL } from "../../support/fixtures.js";
import { plain } from "../../support/helpers.js";

const WORKER = join(import.meta.dirname, "..", "..", "..", "dist", "summaryWorker.cjs");

describe("the cache once saved: details read from its file, nothing held twice", () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), "pse-release-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("a cold pass's summaries read their details from the saved file, not what the workers sent", async function () {
    this.timeout(60_000);
    assert.ok(existsSync(WORKER), `${WORKER} is missing: npm run build makes it`);
    const roots = await generated(join(dir, "agent"), {
      sessions: 24,
      projects: 2,
      totalBytes: 2 << 20,
      forkShare: 0.2,
      seed: 38,
    });
    const cacheFile = join(dir, "cache.jsonl");
    const parallel = { workerFile: WORKER, mode: "full" as const, threads: 2, minBytes: 0, mainReads: false };
    const cold = await loadStore({ roots, cacheFile, parallel });
    assert.equal(cold.filesRead, 24);
    // The details lines are made unreadable in place (same length, checksums fail): a summary that still held its
    // own text would not notice; one that reads the file makes its details again from the session file.
    const text = readFileSync(cacheFile);
    const detailsAt = text.indexOf(10, text.indexOf(10, text.indexOf(10) + 1) + 1) + 1;
    const fd = openSync(cacheFile, "r+");
    writeSync(fd, Buffer.alloc(text.length - detailsAt - 1, "x"), 0, text.length - detailsAt - 1, detailsAt);
    closeSync(fd);
    const before = detailsRecovered();
    const reference = await loadStore({ roots, cacheFile: null });
    const report = (ss: typeof cold.sessions) => plain(usageReport(ss, { by: "session", timeZone: "UTC" }));
    assert.deepEqual(report(cold.sessions), report(reference.sessions));
    assert.equal(detailsRecovered() - before, 24, "every session's details made again from its file");
  });

  it("a kept summary's details go to the spill at once and are read back from there, before any save", async () => {
    const sessions = join(dir, "spill", "sessions", "--p--");
    mkdirSync(sessions, { recursive: true });
    const file = join(sessions, "2026-06-01T09-00-00-000Z_0190a000-0000-7000-8000-00000000abcd.jsonl");
    await generateSession(file, { targetBytes: 600_000, branchPoints: 3, seed: 7 });
    const cacheFile = join(dir, "spill", "cache.jsonl");
    const cache = await MetadataCache.load(cacheFile);
    const summary = keepStreamed(cache, file, 1n);
    await cache.settled();
    const spills = readdirSync(join(dir, "spill")).filter((n) => n.endsWith(".details"));
    assert.equal(spills.length, 1, "one spill file, before any save");
    const spill = join(dir, "spill", spills[0]!);
    assert.equal(statSync(spill).mode & 0o777, 0o600);
    // Its lines made unreadable: the summary notices (it no longer holds the bytes it came with).
    writeFileSync(spill, "x".repeat(statSync(spill).size));
    const before = detailsRecovered();
    const expected = summarizeFileSync(file, "full", Infinity);
    assert.ok(typeof expected !== "string" && !("packed" in expected) && expected.ok && summary.ok);
    assert.deepEqual(plain(summary.usage), plain(expected.usage));
    assert.equal(detailsRecovered() - before, 1);
    // A save copies the spill after the listing and removes it; a warm load reads the same summary.
    keepStreamed(cache, file, 2n);
    await cache.save();
    assert.deepEqual(readdirSync(join(dir, "spill")), ["cache.jsonl", "sessions"]);
    const warm = (await MetadataCache.load(cacheFile)).get(file, statSync(file).size, 2n);
    assert.ok(warm?.ok);
    assert.deepEqual(plain(warm.usage), plain(expected.usage));
    assert.deepEqual(plain(warm.entries), plain(expected.entries));
  });

  it("a later load removes what a killed process's saves left, and nothing of a living one's", async () => {
    const cacheFile = join(dir, "left", "cache.jsonl");
    mkdirSync(join(dir, "left"), { mode: 0o700 });
    // A process number no process has (above Linux's pid_max), and this process's own.
    const gone = ["cache.jsonl.4194999.3.details", "cache.jsonl.4194999.4.tmp", "cache.jsonl.4194999.5.tmp.details"];
    const kept = [
      `cache.jsonl.${process.pid}.900.details`,
      "cache.jsonl.4194999.x.details",
      "other.4194999.1.tmp",
      // Changed within the hour: maybe a live one of a process on another host that shares the dir.
      "cache.jsonl.4194999.6.details",
    ];
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    for (const n of [...gone, ...kept]) {
      writeFileSync(join(dir, "left", n), "left");
      if (n !== kept.at(-1)) utimesSync(join(dir, "left", n), twoHoursAgo, twoHoursAgo);
    }
    await MetadataCache.load(cacheFile);
    assert.deepEqual(readdirSync(join(dir, "left")).sort(), [...kept].sort());
  });

  it("a spill name left by an earlier process with this one's number is passed over, and saving goes on", async () => {
    const sub = join(dir, "own-pid");
    mkdirSync(sub, { mode: 0o700 });
    const cacheFile = join(sub, "cache.jsonl");
    for (let n = 1; n < 40; n++) writeFileSync(`${cacheFile}.${process.pid}.${n}.details`, "left");
    const cache = await MetadataCache.load(cacheFile);
    const first = findSession(join(REAL, "pi", "sessions"));
    keepStreamed(cache, first, 1n);
    await cache.save();
    assert.ok((await MetadataCache.load(cacheFile)).get(first, statSync(first).size, 1n));
  });

  it("another process's save over the cache's name: the next save reads its own lines, makes none again", async () => {
    const roots = await generated(join(dir, "replaced"), { sessions: 8, projects: 1, totalBytes: 1 << 20, seed: 5 });
    const files = (await loadStore({ roots, cacheFile: null })).sessions;
    const cacheFile = join(dir, "replaced.jsonl");
    const a = await MetadataCache.load(cacheFile);
    for (const s of files) keepStreamed(a, s.file, 1n);
    await a.save();
    // A second cache of the same file (a Refresh, the CLI in a terminal) saves one changed session over it.
    const b = await MetadataCache.load(cacheFile);
    keepStreamed(b, files[0]!.file, 2n, files[1]!.file);
    await b.save();
    keepStreamed(a, files[0]!.file, 3n);
    const before = detailsRecovered();
    await a.save();
    assert.equal(detailsRecovered(), before, "every line read from the file this cache wrote");
    const read = await MetadataCache.load(cacheFile);
    for (const s of files.slice(1)) assert.ok(read.get(s.file, statSync(s.file).size, 1n)?.ok);
    assert.equal(detailsRecovered(), before);
  });

  it("an editor's pass with no worker started (under 16 MB) keeps what its main thread read", async () => {
    const roots = await generated(join(dir, "small"), { sessions: 6, projects: 1, totalBytes: 3 << 20, seed: 4 });
    const cacheFile = join(dir, "small.jsonl");
    const parallel = { workerFile: WORKER, mode: "full" as const, mainReads: false };
    const first = await loadStore({ roots, cacheFile, probe: true, parallel });
    assert.equal(first.partial.length, 6);
    assert.equal(await first.complete(), 6);
    const second = await loadStore({ roots, cacheFile, probe: true, parallel });
    assert.equal(second.partial.length, 0, "every session from the cache");
    assert.equal(second.filesRead, 0);
  });

  it("a summary kept while the cache saves is saved by the next save", async () => {
    const cacheFile = join(dir, "cache-during.jsonl");
    const cache = await MetadataCache.load(cacheFile);
    const first = findSession(join(REAL, "pi", "sessions"));
    const summary = summarizeFileSync(first, "full");
    assert.ok(typeof summary !== "string");
    const size = statSync(first).size;
    cache.set(first, size, 1n, unpackSummary(summary));
    const saving = cache.save();
    // The save has taken the entry already (it is written first); the newer summary of the file comes meanwhile.
    cache.set(first, size, 2n, unpackSummary(summary));
    await saving;
    await cache.save();
    const read = await MetadataCache.load(cacheFile);
    assert.equal(read.get(first, size, 1n), undefined);
    assert.ok(read.get(first, size, 2n), "the summary kept during the save is in the file");
  });
});

/** A store generated in agent dir `agent` (without forks unless `forkShare`): its roots. */
async function generated(
  agent: string,
  o: { sessions: number; projects: number; totalBytes: number; seed: number; forkShare?: number },
): Promise<SessionRoot[]> {
  await generateStore(join(agent, "sessions"), { forkShare: 0, ...o });
  return resolveRoots({ agentDirs: [agent] });
}

/**
 * `from` summarized as a long session is (streamed, its details as bytes as a worker thread sends them) and kept in
 * `cache` as `file`'s summary at `mtime`; the summary kept.
 */
function keepStreamed(cache: MetadataCache, file: string, mtime: bigint, from = file): SessionSummary {
  const packed = summarizeFileSync(from, "full", 0);
  assert.ok(typeof packed !== "string" && "packed" in packed && packed.detail instanceof Uint8Array);
  const summary = unpackSummary(packed);
  cache.set(file, statSync(file).size, mtime, summary, packed);
  return summary;
}

/** The first .jsonl file under `dir`. */
function findSession(dir: string): string {
  for (const f of readdirSync(dir, { recursive: true, encoding: "utf8" }))
    if (f.endsWith(".jsonl")) return join(dir, f);
  throw new Error(`no session under ${dir}`);
}
