/**
 * One listing of the store (`loadStore`): discovery, then each file's summary from the metadata cache, a probe of its
 * ends for a first paint, or a full read (on every core when `parallel` is set); lineage is linked once all are in,
 * and `complete()` reads the probed files in full later.
 */
import { probeSummary, type SessionSummary, type SessionSummaryOk, summarize } from "../../core/summary.js";
import type { SessionRoot } from "../roots.js";
import { MetadataCache, unpackSummary } from "./cache.js";
import { LEAN_BYTES, leanSummaryFile } from "./summarizeFile.js";
import { type DiscoveredFile, discover } from "./discover.js";
import { realFs, slicer, type StoreFs } from "./fs.js";
import { attachOmpHistory } from "../ompHistory.js";
import { linkLineage } from "./lineage.js";
import {
  EarlyWorkers,
  type ParallelOptions,
  summarizeInParallel,
  type SummaryOutcome,
  type SummaryRead,
} from "./parallel.js";
import { newStoreSession, type StoreSession } from "./storeSession.js";
import { ioReason } from "../ioReason.js";
import { yieldToEventLoop } from "../readSession.js";

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
  /**
   * Name Oh My Pi sessions from OMP's `history.db` (titles, recaps; node/ompHistory.ts): for listings that show them.
   * It copies a database that also holds OMP's prompt history, so a usage report leaves it.
   */
  ompHistory?: boolean;
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
   * Read the partial sessions in full, update their summaries and the cache, and link their lineage again (unless
   * `link` is false: a caller that links them itself, in its own turn of the event loop); returns how many were read.
   * `signal` stops a pass read in worker threads (a new load replaces this one): nothing is updated then.
   */
  complete(onEach?: (s: StoreSession) => void, signal?: AbortSignal, link?: boolean): Promise<number>;
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

/** A summary found for one discovered file, or null when it could not be read. */
type Found = { summary: SessionSummary; partial: boolean } | null;

/** The state of one listing: what was found, read and failed, shared by its steps. */
class StoreLoad {
  readonly fs: StoreFs;
  readonly errors: { path: string; message: string }[] = [];
  readonly sessions: StoreSession[] = [];
  readonly partial: StoreSession[] = [];
  /** A partial session's file as discovered (its full read later needs its size and mtime). */
  readonly stats = new Map<StoreSession, DiscoveredFile>();
  /** Summaries probed while discovery opened each file the cache does not know. */
  readonly probedEarly = new Map<string, SessionSummaryOk | null>();
  filesRead = 0;

  constructor(
    readonly options: StoreOptions,
    readonly cache: MetadataCache,
    readonly early: EarlyWorkers | undefined,
  ) {
    this.fs = options.fs ?? realFs;
  }

  /** One open of the file: its stat, and its first-paint summary (null: read it in full; undefined: no ends). */
  probeEnds(file: string) {
    const { stat, ends } = this.fs.readEnds(file, PROBE_BYTES);
    return { stat, probed: ends ? probeSummary(file, ends.head, ends.tail, stat.size) : undefined };
  }

  /**
   * The files under the roots. A probing listing opens each file its cache does not know once, while listing: the
   * handle's stat stands in for a stat of the path, and the file's ends are probed at once.
   */
  async discoverFiles(): Promise<DiscoveredFile[]> {
    const openAndProbe = (file: string) => {
      if (this.cache.has(file)) return this.fs.stat(file);
      const { stat, probed } = this.probeEnds(file);
      if (probed !== undefined) this.probedEarly.set(file, probed);
      return stat;
    };
    const early = this.early;
    const { files, errors } = await discover(
      this.options.roots,
      this.fs,
      early && ((f) => early.found(f.size)),
      this.options.probe ? openAndProbe : undefined,
    );
    this.errors.push(...errors);
    return files;
  }

  async readFull(f: DiscoveredFile): Promise<SessionSummary> {
    // A long file is summarized as it streams past (only through the real file system, which it reads itself).
    const lean = f.size >= LEAN_BYTES && this.fs === realFs ? await leanSummaryFile(f.file) : null;
    if (lean && "packed" in lean) {
      const summary = unpackSummary(lean);
      this.cache.set(f.file, f.size, f.mtimeNs, summary, lean);
      return summary;
    }
    const summary = lean ?? summarize(await this.fs.readSession(f.file));
    this.cache.set(f.file, f.size, f.mtimeNs, summary);
    return summary;
  }

  /** A parallel read's summary of `f` kept in the cache as it comes (its details written out as the read goes on). */
  cacheOutcome(f: DiscoveredFile, o: SummaryRead): void {
    this.cache.set(f.file, f.size, f.mtimeNs, o.summary, o.packed);
  }

  /** A parallel read's answer for `f` (kept in the cache as it came): its summary, or null with the error listed. */
  keep(f: DiscoveredFile, o: SummaryOutcome): SessionSummary | null {
    if ("error" in o) {
      this.errors.push({ path: f.file, message: o.error });
      return null;
    }
    return o.summary;
  }

  /**
   * Each file's summary from the cache or a probe of its ends, in place (in slices); the indexes of the files that
   * need a full read are returned.
   */
  async fromCacheAndProbes(files: DiscoveredFile[], results: Found[]): Promise<number[]> {
    const fullReads: number[] = [];
    const tick = slicer(64);
    for (let i = 0; i < files.length; i++) {
      const f = files[i]!;
      const cached = this.cache.get(f.file, f.size, f.mtimeNs);
      if (cached) {
        results[i] = { summary: cached, partial: false };
        continue;
      }
      if (this.options.probe && f.size > 2 * PROBE_BYTES) {
        try {
          let probed = this.probedEarly.get(f.file);
          if (probed === undefined) {
            // A file the cache knew, changed since: head and tail through one open of the file.
            probed = this.probeEnds(f.file).probed ?? null;
            await tick();
          }
          if (probed) {
            results[i] = { summary: probed, partial: true };
            continue;
          }
        } catch (err) {
          this.errors.push({ path: f.file, message: ioReason(err) });
          continue;
        }
      }
      fullReads.push(i);
    }
    return fullReads;
  }

  /** The full reads: on every core when parallel (a first paint waits for no worker), else a few at a time here. */
  async readInFull(files: DiscoveredFile[], fullReads: number[], results: Found[]): Promise<void> {
    const parallel = this.options.parallel;
    if (parallel && !this.options.probe && fullReads.length) {
      // A usage-only summary lacks what listings show: it is never cached.
      const cached = parallel.mode === "full";
      const outcomes = await summarizeInParallel(
        fullReads.map((k) => files[k]!),
        {
          ...parallel,
          started: this.early?.started ?? parallel.started,
          ...(cached ? { kept: (j, o) => this.cacheOutcome(files[fullReads[j]!]!, o) } : {}),
        },
      );
      for (const [j, o] of outcomes.entries()) {
        this.filesRead++;
        const summary = this.keep(files[fullReads[j]!]!, o);
        if (summary) results[fullReads[j]!] = { summary, partial: false };
      }
      return;
    }
    for (let i = 0; i < fullReads.length; i += 4) {
      await Promise.all(
        fullReads.slice(i, i + 4).map(async (k) => {
          const f = files[k]!;
          try {
            this.filesRead++;
            results[k] = { summary: await this.readFull(f), partial: false };
          } catch (err) {
            this.errors.push({ path: f.file, message: ioReason(err) });
          }
        }),
      );
    }
  }

  async save(): Promise<void> {
    try {
      await this.cache.save();
    } catch (err) {
      this.errors.push({ path: this.options.cacheFile ?? "", message: `cache not saved: ${ioReason(err)}` });
    }
  }

  /** Read the partial sessions in full (`Store.complete`). */
  async complete(onEach?: (s: StoreSession) => void, signal?: AbortSignal, link = true): Promise<number> {
    let read = 0;
    if (this.options.parallel) read = await this.completeInParallel(this.partial.splice(0), onEach, signal);
    for (const s of this.partial.splice(0)) {
      try {
        s.summary = await this.readFull(this.stats.get(s)!);
        read++;
        onEach?.(s);
      } catch (err) {
        this.errors.push({ path: s.file, message: ioReason(err) });
      }
    }
    await this.save();
    // A stopped pass is linked here too: its caller, replaced, will not.
    if (link || signal?.aborted) linkLineage(this.sessions, this.options.roots);
    return read;
  }

  /** The probed sessions read in full by worker threads only: this thread (an editor's) never blocks on them. */
  async completeInParallel(
    probed: StoreSession[],
    onEach: ((s: StoreSession) => void) | undefined,
    signal: AbortSignal | undefined,
  ): Promise<number> {
    const readOnMain = (file: string): Promise<SummaryOutcome> =>
      this.fs.readSession(file).then(
        (r) => ({ summary: summarize(r) }),
        (err: unknown) => ({ error: ioReason(err) }),
      );
    const outcomes = await summarizeInParallel(
      probed.map((s) => this.stats.get(s)!),
      {
        ...this.options.parallel!,
        mode: "full",
        mainReads: false,
        readOnMain,
        kept: (j, o) => this.cacheOutcome(this.stats.get(probed[j]!)!, o),
        ...(signal ? { signal } : {}),
      },
    );
    if (signal?.aborted) return 0;
    let read = 0;
    // Kept in slices (8,000 summaries into the cache at once held an editor's event loop for 30 ms).
    const tick = slicer(1000);
    for (const [j, o] of outcomes.entries()) {
      const s = probed[j]!;
      const summary = this.keep(this.stats.get(s)!, o);
      if (summary) {
        s.summary = summary;
        read++;
        onEach?.(s);
      }
      await tick();
    }
    return read;
  }
}

async function load(options: StoreOptions, early: EarlyWorkers | undefined): Promise<Store> {
  const run = new StoreLoad(options, await MetadataCache.load(options.cacheFile ?? null), early);
  const files = await run.discoverFiles();
  // Each file's summary: from the cache, a probe of its ends, or a full read; null when it could not be read.
  const results: Found[] = new Array(files.length).fill(null);
  await run.readInFull(files, await run.fromCacheAndProbes(files, results), results);
  results.forEach((r, i) => {
    if (!r) return;
    const s = newStoreSession(files[i]!, r.summary);
    run.sessions.push(s);
    if (r.partial) {
      run.partial.push(s);
      run.stats.set(s, files[i]!);
    }
  });
  run.cache.retain(new Set(files.map((f) => f.file)));
  if (run.cache.refusal) run.errors.push({ path: options.cacheFile ?? "", message: run.cache.refusal });
  await run.save();
  // A turn of the event loop between the listing and its lineage (an editor's loop is not held for both).
  await yieldToEventLoop();
  linkLineage(run.sessions, options.roots);
  // Oh My Pi keeps titles (and recaps) of its sessions outside their files.
  if (options.ompHistory) await attachOmpHistory(run.sessions);
  return {
    roots: options.roots,
    sessions: run.sessions,
    errors: run.errors,
    filesRead: run.filesRead,
    partial: run.partial,
    complete: (onEach, signal, link) => run.complete(onEach, signal, link),
  };
}
