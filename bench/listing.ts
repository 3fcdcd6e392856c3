/**
 * Rows 2, 3, 18 and 22 of `npm run bench`: the store's listings. Cold (no metadata cache): each file's first and last
 * 4 KB, against a full parse of every file; warm (the cache); the sweep behind the watcher; the file history and the
 * fork families built from the warm listing. `bench/run.ts` runs them first, in this function's own scope, so that
 * nothing before them shapes their heap and nothing of theirs stays alive for the rows after them.
 */
import { readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseSession } from "../src/core/session/index.js";
import { SessionLibrary } from "../src/node/library.js";
import { computeOwnership, loadStore, ownCost, realFs, type StoreFs } from "../src/node/store/index.js";
import { indexTouches } from "../src/node/touches.js";
import { familiesRow } from "./families.js";
import { mb, medianAsync, ms, type Row } from "./row.js";

/** A StoreFs that counts the bytes it reads. */
function countingFs(): StoreFs & { bytesRead: number; filesRead: number } {
  const fs = {
    ...realFs,
    bytesRead: 0,
    filesRead: 0,
    readSession: async (file: string) => {
      const r = await realFs.readSession(file);
      fs.bytesRead += statSync(file).size;
      fs.filesRead++;
      return r;
    },
    readEnds: (file: string, length: number) => {
      const r = realFs.readEnds(file, length);
      if (r.ends) fs.bytesRead += r.ends.head.length + r.ends.tail.length;
      return r;
    },
  };
  return fs;
}

export async function listingRows(storeDir: string, storeFiles: string[], storeBytes: number): Promise<Row[]> {
  const rows: Row[] = [];
  // 2. Cold listing. The store's files are read once first: the page cache is warm, as for the baseline.
  for (const f of storeFiles) readFileSync(f);
  const cacheFile = join(tmpdir(), `pi-bench-cache-${process.pid}.json`);
  const roots = [{ dir: join(storeDir, "sessions"), agent: "pi" as const, source: "bench" }];
  // The first level of the tree: names, cwd, dates, size, fork parent (each file's first and last 4 KB). The median
  // of five listings, each with no metadata cache (the files themselves are in the page cache, as for the baseline),
  // after one untimed (as for the baseline, whose first run warms the JIT too); the process's first is a row too.
  rmSync(cacheFile, { force: true });
  let t0 = performance.now();
  await loadStore({ roots, cacheFile, probe: true });
  const firstColdMs = performance.now() - t0;
  let coldFs = countingFs();
  let cold!: Awaited<ReturnType<typeof loadStore>>;
  const coldMs = await medianAsync(
    async () => {
      cold = await loadStore({ roots, cacheFile, fs: coldFs, probe: true });
    },
    5,
    () => {
      rmSync(cacheFile, { force: true });
      coldFs = countingFs();
    },
  );
  const coldBytes = coldFs.bytesRead;
  t0 = performance.now();
  await cold.complete();
  const completeMs = performance.now() - t0;
  const fullAll = await medianAsync(async () => {
    for (const f of storeFiles) parseSession(f, readFileSync(f), { validate: false });
  }, 3);
  rows.push({
    n: 2,
    measure: `cold listing (first level), ${cold.sessions.length} sessions, ${mb(storeBytes)} MB`,
    value: `${mb(coldBytes)} MB read`,
    baseline: `${mb(storeBytes)} MB in the store`,
    ratio: `${((coldBytes / storeBytes) * 100).toFixed(1)}%`,
    goal: "≤ 5% of the bytes",
    met: coldBytes / storeBytes <= 0.05,
  });
  rows.push({
    n: 2,
    measure: "…time",
    value: `${ms(coldMs)} ms`,
    baseline: `full parse of every file ${ms(fullAll)} ms`,
    ratio: `${(fullAll / coldMs).toFixed(2)}× faster`,
    goal: "≥ 10× faster",
    met: fullAll / coldMs >= 10,
  });
  rows.push({
    n: 2,
    measure: "…the process's first listing (the JIT cold: what an editor's first start pays)",
    value: `${ms(firstColdMs)} ms`,
    baseline: `full parse of every file ${ms(fullAll)} ms`,
    ratio: `${(fullAll / firstColdMs).toFixed(2)}× faster`,
    goal: "",
    met: null,
  });
  rows.push({
    n: 2,
    measure: "…then the background pass (cost, counts, ownership)",
    value: `${ms(completeMs)} ms`,
    baseline: "",
    ratio: "",
    goal: "",
    met: null,
  });

  // 3. Warm listing.
  let warmFs = countingFs();
  let warm!: Awaited<ReturnType<typeof loadStore>>;
  const warmMs = await medianAsync(
    async () => {
      warm = await loadStore({ roots, cacheFile, fs: warmFs });
    },
    3,
    () => (warmFs = countingFs()),
  );
  rows.push({
    n: 3,
    measure: `warm listing (cache), ${warm.sessions.length} sessions`,
    value: `${warmFs.filesRead} files read, ${ms(warmMs)} ms`,
    baseline: `cold ${ms(coldMs)} ms`,
    ratio: `${((warmMs / coldMs) * 100).toFixed(1)}%`,
    goal: "0 files, ≤ 5% of cold",
    met: warmFs.filesRead === 0 && warmMs / coldMs <= 0.05,
  });
  t0 = performance.now();
  computeOwnership(warm.sessions);
  let costs = 0;
  for (const s of warm.sessions) costs += ownCost(s);
  const ownMs = performance.now() - t0;
  rows.push({
    n: 3,
    measure: "…then fork ownership and every session's own cost (details of forks and their parents decoded)",
    value: `${ms(ownMs)} ms ($${costs.toFixed(2)})`,
    baseline: `full cold listing ${ms(coldMs + completeMs)} ms`,
    ratio: `${(((warmMs + ownMs) / (coldMs + completeMs)) * 100).toFixed(1)}%`,
    goal: "",
    met: null,
  });
  // 18. IDE insight (issue #18): the file history is built from the cached listing (every session's touches
  // decoded, paths resolved); the cache carries the touches, so its size is a row too.
  const cacheBytes = statSync(cacheFile).size;
  const rssBefore = process.memoryUsage().rss;
  t0 = performance.now();
  const history = indexTouches(warm.sessions, { home: "/home/u" });
  const historyMs = performance.now() - t0;
  let touchCount = 0;
  for (const list of history.values()) touchCount += list.length;
  rows.push(
    {
      n: 18,
      measure: `file history: index of every touch (${touchCount} calls, ${history.size} files) from the warm listing`,
      value: `${ms(historyMs)} ms, RSS +${mb(process.memoryUsage().rss - rssBefore)} MB`,
      baseline: `warm listing ${ms(warmMs)} ms`,
      ratio: `${(historyMs / warmMs).toFixed(1)}×`,
      goal: "built once, off the typing path",
      met: null,
    },
    familiesRow(warm.sessions, warmMs),
    {
      n: 18,
      measure: "metadata cache size (with the touches)",
      value: `${mb(cacheBytes)} MB`,
      baseline: `store ${mb(storeBytes)} MB`,
      ratio: `${((cacheBytes / storeBytes) * 100).toFixed(1)}%`,
      goal: "",
      met: null,
    },
  );
  // 5 of issue #19: in the extension the listing is made once; later changes come from the watcher (row 4), and a
  // sweep behind it (every file stat'ed, every 5 minutes) catches events it lost. An unchanged store's sweep:
  const library = new SessionLibrary({ roots, cacheFile });
  await library.ensureLoaded();
  let swept = -1;
  const sweepMs = await medianAsync(async () => (swept = (await library.sweep()).changes.length), 5);
  rows.push({
    n: 3,
    measure: `…a sweep behind the watcher (every file stat'ed; ${swept} changes found, nothing read)`,
    value: `${ms(sweepMs)} ms`,
    baseline: `cold ${ms(coldMs)} ms`,
    ratio: `${((sweepMs / coldMs) * 100).toFixed(1)}%`,
    goal: "",
    met: null,
  });
  rmSync(cacheFile, { force: true });
  return rows;
}
