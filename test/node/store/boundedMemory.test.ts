// Scale 3 (issue #38): memory bounded by design, on generated data shaped like a heavy user's (a 200 MB session of
// 81,000 entries; a store of 3,000 sessions with forks). Two measures, each in a child process:
// - the heap: the reader runs under a capped heap and must complete with the right answer; the same file read whole
//   under the same cap must not (else the cap proves nothing);
// - the whole process: the CLI's peak RSS (VmHWM, bench/proc/peak-rss.mjs) above the same command's over a store of
//   one small session, against a bound scaled from the file (the garbage collector's slack makes RSS grow with what
//   passes through; the heap test is what tells a bounded reader from one that holds the file).
// Expectations come from the generated files' bytes (their lines and their assistant messages with usage).
import * as assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { generateSession, generateStore } from "../../../bench/generate.js";
import { ROOT } from "../../support/fixtures.js";

const CHILD = join(ROOT, "test", "support", "boundedChild.ts");
const CLI = join(ROOT, "dist", "cli.js");
const PEAK_HOOK = join(ROOT, "bench", "proc", "peak-rss.mjs");
const MB = 1024 * 1024;

/** A reader in a child whose old generation is capped at `capMb`: its answer, or null when it ran out. */
function underCap(capMb: number, ...args: string[]): Record<string, unknown> | null {
  const r = spawnSync(process.execPath, [`--max-old-space-size=${capMb}`, "--import", "tsx", CHILD, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 16 * MB,
  });
  if (r.status !== 0) {
    assert.match(r.stderr, /heap out of memory|Allocation failed/i, `died of something else: ${r.stderr.slice(-400)}`);
    return null;
  }
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

/** The CLI's peak RSS in bytes (its output discarded; it must succeed). */
function cliPeak(dir: string, ...args: string[]): number {
  const file = join(dir, `peak-${process.hrtime.bigint()}`);
  execFileSync(process.execPath, ["--import", PEAK_HOOK, CLI, ...args], {
    env: { ...process.env, PEAK_RSS_FILE: file, PI_SESSIONS_CACHE_DIR: join(dir, `cache-${process.hrtime.bigint()}`) },
    stdio: ["ignore", "ignore", "pipe"],
    maxBuffer: 64 * MB,
  });
  return Number(readFileSync(file, "utf8"));
}

/** Lines of a file and its assistant messages with usage, read from its bytes. */
async function rawCounts(file: string): Promise<{ entries: number; usage: number }> {
  let lines = 0;
  let usage = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    lines++;
    if (line.includes('"role":"assistant"') && line.includes('"usage":{')) usage++;
  }
  return { entries: lines - 1, usage };
}

describe("scale: memory bounded by design (issue #38)", function () {
  this.timeout(600_000);
  let dir: string;
  let big: string;
  let bigFile: string;
  let small: string;
  let store: string;
  let storeBytes: number;
  let raw: { entries: number; usage: number };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "pi-bounded-"));
    big = join(dir, "big");
    small = join(dir, "small");
    store = join(dir, "store");
    for (const d of [big, small]) mkdirSync(join(d, "sessions", "--p--"), { recursive: true });
    bigFile = join(big, "sessions", "--p--", "2026-06-01T09-00-00-000Z_0190a000-0000-7000-8000-000000000001.jsonl");
    await generateSession(bigFile, { targetBytes: 200_000_000, branchPoints: 50, seed: 7 });
    const smallFile = join(
      small,
      "sessions",
      "--p--",
      "2026-06-01T09-00-00-000Z_0190a000-0000-7000-8000-0000000002.jsonl",
    );
    await generateSession(smallFile, { targetBytes: 40_000, branchPoints: 2, seed: 8 });
    const made = await generateStore(join(store, "sessions"), {
      sessions: 3000,
      projects: 40,
      totalBytes: 150_000_000,
      forkShare: 0.1,
      seed: 3,
    });
    storeBytes = made.bytes;
    raw = await rawCounts(bigFile);
    assert.ok(raw.entries > 80_000 && raw.usage > 40_000, "the long session is shaped like a real one");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  // The cap: a quarter of the file. The summary keeps [id, time] per entry (about 100 bytes each) and nothing else.
  it("a 200 MB session's summary, as a listing and as a usage report make it, in a 48 MB heap", () => {
    for (const reader of ["lean-full", "lean-usage"]) {
      const got = underCap(48, reader, bigFile);
      assert.deepEqual(got, { entries: raw.entries, usage: raw.usage }, reader);
    }
    assert.equal(underCap(48, "whole", bigFile), null, "the file parsed whole does not fit the same heap");
  });

  it("its search index built as it streams past, in a 48 MB heap", () => {
    const got = underCap(48, "search", big, "parse");
    assert.ok(got && typeof got.hits === "number" && got.hits > 0, JSON.stringify(got));
    assert.equal(underCap(48, "search-whole", big, "parse"), null, "indexed whole, it does not fit");
  });

  it("a 3,000-session store's listing in a heap of 0.4 times its bytes", () => {
    const capMb = Math.round((0.4 * storeBytes) / MB);
    assert.deepEqual(underCap(capMb, "store", store), { sessions: 3000 });
  });

  // Whole-process RSS above the same command over one small session. Measured on the 2-core test machine: usage
  // about 0.4, list 0.5, tree (a full parse, as it must be) 0.4 times the file; search 0.7 (SQLite's WebAssembly
  // memory grows with the index and is not given back). The bounds leave room for the collector's slack.
  it("the CLI's peak RSS over the 200 MB session, within bounds scaled from the file", () => {
    const size = statSync(bigFile).size;
    const rows: [string, string[], number][] = [
      ["usage --no-cache", ["usage", "--no-cache", "--json"], 0.75],
      ["list --no-cache", ["list", "--no-cache", "--json"], 0.75],
      ["search (cold)", ["search", "parse", "--json"], 1.0],
    ];
    for (const [name, args, share] of rows) {
      const base = cliPeak(dir, ...args, "--agent-dir", small);
      const peak = cliPeak(dir, ...args, "--agent-dir", big);
      assert.ok(peak - base <= share * size, `${name}: ${Math.round((peak - base) / MB)} MB above its base`);
    }
    const base = cliPeak(
      dir,
      "tree",
      "--json",
      join(small, "sessions", "--p--", "2026-06-01T09-00-00-000Z_0190a000-0000-7000-8000-0000000002.jsonl"),
    );
    const peak = cliPeak(dir, "tree", "--json", bigFile);
    assert.ok(peak - base <= 0.75 * size, `tree --json: ${Math.round((peak - base) / MB)} MB above its base`);
  });
});
