/**
 * `npm run bench` (`-- --quick` for a short run): the seven scale figures of issue #7, each with the baseline
 * measured in the same run and the machine's core count. Figures only; nothing is asserted (tests never time).
 *
 *  1 full parse + model of a large session vs a bare read + JSON.parse loop, and vs pi's SessionManager.open
 *  2 cold listing of a many-session store: bytes read, and time vs fully parsing every file (bench/listing.ts)
 *  3 warm listing (persistent cache): files read, time vs cold
 *  4 incremental update after one appended entry: time vs a full parse, bytes read vs bytes appended
 *  5 RSS increase holding the large session's model, vs the file size
 *  6 time to the first tree level of the large session, after the parse
 *  7 activation: session files read before the view is shown (measured in the extension host by the integration
 *    test `a-activation.test.ts`; reported here from the design)
 */
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { join } from "node:path";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { SessionOutline } from "../src/core/outline.js";
import { parseSession } from "../src/core/session/index.js";
import { extendSummary, summarize } from "../src/core/summary.js";
import { parseSessionSliced } from "../src/node/readSession.js";
import { SessionTracker } from "../src/node/tracker.js";
import { generateSession, generateStore } from "./generate.js";
import { benchWholeProcess } from "./process.js";
import { listingRows } from "./listing.js";
import { mb, median, ms, type Row } from "./row.js";
import { benchBackgroundPass, benchUsage } from "./usage.js";
import { searchRows } from "./search.js";
import { compareRows } from "./compare.js";
import { exportRows } from "./export.js";
import { transcriptRows } from "./transcript.js";
import { recallRows } from "./recall.js";

const quick = process.argv.includes("--quick");
const writeResults = process.argv.includes("--write");
const ROOT = join(import.meta.dirname, "..");
const CACHE = join(ROOT, ".bench");
mkdirSync(CACHE, { recursive: true });

function baseline(file: string): number {
  let n = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line) continue;
    try {
      JSON.parse(line);
      n++;
    } catch {
      /* skipped */
    }
  }
  return n;
}

function parseOurs(file: string) {
  const r = parseSession(file, readFileSync(file), { validate: false });
  if (!r.ok) throw new Error(`rejected ${file}`);
  return r.session;
}

async function main() {
  const sessionMb = quick ? 10 : 100;
  const big = join(CACHE, `session-v2-${sessionMb}mb.jsonl`);
  if (!existsSync(big)) {
    process.stdout.write(`generating a ${sessionMb} MB session (seed 42)… `);
    const g = await generateSession(big, { targetBytes: sessionMb * 1048576, branchPoints: 50, seed: 42 });
    console.log(`${g.entries} entries`);
  }
  const store = quick
    ? { sessions: 200, projects: 10, totalBytes: 30 * 1048576, forkShare: 0.1, seed: 7 }
    : { sessions: 2000, projects: 40, totalBytes: 300 * 1048576, forkShare: 0.1, seed: 7 };
  const storeDir = join(CACHE, `store-v1-${store.sessions}`);
  if (!existsSync(join(storeDir, ".done"))) {
    rmSync(storeDir, { recursive: true, force: true });
    process.stdout.write(`generating a store of ${store.sessions} sessions in ${store.projects} projects… `);
    const g = await generateStore(join(storeDir, "sessions"), store);
    writeFileSync(join(storeDir, ".done"), JSON.stringify(g));
    console.log(`${mb(g.bytes)} MB, ${g.forks} forks`);
  }
  const storeFiles = readdirSync(join(storeDir, "sessions"), { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith(".jsonl"))
    .map((d) => join(d.parentPath, d.name));
  const storeBytes = storeFiles.reduce((n, f) => n + statSync(f).size, 0);
  const cores = cpus().length;
  const header =
    `machine: ${cores} cores (${availableParallelism()} available), node ${process.version}` +
    `${quick ? ", quick run" : ""}, ${new Date().toISOString().slice(0, 10)}`;
  console.log(header);
  const rows: Row[] = [];
  const size = statSync(big).size;
  const runs = quick ? 3 : 3;

  // 2, 3, 18 and 22: the store's listings, first, in a function of their own (bench/listing.ts): in a process where no
  // other row has run yet, and leaving nothing behind for the rows after them (pi's loader, run in process by row 1,
  // leaves a heap that slows any later listing by a fifth; a listing's objects left alive slowed row 1's parse).
  rows.push(...(await listingRows(storeDir, storeFiles, storeBytes)));

  // 1. Full parse + model build.
  const session = parseOurs(big);
  const b = median(() => baseline(big), runs);
  const o = median(() => parseOurs(big), runs);
  const piCopy = join(CACHE, "pi-open-copy.jsonl");
  const p = median(
    () => SessionManager.open(piCopy).getEntries().length,
    runs,
    () => copyFileSync(big, piCopy),
  );
  rows.push({
    n: 1,
    measure: `full parse + model, ${mb(size)} MB, ${session.entries.length} entries`,
    value: `${ms(o)} ms`,
    baseline: `read + JSON.parse ${ms(b)} ms`,
    ratio: `${(o / b).toFixed(2)}×`,
    goal: "≤ 1.5×",
    met: o / b <= 1.5,
  });
  rows.push({
    n: 1,
    measure: "…versus pi's SessionManager.open",
    value: `${ms(o)} ms`,
    baseline: `pi ${ms(p)} ms`,
    ratio: `${(p / o).toFixed(2)}× faster`,
    goal: "≥ 2× faster",
    met: p / o >= 2,
  });

  // 1, the extension's path: the same parse in slices; the longest stretch the event loop was blocked.
  const bytes = readFileSync(big);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const tSliced = performance.now();
  await parseSessionSliced(big, bytes, { validate: false });
  const slicedMs = performance.now() - tSliced;
  delay.disable();
  rows.push({
    n: 1,
    measure: "…in 4 MB slices (the extension's path): longest event-loop block",
    value: `${ms(delay.max / 1e6)} ms`,
    baseline: `whole parse ${ms(slicedMs)} ms`,
    ratio: "",
    goal: "",
    met: null,
  });

  // 4. Incremental update after one appended entry.
  const live = join(CACHE, "live-copy.jsonl");
  copyFileSync(big, live);
  const tracker = new SessionTracker(live, { validate: false });
  await tracker.update();
  const listed = summarize(tracker.result());
  const leaf = session.leafId;
  const message = { role: "user", content: "one more thing", timestamp: Date.now() };
  const record = { type: "message", id: "bench0001", parentId: leaf, timestamp: new Date().toISOString(), message };
  const line = `${JSON.stringify(record)}\n`;
  appendFileSync(live, line);
  const t0 = performance.now();
  const u = await tracker.update();
  const tRead = performance.now() - t0;
  const r = tracker.result();
  const tModel = performance.now() - t0;
  extendSummary(listed, r);
  const tAll = performance.now() - t0;
  rows.push({
    n: 4,
    measure: "incremental update, one entry appended",
    value: `${ms(tAll)} ms (read+parse ${ms(tRead)}, model ${ms(tModel - tRead)}, summary ${ms(tAll - tModel)})`,
    baseline: `full parse ${ms(o)} ms`,
    ratio: `${((tAll / o) * 100).toFixed(2)}%`,
    goal: "≤ 1% of a full parse",
    met: tAll / o <= 0.01,
  });
  rows.push({
    n: 4,
    measure: "…bytes read",
    value: `${u.bytesRead} B`,
    baseline: `${Buffer.byteLength(line)} B appended`,
    ratio: `${(u.bytesRead / Buffer.byteLength(line)).toFixed(2)}×`,
    goal: "≈ bytes appended",
    met: u.bytesRead <= Buffer.byteLength(line) + 4096,
  });
  rmSync(live, { force: true });

  // 5. Memory.
  const mem = (mode: string) =>
    JSON.parse(
      execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", join(ROOT, "bench", "memory.ts"), big, mode], {
        encoding: "utf8",
        cwd: ROOT,
      }),
    );
  const ours = mem("ours");
  const floor = mem("floor");
  rows.push({
    n: 5,
    measure: "RSS increase holding the session's model",
    value: `${mb(ours.rssIncrease)} MB`,
    baseline: `file ${mb(size)} MB (all lines as objects: ${mb(floor.rssIncrease)} MB)`,
    ratio: `${(ours.rssIncrease / size).toFixed(2)}× the file`,
    goal: "≤ 1.5× the file",
    met: ours.rssIncrease / size <= 1.5,
  });

  // 6. First tree level after the parse.
  const first = median(() => new SessionOutline(session, "default").items(null), 5);
  rows.push({
    n: 6,
    measure: `first tree level, ${session.entries.length} entries`,
    value: `${ms(first)} ms`,
    baseline: "after the parse",
    ratio: "",
    goal: "≤ 100 ms",
    met: first <= 100,
  });

  // 7. Activation.
  rows.push({
    n: 7,
    measure: "activation",
    value: "0 session files read",
    baseline: "until the view asks for its first level",
    ratio: "",
    goal: "no file read before the view is visible",
    met: true,
  });

  // 16 and 35. Export (issues #16, #35): whole processes against `tree --json` on the same file (bench/export.ts).
  const cli = join(ROOT, "dist", "cli.js");
  rows.push(...exportRows(CACHE, storeDir, big, runs));

  // 16. The transcript view (issue #16): the built page in Chromium against the host's document over the large
  // session (bench/transcript.ts).
  if (existsSync(join(ROOT, "dist", "webview", "transcript.js")))
    rows.push(...(await transcriptRows(ROOT, session, runs)));

  // 17. Full-text search (issue #17) over the store: bench/search.ts.
  if (existsSync(join(ROOT, "dist", "searchWorker.cjs"))) rows.push(...(await searchRows(ROOT, storeDir, storeFiles)));

  // 19. Scale 2 (issue #19): whole processes (the built CLI) against pi's loader and the read + JSON.parse floor.
  if (existsSync(cli)) rows.push(...(await benchWholeProcess(big, CACHE, quick)));

  // 21. Usage at native speed (issue #21): `usage` cold and warm against ccusage's native binary, whole processes.
  rows.push(...benchUsage(storeDir, quick ? 3 : 5), ...(await benchBackgroundPass(storeDir, quick ? 1 : 3)));

  // 37. Recall (issue #37): the MCP server's start, a warm search as a tool call, windows of the large session.
  if (existsSync(join(ROOT, "dist", "mcpServer.cjs"))) rows.push(...(await recallRows(ROOT, storeDir, big)));

  // 32. Hardening 3 (issue #32): Compare Branches on the shapes that were quadratic (bench/compare.ts).
  rows.push(...compareRows(quick));

  rows.sort((a, b) => a.n - b.n); // in the order of their numbers (some run earlier than their number)
  const table = [
    "| # | measure | value | baseline (same run) | ratio | goal | met |",
    "|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.n} | ${r.measure} | ${r.value} | ${r.baseline} | ${r.ratio} | ${r.goal} | ` +
        `${r.met === null ? "" : r.met ? "yes" : "**no**"} |`,
    ),
  ].join("\n");
  console.log(`\n${table}\n`);
  if (writeResults) {
    writeFileSync(join(CACHE, "results.md"), `${header}\n\n${table}\n`);
    console.log(`written to .bench/results.md`);
  }
}

await main();
