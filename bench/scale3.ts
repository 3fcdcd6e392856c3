/**
 * `npm run bench:scale3`: the rows of issue #38 on the store of a heavy user (bench/generate.ts `generateLargeStore`:
 * 8,000 ordinary sessions and three of 1.8 GB, 1.4 GB and 554 MB, about 4.8 GB in all), each against a baseline of
 * the same run: the CLI as whole processes (`/usr/bin/time` for the peak RSS, which sees worker threads too) against
 * ccusage's native binary. The store is generated once into .bench/ (about 3 minutes, 4.6 GB of disk).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateLargeStore } from "./generate.js";
import { type Row } from "./row.js";

const ROOT = join(import.meta.dirname, "..");
const STORE = join(ROOT, ".bench", "store-scale3");
const CLI = join(ROOT, "dist", "cli.js");
const CCUSAGE = join(ROOT, "node_modules", "ccusage", "src", "cli.js");

/** One whole process: seconds and peak RSS in MB (`/usr/bin/time -f`). */
function measure(args: string[], env: NodeJS.ProcessEnv = process.env): { s: number; mb: number } {
  const r = spawnSync("/usr/bin/time", ["-f", "%e %M", process.execPath, ...args], {
    env,
    stdio: ["ignore", "ignore", "pipe"],
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) throw new Error(`${args.join(" ")} failed: ${r.stderr?.toString()}`);
  const out = r.stderr.toString();
  const [s, kb] = out.trim().split("\n").at(-1)!.split(" ").map(Number);
  return { s: s!, mb: kb! / 1024 };
}

async function ensureStore(): Promise<void> {
  if (existsSync(join(STORE, ".done"))) return;
  rmSync(STORE, { recursive: true, force: true });
  process.stdout.write("generating the heavy user's store (8,003 sessions, about 4.8 GB)… ");
  const g = await generateLargeStore(join(STORE, "sessions"), {
    sessions: 8000,
    ordinaryBytes: 560 * 1048576,
    longMb: [1800, 1400, 554],
    seed: 38,
  });
  writeFileSync(join(STORE, ".done"), JSON.stringify(g));
  console.log(`${(g.bytes / 1e9).toFixed(2)} GB, ${g.forks} forks`);
}

/** The Sessions view's listing (bench/editorPass.ts) in a process of its own, cold and then warm. */
function editorRows(): Row[] {
  const cache = mkdtempSync(join(tmpdir(), "pi-bench-editor-"));
  const pass = () =>
    JSON.parse(
      execFileSync(process.execPath, ["--import", "tsx", join(ROOT, "bench", "editorPass.ts"), STORE, cache], {
        cwd: ROOT,
        encoding: "utf8",
      }),
    ) as { firstRows: number; complete: number; peakMb: number; maxBlockMs: number };
  try {
    const cold = pass();
    const warm = pass();
    const text = (p: typeof cold) =>
      `first rows ${(p.firstRows / 1000).toFixed(2)} s, all read ${(p.complete / 1000).toFixed(1)} s, ` +
      `peak ${p.peakMb.toFixed(0)} MB, longest block ${p.maxBlockMs.toFixed(0)} ms`;
    return [
      {
        n: 38,
        measure: "Sessions view's listing, cold (no cache): the extension's library with its worker threads",
        value: text(cold),
        baseline: "",
        ratio: "",
        goal: "first rows ≤ 2 s, ≤ 500 MB, no block > 50 ms",
        met: cold.firstRows <= 2000 && cold.peakMb <= 500 && cold.maxBlockMs <= 50,
      },
      {
        n: 38,
        measure: "…warm (its cache)",
        value: text(warm),
        baseline: "",
        ratio: "",
        goal: "the whole list ≤ 0.5 s",
        met: warm.complete <= 500,
      },
    ];
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

export async function scale3Rows(): Promise<Row[]> {
  await ensureStore();
  const cache = mkdtempSync(join(tmpdir(), "pi-bench-scale3-"));
  const env = { ...process.env, PI_SESSIONS_CACHE_DIR: cache };
  const rows: Row[] = [];
  const row = (
    measure: string,
    v: { s: number; mb: number },
    baseline: string,
    base: number,
    goal: string,
    met: boolean,
  ) =>
    rows.push({
      n: 38,
      measure,
      value: `${v.s.toFixed(2)} s, ${v.mb.toFixed(0)} MB`,
      baseline,
      ratio: base ? `${(v.s / base).toFixed(2)}×` : "",
      goal,
      met,
    });
  try {
    const cc = measure([CCUSAGE, "pi", "daily", "--json", "--offline", "--pi-path", join(STORE, "sessions")]);
    const ccText = `ccusage 20 pi daily ${cc.s.toFixed(2)} s, ${cc.mb.toFixed(0)} MB`;
    const cold = measure([CLI, "usage", "--by", "day", "--no-cache", "--agent-dir", STORE], env);
    row("usage --by day --no-cache", cold, ccText, cc.s, "≤ 1.0× ccusage, ≤ 400 MB", cold.s <= cc.s && cold.mb <= 400);
    const fill = measure([CLI, "list", "--json", "--agent-dir", STORE], env);
    row(
      "list --json, cold (fills the cache)",
      fill,
      ccText,
      cc.s,
      "≤ 1.0× ccusage, ≤ 400 MB",
      fill.s <= cc.s && fill.mb <= 400,
    );
    const warm = measure([CLI, "list", "--json", "--agent-dir", STORE], env);
    row("list --json, warm", warm, "", 0, "≤ 0.5 s, ≤ 200 MB", warm.s <= 0.5 && warm.mb <= 200);
    const usageWarm = measure([CLI, "usage", "--by", "day", "--agent-dir", STORE], env);
    row("usage --by day, warm", usageWarm, ccText, cc.s, "", usageWarm.s <= cc.s);
    rows.push(...editorRows());
    const build = measure([CLI, "search", "error", "--agent-dir", STORE, "--json"], env);
    row(
      "search: cold index build of the store (whole process, indexing in its worker)",
      build,
      "",
      0,
      "≤ 300 s, ≤ 500 MB",
      build.s <= 300 && build.mb <= 500,
    );
    const queries = ["error", "function test", '"the file"'].map((q) =>
      measure([CLI, "search", q, "--agent-dir", STORE, "--json"], env),
    );
    const q = queries.sort((a, b) => a.s - b.s)[1]!;
    row("search: a warm query (whole process, median of 3)", q, "", 0, "≤ 0.3 s", q.s <= 0.3);
    const longest = readdirSync(join(STORE, "sessions", "--home-u-src-long-0--"))[0]!;
    const tree = measure([CLI, "tree", join(STORE, "sessions", "--home-u-src-long-0--", longest), "--json"], env);
    row("tree --json of the 1.8 GB session", tree, "", 0, "≤ 0.5× the file in RSS (900 MB)", tree.mb <= 900);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1]?.endsWith("scale3.ts")) {
  const met = (r: Row) => (r.met === null ? "" : r.met ? "yes" : "**no**");
  for (const r of await scale3Rows())
    console.log(`| ${r.n} | ${r.measure} | ${r.value} | ${r.baseline} | ${r.ratio} | ${r.goal} | ${met(r)} |`);
}
