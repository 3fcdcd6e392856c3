/**
 * Export rows: `pi-sessions export` of the large session as whole processes writing to nowhere, against
 * `pi-sessions tree --json` on the same file in the same run (the built CLI: `npm run build` first).
 *
 * - Rows 16 (issue #16): the session alone (an empty agent dir, no cache): what the export itself costs.
 * - Rows 35 (issue #35): the session inside the 2,000-session bench store, cold (a fresh `PI_SESSIONS_CACHE_DIR` each
 *   run, so no metadata cache exists): what a user's first export costs. Until #35 an export listed the whole store to
 *   know a fork's copies; it now reads every other file's first and last KB and only the relatives in full.
 *
 * `node --import tsx bench/export.ts [--quick]` runs these rows alone.
 */
import { execFileSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { mb, medianOf, ms, type Row } from "./row.js";

const ROOT = join(import.meta.dirname, "..");
const CLI = join(ROOT, "dist", "cli.js");

/** An agent dir holding the bench store's files and the large session, as hard links (no copy of 400 MB). */
function storeWithSession(cache: string, storeDir: string, big: string): string {
  const agent = join(cache, "export-store");
  const done = join(agent, ".done");
  if (existsSync(done)) return agent;
  rmSync(agent, { recursive: true, force: true });
  const from = join(storeDir, "sessions");
  for (const d of readdirSync(from, { recursive: true, withFileTypes: true })) {
    if (!d.isFile() || !d.name.endsWith(".jsonl")) continue;
    const target = join(agent, "sessions", relative(from, join(d.parentPath, d.name)));
    mkdirSync(join(target, ".."), { recursive: true });
    linkSync(join(d.parentPath, d.name), target);
  }
  const project = join(agent, "sessions", "--work-bench-export--");
  mkdirSync(project, { recursive: true });
  linkSync(big, join(project, "2026-11-30T10-00-00-000Z_bench-export.jsonl"));
  execFileSync("touch", [done]);
  return agent;
}

/** Wall time of one process of the built CLI, its output to nowhere; `env` added to ours. */
function timed(args: string[], env: Record<string, string> = {}): number {
  const t = performance.now();
  execFileSync(process.execPath, [CLI, ...args], {
    stdio: ["ignore", "ignore", "ignore"],
    env: { ...process.env, ...env },
  });
  return performance.now() - t;
}

/** Each contender `runs` times, interleaved (tree, md, html, tree, …), after one untimed round; medians. */
function interleaved(contenders: Record<string, () => number>, runs: number): Record<string, number> {
  for (const run of Object.values(contenders)) run();
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  for (let i = 0; i < runs; i++) for (const [name, run] of Object.entries(contenders)) times[name]!.push(run());
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, medianOf(v)]));
}

const FORMATS = [
  ["md", "Markdown"],
  ["html", "HTML"],
] as const;

/** Rows 16 and 35 (see the file's comment). */
export function exportRows(cache: string, storeDir: string, big: string, runs: number): Row[] {
  if (!existsSync(CLI)) return [];
  const size = statSync(big).size;
  const empty = join(cache, "empty-agent");
  mkdirSync(empty, { recursive: true });
  const agent = storeWithSession(cache, storeDir, big);
  const sessions = readdirSync(join(agent, "sessions"), { recursive: true }).filter((f) =>
    String(f).endsWith(".jsonl"),
  );
  const file = join(agent, "sessions", "--work-bench-export--", "2026-11-30T10-00-00-000Z_bench-export.jsonl");
  let fresh = 0;
  const coldCache = () => {
    const dir = join(cache, `export-cold-cache-${process.pid}-${fresh++}`);
    rmSync(dir, { recursive: true, force: true });
    return { PI_SESSIONS_CACHE_DIR: dir };
  };
  const contenders: Record<string, () => number> = { tree: () => timed(["tree", big, "--json"]) };
  for (const [format] of FORMATS) {
    contenders[`alone-${format}`] = () =>
      timed(["export", big, "--format", format, "--no-cache", "--agent-dir", empty]);
    contenders[`store-${format}`] = () =>
      timed(["export", file, "--format", format, "--agent-dir", agent], coldCache());
  }
  const t = interleaved(contenders, runs);
  for (let i = 0; i < fresh; i++)
    rmSync(join(cache, `export-cold-cache-${process.pid}-${i}`), { recursive: true, force: true });
  const rows: Row[] = [];
  for (const [format, name] of FORMATS) {
    const alone = t[`alone-${format}`]!;
    rows.push({
      n: 16,
      measure: `export ${mb(size)} MB as ${name} (whole process, the session alone)`,
      value: `${ms(alone)} ms`,
      baseline: `tree --json ${ms(t.tree!)} ms`,
      ratio: `${(alone / t.tree!).toFixed(2)}×`,
      goal: "≤ 2.5×",
      met: alone / t.tree! <= 2.5,
    });
  }
  for (const [format, name] of FORMATS) {
    const cold = t[`store-${format}`]!;
    rows.push({
      n: 35,
      measure:
        `export ${mb(size)} MB as ${name} from a store of ${sessions.length.toLocaleString("en")} sessions, ` +
        `cold cache (whole process, median of ${runs})`,
      value: `${ms(cold)} ms`,
      baseline: `tree --json ${ms(t.tree!)} ms`,
      ratio: `${(cold / t.tree!).toFixed(2)}×`,
      goal: "≤ 1.5×",
      met: cold / t.tree! <= 1.5,
    });
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes("--quick");
  const cache = join(ROOT, ".bench");
  const rows = exportRows(
    cache,
    join(cache, `store-v1-${quick ? 200 : 2000}`),
    join(cache, `session-v2-${quick ? 10 : 100}mb.jsonl`),
    3,
  );
  for (const row of rows) {
    const met = row.met === null ? "" : row.met ? "yes" : "**no**";
    console.log(`| ${row.n} | ${row.measure} | ${row.value} | ${row.baseline} | ${row.ratio} | ${row.goal} | ${met} |`);
  }
}
