/**
 * Whole-process rows (issue #19): `pi-sessions tree FILE --json` to /dev/null as a user runs it, against pi's
 * `SessionManager.open` in a process of its own and against a process that only reads the file and `JSON.parse`s
 * every line. Each process starts cold (no cache of ours exists for `tree`), with the OS page cache warm; runs are
 * interleaved and the median of each is reported. Peak RSS comes from the process itself (`proc/peak-rss.mjs`).
 *
 * `node --import tsx bench/process.ts [--quick]` runs these rows alone.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, createReadStream, createWriteStream, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

import { SessionOutline } from "../src/core/outline.js";
import { readTailPreview } from "../src/node/tailPreview.js";
import { medianOf, ms, type Row } from "./row.js";
const ROOT = join(import.meta.dirname, "..");
const HOOK = pathToFileURL(join(import.meta.dirname, "proc", "peak-rss.mjs")).href;
const CLI = join(ROOT, "dist", "cli.js");

interface ProcessRun {
  ms: number;
  peakBytes: number;
  status: number | null;
}

/** One process: wall time around it, its peak RSS, its exit status. */
function runProcess(args: string[]): ProcessRun {
  const rssFile = join(tmpdir(), `pi-bench-rss-${process.pid}`);
  rmSync(rssFile, { force: true });
  const t = performance.now();
  const r = spawnSync(process.execPath, ["--import", HOOK, ...args], {
    stdio: ["ignore", "ignore", "ignore"],
    env: { ...process.env, PEAK_RSS_FILE: rssFile },
  });
  const ms = performance.now() - t;
  const peakBytes = existsSync(rssFile) ? Number(readFileSync(rssFile, "utf8")) : 0;
  return { ms, peakBytes, status: r.status };
}

interface Contender {
  name: string;
  args: string[];
  /** Run before each run, outside the timing (pi migrates files it opens: it gets a fresh copy). */
  setup?: () => void;
}

/** Each contender `runs` times, interleaved; medians of time and peak RSS, and the exit status of the last run. */
function interleaved(contenders: Contender[], runs: number): Map<string, ProcessRun> {
  const all = new Map<string, ProcessRun[]>(contenders.map((c) => [c.name, []]));
  for (let i = 0; i < runs; i++) {
    for (const c of contenders) {
      c.setup?.();
      all.get(c.name)!.push(runProcess(c.args));
    }
  }
  return new Map(
    [...all].map(([name, rs]) => [
      name,
      { ms: medianOf(rs.map((r) => r.ms)), peakBytes: medianOf(rs.map((r) => r.peakBytes)), status: rs.at(-1)!.status },
    ]),
  );
}

/** The contenders for one session file. */
function treeContenders(file: string, piCopy: string): Contender[] {
  return [
    { name: "ours", args: [CLI, "tree", file, "--json"] },
    { name: "floor", args: [join(import.meta.dirname, "proc", "json-parse.mjs"), file] },
    {
      name: "pi",
      args: [join(import.meta.dirname, "proc", "pi-open.mjs"), piCopy],
      setup: () => copyFileSync(file, piCopy),
    },
  ];
}

/**
 * A session of about `copies` × the source's size: the source's entries again and again, each copy's 8-hex ids
 * given a suffix of its own, each copy's root chained to the previous copy's last entry (one long conversation).
 */
async function chainCopies(source: string, target: string, copies: number): Promise<void> {
  const out = createWriteStream(target);
  let lastId: string | null = null;
  for (let k = 0; k < copies; k++) {
    const lines = createInterface({ input: createReadStream(source), crlfDelay: Number.POSITIVE_INFINITY });
    let first = true;
    let copyLast: string | null = null;
    for await (const line of lines) {
      if (!line) continue;
      if (first) {
        first = false;
        if (k > 0) continue; // one header
      }
      let text = k === 0 ? line : line.replace(/"([0-9a-f]{8})"/g, `"$1${k.toString(16)}"`);
      if (k > 0 && text.includes('"parentId":null')) text = text.replace('"parentId":null', `"parentId":"${lastId}"`);
      const id = /"id":"([^"]+)"/.exec(text)?.[1];
      if (id && !text.startsWith('{"type":"session"')) copyLast = id;
      if (!out.write(`${text}\n`)) await once(out, "drain");
    }
    lastId = copyLast;
  }
  out.end();
  await once(out, "finish");
}

const sizeOf = (file: string) => statSync(file).size;

const mb = (n: number) => (n / 1048576).toFixed(0);
const s = (n: number) => `${(n / 1000).toFixed(2)} s`;

/** Rows 19: goals 1–3 of issue #19, as whole processes. */
export async function benchWholeProcess(big: string, cache: string, quick: boolean): Promise<Row[]> {
  const runs = quick ? 3 : 5;
  const size = sizeOf(big);
  const piCopy = join(cache, "pi-open-copy.jsonl");
  const r = interleaved(treeContenders(big, piCopy), runs);
  const ours = r.get("ours")!;
  const floor = r.get("floor")!;
  const pi = r.get("pi")!;
  const rows: Row[] = [
    {
      n: 19,
      measure: `whole process: \`tree --json\` of the ${mb(size)} MB session to /dev/null, median of ${runs}`,
      value: s(ours.ms),
      baseline: `pi's SessionManager.open in a process ${s(pi.ms)}`,
      ratio: `${(pi.ms / ours.ms).toFixed(2)}× faster`,
      goal: "≥ 2.5× faster",
      met: ours.status === 0 && pi.status === 0 && pi.ms / ours.ms >= 2.5,
    },
    {
      n: 19,
      measure: "…against the single-threaded floor",
      value: s(ours.ms),
      baseline: `read + JSON.parse every line, a process: ${s(floor.ms)}`,
      ratio: `${(ours.ms / floor.ms).toFixed(2)}×`,
      goal: "≤ 0.7×",
      met: ours.status === 0 && ours.ms / floor.ms <= 0.7,
    },
    {
      n: 19,
      measure: "…its peak RSS",
      value: `${mb(ours.peakBytes)} MB`,
      baseline: `the file ${mb(size)} MB (pi ${mb(pi.peakBytes)} MB, the floor ${mb(floor.peakBytes)} MB)`,
      ratio: `${(ours.peakBytes / size).toFixed(2)}×`,
      goal: "≤ 1.2×",
      met: ours.status === 0 && ours.peakBytes / size <= 1.2,
    },
  ];
  if (quick) return rows;
  const huge = join(cache, "session-chain-1gb.jsonl");
  if (!existsSync(huge)) {
    process.stdout.write("chaining ten copies of the 100 MB session into one… ");
    await chainCopies(big, huge, 10);
    console.log(`${mb(sizeOf(huge))} MB`);
  }
  const hugeSize = sizeOf(huge);
  const h = interleaved(
    treeContenders(huge, piCopy).filter((c) => c.name !== "floor"),
    3,
  );
  const hOurs = h.get("ours")!;
  const preview = await tailFirst(huge);
  const hPi = h.get("pi")!;
  rmSync(piCopy, { force: true });
  rows.push(
    {
      n: 19,
      measure: `1 GB: \`tree --json\` of a ${mb(hugeSize)} MB session (ten chained copies), median of 3`,
      value: s(hOurs.ms),
      baseline: `the ${mb(size)} MB session ${s(ours.ms)}`,
      ratio: `${(hOurs.ms / ours.ms).toFixed(1)}×`,
      goal: "≤ 12×",
      met: hOurs.status === 0 && hOurs.ms / ours.ms <= 12,
    },
    {
      n: 19,
      measure: "…its peak RSS",
      value: `${mb(hOurs.peakBytes)} MB`,
      baseline: `the file ${mb(hugeSize)} MB`,
      ratio: `${(hOurs.peakBytes / hugeSize).toFixed(2)}×`,
      goal: "≤ 1.2×",
      met: hOurs.status === 0 && hOurs.peakBytes / hugeSize <= 1.2,
    },
    {
      n: 19,
      measure: "…the Sessions view's first rows of it, tail-first (its latest turns: `readTailPreview`, in process)",
      value: `${ms(preview.ms)} ms, ${preview.turns} turns`,
      baseline: `its whole read ${s(hOurs.ms)}`,
      ratio: `${((preview.ms / hOurs.ms) * 100).toFixed(1)}%`,
      goal: "before the parse ends",
      met: preview.turns > 0 && preview.ms < hOurs.ms,
    },
    {
      n: 19,
      measure: "…pi's SessionManager.open on it",
      value: hPi.status === 0 ? `opens, ${s(hPi.ms)}` : `fails (exit ${hPi.status}) after ${s(hPi.ms)}`,
      baseline: "",
      ratio: "",
      goal: "",
      met: null,
    },
  );
  return rows;
}

/** The first rows the Sessions view shows of a large session while it is read: median of 5, and how many turns. */
async function tailFirst(file: string): Promise<{ ms: number; turns: number }> {
  let turns = 0;
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const session = await readTailPreview(file);
    turns = session ? new SessionOutline(session, "default").items(null).length : 0;
    times.push(performance.now() - t);
  }
  return { ms: medianOf(times), turns };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes("--quick");
  const cache = join(ROOT, ".bench");
  const rows = await benchWholeProcess(join(cache, `session-v2-${quick ? 10 : 100}mb.jsonl`), cache, quick);
  for (const row of rows) {
    const met = row.met === null ? "" : row.met ? "yes" : "**no**";
    console.log(`| ${row.n} | ${row.measure} | ${row.value} | ${row.baseline} | ${row.ratio} | ${row.goal} | ${met} |`);
  }
}
