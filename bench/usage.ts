/**
 * Rows 21 (issue #21): `pi-sessions usage --by day --json` over the 2,000-session bench store against ccusage's
 * native binary (`ccusage pi daily --json --offline`, the version pinned in devDependencies), as whole processes,
 * interleaved, medians. Cold: `--no-cache` (also on one thread, to tell the worker threads' share). Warm: our cache
 * filled by one run before. Peak RSS comes from GNU time
 * (`/usr/bin/time`), which sees ccusage's native process too (its `ccusage` command is a Node launcher that spawns
 * it); without GNU time the memory row is left out.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { loadStore } from "../src/node/store/index.js";
import { medianOf, type Row } from "./row.js";
const ROOT = join(import.meta.dirname, "..");
const CLI = join(ROOT, "dist", "cli.js");
const CCUSAGE = join(ROOT, "node_modules", "ccusage", "src", "cli.js");
const GNU_TIME = "/usr/bin/time";

interface Run {
  ms: number;
  peakBytes: number | null;
  status: number | null;
}

function run(args: string[], env: NodeJS.ProcessEnv): Run {
  const timeFile = join(tmpdir(), `pi-bench-time-${process.pid}`);
  const gnu = existsSync(GNU_TIME);
  const [command, argv] = gnu
    ? [GNU_TIME, ["-f", "%M", "-o", timeFile, process.execPath, ...args]]
    : [process.execPath, args];
  const t = performance.now();
  const r = spawnSync(command, argv, { stdio: ["ignore", "ignore", "ignore"], env: { ...process.env, ...env } });
  const ms = performance.now() - t;
  let peakBytes: number | null = null;
  if (gnu && existsSync(timeFile)) peakBytes = Number(readFileSync(timeFile, "utf8").trim().split("\n").at(-1)) * 1024;
  rmSync(timeFile, { force: true });
  return { ms, peakBytes, status: r.status };
}

/** Rows 21 over the store whose agent dir is `agentDir` (its sessions in `agentDir/sessions`). */
export function benchUsage(agentDir: string, runs: number): Row[] {
  if (!existsSync(CCUSAGE) || !existsSync(CLI)) return [];
  const cacheDir = mkdtempSync(join(tmpdir(), "pi-bench-usage-cache-"));
  const ours = ["usage", "--by", "day", "--json", "--agent-dir", agentDir];
  const env = { PI_SESSIONS_CACHE_DIR: cacheDir };
  const contenders: [string, string[], NodeJS.ProcessEnv][] = [
    ["cold", [CLI, ...ours, "--no-cache"], env],
    // The same on one thread: what the worker threads bring, apart from the scanned reads.
    ["cold1", [CLI, ...ours, "--no-cache"], { ...env, PI_SESSIONS_THREADS: "1" }],
    ["warm", [CLI, ...ours], env],
    ["ccusage", [CCUSAGE, "pi", "daily", "--json", "--offline", "--pi-path", join(agentDir, "sessions")], {}],
  ];
  try {
    run([CLI, ...ours], env); // fills the cache for the warm runs
    const all = new Map<string, Run[]>(contenders.map(([name]) => [name, []]));
    for (let i = 0; i < runs; i++) for (const [name, args, e] of contenders) all.get(name)!.push(run(args, e));
    const med = (name: string) => {
      const rs = all.get(name)!;
      const peaks = rs.map((r) => r.peakBytes).filter((p): p is number => p !== null);
      return {
        ms: medianOf(rs.map((r) => r.ms)),
        peak: peaks.length ? medianOf(peaks) : null,
        ok: rs.every((r) => r.status === 0),
      };
    };
    const cold = med("cold");
    const cold1 = med("cold1");
    const warm = med("warm");
    const cc = med("ccusage");
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const mb = (b: number) => `${(b / 1048576).toFixed(0)} MB`;
    /** A time against ccusage's; `limit`: the goal's ratio (none: a row without a goal). */
    const timeRow = (measure: string, r: { ms: number; ok: boolean }, limit?: number): Row => ({
      n: 21,
      measure,
      value: s(r.ms),
      baseline: `ccusage ${s(cc.ms)}`,
      ratio: `${(r.ms / cc.ms).toFixed(2)}×`,
      goal: limit === undefined ? "—" : `≤ ${limit.toFixed(1)}×`,
      met: limit === undefined ? null : r.ok && cc.ok && r.ms <= limit * cc.ms,
    });
    const rows: Row[] = [
      {
        ...timeRow(`usage --by day, cold (--no-cache), whole process, median of ${runs}`, cold, 1),
        baseline: `ccusage 20.0.24 pi daily ${s(cc.ms)}`,
      },
      timeRow("…cold on one thread (PI_SESSIONS_THREADS=1)", cold1),
      timeRow("…warm (the metadata cache filled)", warm, 0.5),
    ];
    if (cold.peak !== null && cc.peak !== null)
      rows.push({
        n: 21,
        measure: "…peak RSS, cold",
        value: mb(cold.peak),
        baseline: `ccusage ${mb(cc.peak)}`,
        ratio: `${(cold.peak / cc.peak).toFixed(2)}×`,
        goal: "≤ 1.0×",
        met: cold.ok && cold.peak <= cc.peak,
      });
    return rows;
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

/**
 * Row 21: the Sessions view's background pass over the same store (the files its first paint probed, read in full),
 * in worker threads as the extension reads it, against the same pass on the main thread (the pass before issue #21).
 */
export async function benchBackgroundPass(agentDir: string, runs: number): Promise<Row[]> {
  const workerFile = join(ROOT, "dist", "summaryWorker.cjs");
  if (!existsSync(workerFile)) return [];
  const roots = [{ dir: join(agentDir, "sessions"), agent: "pi" as const, source: "bench" }];
  const pass = async (parallel: boolean) => {
    const store = await loadStore({
      roots,
      cacheFile: null,
      probe: true,
      ...(parallel ? { parallel: { workerFile, mode: "full" as const, minBytes: 0 } } : {}),
    });
    const t = performance.now();
    await store.complete();
    return performance.now() - t;
  };
  const main: number[] = [];
  const workers: number[] = [];
  for (let i = 0; i < runs; i++) {
    main.push(await pass(false));
    workers.push(await pass(true));
  }
  const [m, w] = [medianOf(main), medianOf(workers)];
  return [
    {
      n: 21,
      measure: `Sessions view's background pass in worker threads (extension host reads none), median of ${runs}`,
      value: `${(w / 1000).toFixed(2)} s`,
      baseline: `on the host thread ${(m / 1000).toFixed(2)} s`,
      ratio: `${(m / w).toFixed(2)}× faster`,
      goal: "—",
      met: null,
    },
  ];
}
