/**
 * Bench rows of full-text search (issue #17) over the bench store, each against a baseline of the same run:
 * the cold build as a whole process (MB of session bytes per second), the index's size against the store's bytes,
 * warm queries as whole processes and in process over 20 queries of different selectivity, one appended entry against
 * indexing that file whole, and the extension host's longest event-loop block while its worker builds the index.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseQuery } from "../src/core/search/query.js";
import { SearchClient } from "../src/node/search/searchClient.js";
import { SearchIndex } from "../src/node/search/searchIndex.js";
import { indexTargets } from "../src/node/search/targets.js";
import { computeOwnership, loadStore } from "../src/node/store/index.js";
import { mb, ms, type Row } from "./row.js";

/** Queries from one word common everywhere to phrases and filters that match little. */
const QUERIES = [
  "the",
  "function",
  "error",
  "test",
  "npm",
  "file",
  "src",
  "return",
  '"the file"',
  "impl*",
  "read role:tool",
  "bash tool:bash",
  "error -warning",
  "summary role:summary",
  "user role:user",
  "const value",
  "zzzznotthere",
  '"no such phrase anywhere"',
  "lorem ipsum",
  "since:2026-01-01 the",
];

export interface SearchFigures {
  storeBytes: number;
  coldMs: number;
  indexBytes: number;
  warmCliMedianMs: number;
  warmCliMaxMs: number;
  /** The same CLI run answering `--version`: Node and the bundle's start, for scale. */
  startMs: number;
  inProcessMedianMs: number;
  appendMs: number;
  wholeFileMs: number;
  appendedFileBytes: number;
  workerBuildMs: number;
  longestBlockMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function timed(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

async function benchSearch(root: string, agentDir: string, storeFiles: string[]): Promise<SearchFigures> {
  const cli = join(root, "dist", "cli.js");
  const cache = mkdtempSync(join(tmpdir(), "pi-bench-search-"));
  const env = { ...process.env, PI_SESSIONS_CACHE_DIR: cache };
  const run = (args: string[]) =>
    execFileSync(process.execPath, [cli, ...args], { env, stdio: ["ignore", "ignore", "ignore"] });
  const storeBytes = storeFiles.reduce((n, f) => n + statSync(f).size, 0);
  try {
    // Cold: a fresh cache dir (the metadata cache too), one run: it takes a minute.
    const coldMs = timed(() => run(["search", "the", "--agent-dir", agentDir]));
    const indexBytes = readdirSync(cache)
      .filter((f) => f.startsWith("search-") && f.endsWith(".sqlite"))
      .reduce((n, f) => n + statSync(join(cache, f)).size, 0);
    const warm = QUERIES.map((q) => timed(() => run(["search", q, "--agent-dir", agentDir, "--json"])));
    const startMs = median([0, 1, 2].map(() => timed(() => run(["--version"]))));

    // In process, as the extension's worker queries: the index open, 20 queries three times.
    const roots = [{ dir: join(agentDir, "sessions") }];
    const index = await SearchIndex.open(cache, roots);
    let inProcess: number[] = [];
    let appendMs = 0;
    let wholeFileMs = 0;
    let appendedFileBytes = 0;
    try {
      for (let pass = 0; pass < 3; pass++)
        inProcess = [
          ...inProcess,
          ...QUERIES.map((q) => {
            const parsed = parseQuery(q);
            return parsed.ok ? timed(() => index.query(parsed, { limit: 50 })) : 0;
          }),
        ];
      // Eleven entries appended one at a time to the store's largest session, each indexed before the next (the
      // median is the figure); then that file indexed whole. The file is put back.
      const store = await loadStore({
        roots: roots.map((r) => ({ ...r, agent: "pi", source: "bench" })),
        cacheFile: null,
      });
      computeOwnership(store.sessions);
      const largest = store.sessions.filter((s) => s.summary.ok).sort((a, b) => b.sizeBytes - a.sizeBytes)[0]!;
      appendedFileBytes = largest.sizeBytes;
      let leaf = largest.summary.ok ? largest.summary.leafId : null;
      let grown = indexTargets([largest]);
      const appends: number[] = [];
      try {
        for (let i = 0; i < 11; i++) {
          const entry = {
            type: "message",
            id: `bench${i}`,
            parentId: leaf,
            timestamp: new Date().toISOString(),
            message: { role: "user", content: `an appended prompt with benchappendword ${i}`, timestamp: Date.now() },
          };
          appendFileSync(largest.file, `${JSON.stringify(entry)}\n`);
          leaf = entry.id;
          const st = statSync(largest.file);
          grown = indexTargets([{ ...largest, sizeBytes: st.size, mtimeMs: Math.trunc(st.mtimeMs) }]);
          const t0 = performance.now();
          const r = await index.update(grown, { removed: [] });
          appends.push(performance.now() - t0);
          if (r.appended !== 1) throw new Error(`the append was not taken in alone: ${JSON.stringify(r)}`);
        }
        appendMs = median(appends);
        // Baseline: the same file indexed whole, as a new or rewritten file is (in an index of its own).
        const scratch = mkdtempSync(join(tmpdir(), "pi-bench-whole-"));
        const alone = await SearchIndex.open(scratch, roots);
        try {
          const t1 = performance.now();
          await alone.update(grown, { removed: [] });
          wholeFileMs = performance.now() - t1;
        } finally {
          alone.close();
          rmSync(scratch, { recursive: true, force: true });
        }
      } finally {
        truncateSync(largest.file, largest.sizeBytes);
      }
    } finally {
      index.close();
    }

    // The extension's path: a worker builds the index into a fresh dir while this thread (the "host") only sends the
    // listing and waits; its longest event-loop block is the figure.
    const workerCache = mkdtempSync(join(tmpdir(), "pi-bench-worker-"));
    const delay = monitorEventLoopDelay({ resolution: 1 });
    let workerBuildMs = 0;
    try {
      const store = await loadStore({
        roots: roots.map((r) => ({ ...r, agent: "pi", source: "bench" })),
        cacheFile: null,
      });
      computeOwnership(store.sessions);
      delay.enable();
      const t0 = performance.now();
      await new Promise<void>((resolve, reject) => {
        const client = new SearchClient(
          join(root, "dist", "searchWorker.cjs"),
          { cacheDir: workerCache, roots: roots.map((r) => r.dir), variant: "" },
          {
            onSynced: () => void client.dispose().then(resolve),
            onFailed: (m) => reject(new Error(m)),
          },
        );
        client.sync(indexTargets(store.sessions));
      });
      workerBuildMs = performance.now() - t0;
      delay.disable();
    } finally {
      rmSync(workerCache, { recursive: true, force: true });
    }
    return {
      storeBytes,
      coldMs,
      indexBytes,
      warmCliMedianMs: median(warm),
      warmCliMaxMs: Math.max(...warm),
      startMs,
      inProcessMedianMs: median(inProcess),
      appendMs,
      wholeFileMs,
      appendedFileBytes,
      workerBuildMs,
      longestBlockMs: delay.max / 1e6,
    };
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

/** Rows 17 of `npm run bench`: the search figures against their goals. */
export async function searchRows(root: string, agentDir: string, storeFiles: string[]): Promise<Row[]> {
  const f = await benchSearch(root, agentDir, storeFiles);
  const rate = f.storeBytes / 1048576 / (f.coldMs / 1000);
  return [
    {
      n: 17,
      measure: `search: cold index build, whole process (${mb(f.storeBytes)} MB store)`,
      value: `${(f.coldMs / 1000).toFixed(1)} s (${rate.toFixed(1)} MB/s)`,
      baseline: "",
      ratio: "",
      goal: "≤ 60 s",
      met: f.coldMs <= 60_000,
    },
    {
      n: 17,
      measure: "search: index size on disk",
      value: `${mb(f.indexBytes)} MB`,
      baseline: `store ${mb(f.storeBytes)} MB`,
      ratio: `${(f.indexBytes / f.storeBytes).toFixed(2)}×`,
      goal: "≤ 0.5×",
      met: f.indexBytes / f.storeBytes <= 0.5,
    },
    {
      n: 17,
      measure: "search: warm query, whole CLI process, 20 queries (median / max)",
      value: `${ms(f.warmCliMedianMs)} / ${ms(f.warmCliMaxMs)} ms`,
      baseline: `pi-sessions --version ${ms(f.startMs)} ms`,
      ratio: "",
      goal: "median ≤ 250 ms, max ≤ 1 s",
      met: f.warmCliMedianMs <= 250 && f.warmCliMaxMs <= 1000,
    },
    {
      n: 17,
      measure: "search: query in process (the worker's), 20 queries × 3, median",
      value: `${ms(f.inProcessMedianMs)} ms`,
      baseline: "",
      ratio: "",
      goal: "≤ 30 ms",
      met: f.inProcessMedianMs <= 30,
    },
    {
      n: 17,
      measure: `search: one appended entry indexed, median of 11 (in a ${mb(f.appendedFileBytes)} MB session)`,
      value: `${ms(f.appendMs)} ms`,
      baseline: `that file indexed whole ${ms(f.wholeFileMs)} ms`,
      ratio: `${(f.appendMs / f.wholeFileMs).toFixed(3)}×`,
      goal: "≤ 20 ms",
      met: f.appendMs <= 20,
    },
    {
      n: 17,
      measure: "search: the host's longest event-loop block while the worker builds the index",
      value: `${ms(f.longestBlockMs)} ms`,
      baseline: `build in the worker ${(f.workerBuildMs / 1000).toFixed(1)} s`,
      ratio: "",
      goal: "≤ 50 ms",
      met: f.longestBlockMs <= 50,
    },
  ];
}
