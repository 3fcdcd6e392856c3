/**
 * The session store: every session file under the configured roots, fork lineage, and fork-aware ownership of
 * entries (so usage is counted exactly once). `loadStore` lists them, from the metadata cache where it can, from a
 * probe of each file's ends for a first paint, and in full otherwise. This index is the store's public surface.
 */
import { probeSummary, type SessionSummary, type SessionSummaryOk, summarize } from "../../core/summary.js";
import type { SessionRoot } from "../roots.js";
import { MetadataCache } from "./cache.js";
import { type DiscoveredFile, discover } from "./discover.js";
import { realFs, slicer, type StoreFs } from "./fs.js";
import { linkLineage } from "./lineage.js";
import { EarlyWorkers, type ParallelOptions, summarizeInParallel, type SummaryOutcome } from "./parallel.js";
import { newStoreSession, type StoreSession } from "./storeSession.js";
import { ioReason } from "../ioReason.js";

export { cacheFileFor, forEachUsage, packSummary, unpackSummary } from "./cache.js";
export { type DiscoveredFile, discover, type Placement, placeFile } from "./discover.js";
export { FamilyIndex, firstOwnPrompt } from "./families.js";
export { realFs, type StoreFs } from "./fs.js";
export { belongsToWorkspace, computeOwnership, inWorkspace, linkLineage } from "./lineage.js";
export * from "./storeSession.js";

export interface StoreOptions {
  roots: SessionRoot[];
  /** Where the persistent metadata cache lives; null disables it. */
  cacheFile?: string | null;
  fs?: StoreFs;
  /**
   * First paint: files the cache does not know are summarized from their first and last few KB (`partial`), and
   * `Store.complete()` reads them in full later.
   */
  probe?: boolean;
  /**
   * Files read in full are read on every core (node/store/parallel.ts), through the real file system (not `fs`). In a
   * probing load (an editor's) only `complete()` does so, in worker threads only. Mode `usage` summaries are never
   * cached.
   */
  parallel?: ParallelOptions;
}

export interface Store {
  roots: SessionRoot[];
  sessions: StoreSession[];
  errors: { path: string; message: string }[];
  /** Session files read (parsed) by this load: 0 on a warm, unchanged store. */
  filesRead: number;
  /** Sessions summarized from their head and tail only (with `probe`). */
  partial: StoreSession[];
  /**
   * Read the partial sessions in full, update their summaries and the cache; returns how many were read. `signal`
   * stops a pass read in worker threads (a new load replaces this one): nothing is updated then.
   */
  complete(onEach?: (s: StoreSession) => void, signal?: AbortSignal): Promise<number>;
}

/** Bytes read from each end of a file for a first-paint summary. */
const PROBE_BYTES = 4096;

export async function loadStore(options: StoreOptions): Promise<Store> {
  const early = options.parallel?.startEarly && !options.probe ? new EarlyWorkers(options.parallel) : undefined;
  try {
    return await load(options, early);
  } finally {
    early?.stop(); // whether they were used or not, and on any error
  }
}

async function load(options: StoreOptions, early: EarlyWorkers | undefined): Promise<Store> {
  const fs = options.fs ?? realFs;
  const cache = await MetadataCache.load(options.cacheFile ?? null);
  // A probing listing opens each file its cache does not know once, while listing: the handle's stat stands in for a
  // stat of the path, and the file's ends are probed at once (their summary, or null for a full read).
  const probedEarly = new Map<string, SessionSummaryOk | null>();
  /** One open of the file: its stat, and its first-paint summary (null: read it in full; undefined: no ends). */
  const probeEnds = (file: string) => {
    const { stat, ends } = fs.readEnds(file, PROBE_BYTES);
    return { stat, probed: ends ? probeSummary(file, ends.head, ends.tail, stat.size) : undefined };
  };
  const openAndProbe = (file: string) => {
    if (cache.has(file)) return fs.stat(file);
    const { stat, probed } = probeEnds(file);
    if (probed !== undefined) probedEarly.set(file, probed);
    return stat;
  };
  const { files, errors } = await discover(
    options.roots,
    fs,
    early && ((f) => early.found(f.size)),
    options.probe ? openAndProbe : undefined,
  );
  let filesRead = 0;
  const sessions: StoreSession[] = [];
  const partial: StoreSession[] = [];
  const stats = new Map<StoreSession, DiscoveredFile>();
  const readFull = async (f: DiscoveredFile) => {
    const summary = summarize(await fs.readSession(f.file));
    cache.set(f.file, f.size, f.mtimeNs, summary);
    return summary;
  };
  /** A parallel read's answer for `f`: its summary (cached unless usage-only), or null with the error listed. */
  const keep = (f: DiscoveredFile, o: SummaryOutcome, cached: boolean): SessionSummary | null => {
    if ("error" in o) {
      errors.push({ path: f.file, message: o.error });
      return null;
    }
    if (cached) cache.set(f.file, f.size, f.mtimeNs, o.summary, o.packed);
    return o.summary;
  };
  // Each file's summary: from the cache, a probe of its ends, or a full read; null when it could not be read.
  // Cache hits and probes are done in place (in slices); full reads a few files at a time, asynchronously.
  const results: ({ summary: SessionSummary; partial: boolean } | null)[] = new Array(files.length).fill(null);
  const fullReads: number[] = [];
  const tick = slicer(64);
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    const cached = cache.get(f.file, f.size, f.mtimeNs);
    if (cached) {
      results[i] = { summary: cached, partial: false };
      continue;
    }
    if (options.probe && f.size > 2 * PROBE_BYTES) {
      try {
        let probed = probedEarly.get(f.file);
        if (probed === undefined) {
          // A file the cache knew, changed since: head and tail through one open of the file.
          probed = probeEnds(f.file).probed ?? null;
          await tick();
        }
        if (probed) {
          results[i] = { summary: probed, partial: true };
          continue;
        }
      } catch (err) {
        errors.push({ path: f.file, message: ioReason(err) });
        continue;
      }
    }
    fullReads.push(i);
  }
  // A first paint (probe) waits for no worker: its few full reads are small files.
  if (options.parallel && !options.probe && fullReads.length) {
    const outcomes = await summarizeInParallel(
      fullReads.map((k) => files[k]!),
      { ...options.parallel, started: early?.started ?? options.parallel.started },
    );
    for (const [j, o] of outcomes.entries()) {
      filesRead++;
      // A usage-only summary lacks what listings show: it is never cached.
      const summary = keep(files[fullReads[j]!]!, o, options.parallel.mode === "full");
      if (summary) results[fullReads[j]!] = { summary, partial: false };
    }
    fullReads.length = 0;
  }
  for (let i = 0; i < fullReads.length; i += 4) {
    await Promise.all(
      fullReads.slice(i, i + 4).map(async (k) => {
        const f = files[k]!;
        try {
          filesRead++;
          results[k] = { summary: await readFull(f), partial: false };
        } catch (err) {
          errors.push({ path: f.file, message: ioReason(err) });
        }
      }),
    );
  }
  results.forEach((r, i) => {
    if (!r) return;
    const s = newStoreSession(files[i]!, r.summary);
    sessions.push(s);
    if (r.partial) {
      partial.push(s);
      stats.set(s, files[i]!);
    }
  });
  cache.retain(new Set(files.map((f) => f.file)));
  if (cache.refusal) errors.push({ path: options.cacheFile ?? "", message: cache.refusal });
  const save = async () => {
    try {
      await cache.save();
    } catch (err) {
      errors.push({ path: options.cacheFile ?? "", message: `cache not saved: ${ioReason(err)}` });
    }
  };
  await save();
  linkLineage(sessions, options.roots);
  const complete = async (onEach?: (s: StoreSession) => void, signal?: AbortSignal) => {
    let read = 0;
    if (options.parallel) read = await completeInParallel(partial.splice(0), onEach, signal);
    for (const s of partial.splice(0)) {
      try {
        s.summary = await readFull(stats.get(s)!);
        read++;
        onEach?.(s);
      } catch (err) {
        errors.push({ path: s.file, message: ioReason(err) });
      }
    }
    await save();
    linkLineage(sessions, options.roots);
    return read;
  };
  /** The probed sessions read in full by worker threads only: this thread (an editor's) never blocks on them. */
  const completeInParallel = async (
    probed: StoreSession[],
    onEach: ((s: StoreSession) => void) | undefined,
    signal: AbortSignal | undefined,
  ) => {
    const readOnMain = (file: string): Promise<SummaryOutcome> =>
      fs.readSession(file).then(
        (r) => ({ summary: summarize(r) }),
        (err: unknown) => ({ error: ioReason(err) }),
      );
    const outcomes = await summarizeInParallel(
      probed.map((s) => stats.get(s)!),
      { ...options.parallel!, mode: "full", mainReads: false, readOnMain, ...(signal ? { signal } : {}) },
    );
    if (signal?.aborted) return 0;
    let read = 0;
    for (const [j, o] of outcomes.entries()) {
      const s = probed[j]!;
      const summary = keep(stats.get(s)!, o, true);
      if (!summary) continue;
      s.summary = summary;
      read++;
      onEach?.(s);
    }
    return read;
  };
  return { roots: options.roots, sessions, errors, filesRead, partial, complete };
}
