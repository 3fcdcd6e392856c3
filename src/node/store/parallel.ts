/**
 * A cold store read on every core: the files to summarize are shared out between this thread and worker threads
 * (the bundled `summaryWorker`), each taking the next file from one shared counter, largest files first, so that the
 * threads finish together. Every thread summarizes a file exactly as a single-threaded load does (the same reader
 * over the same chunks, node/fileBodies.ts); summaries come back packed (node/store/cache.ts). A worker that fails or
 * cannot start leaves its files to this thread: the answer never depends on how many threads there were.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { SessionSummary } from "../../core/summary.js";
import { type PackedSummary, unpackSummary } from "./cache.js";
import { yieldToEventLoop } from "../readSession.js";
import { summarizeFileSync, type SummaryMode, type SummaryReply, type SummaryWork, taken } from "./summarizeFile.js";

export type { SummaryMode };

export interface ParallelOptions {
  /** The bundled worker (dist/summaryWorker.cjs); without one, this thread reads every file. */
  workerFile?: string;
  mode: SummaryMode;
  /**
   * Threads in all, this one included (default: `$PI_SESSIONS_THREADS`, else one per core, at most 4); 1 reads on
   * this thread alone.
   */
  threads?: number;
  /** Below this many bytes in all, no worker is started: its start would cost more than it saves (default 16 MB). */
  minBytes?: number;
  /**
   * False: only the workers read (a thread that must not block, such as an editor's), `threads` of them; this thread
   * reads only what no worker answered, through `readOnMain`. Default true.
   */
  mainReads?: boolean;
  /** How this thread reads a file no worker answered (default: synchronously, as a worker does). */
  readOnMain?: (file: string) => Promise<SummaryOutcome>;
  /** Stops the read: the workers are terminated, no more files are read, and the files not read are errors. */
  signal?: AbortSignal;
  /**
   * For a read the cache will not answer (the CLI with no cache): `loadStore` starts the workers while it lists the
   * store, as soon as the files found pass `minBytes` (`EarlyWorkers`), so that they have loaded when the files are
   * known.
   */
  startEarly?: boolean;
  /** Workers started ahead, used before any new one is started (the caller ends them when the read is over). */
  started?: StartedWorker[];
  /**
   * Each summary as it comes (`i` its file's place in `files`): a cache keeps it then, and writes its details out as
   * the read goes on (node/store/cacheSpill.ts); the outcome returned then carries no `packed`, so that nothing here
   * holds the details of every file until the read ends.
   */
  kept?: (i: number, outcome: SummaryRead) => void;
}

/** A summary worker started before its work is known, its end observed from its start. */
export interface StartedWorker {
  worker: Worker | null;
  ended: Promise<void>;
  used: boolean;
}

const WORKER_OPTIONS = {
  // A young generation of 8 MB instead of V8's default: 10–15% less peak memory for a cold read at the same speed
  // (bench/RESULTS.md, issue #21). An old generation of at most 384 MB: V8 lets it grow with garbage far past what a
  // worker holds (a long file's lean summary: about 200 B per entry, issue #38); a file that needs more ends the
  // worker, and the main thread reads it.
  resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 384 },
};

function startWorker(workerFile: string, workerData: SummaryWork | null): StartedWorker {
  let worker: Worker;
  try {
    worker = new Worker(workerFile, { workerData, ...WORKER_OPTIONS });
  } catch {
    return { worker: null, ended: Promise.resolve(), used: false };
  }
  const ended = new Promise<void>((resolve) => {
    worker.once("error", () => resolve());
    worker.once("exit", () => resolve());
  });
  return { worker, ended, used: false };
}

/**
 * The workers of a cold read started while the store is listed (`ParallelOptions.startEarly`): `found` is told the
 * size of each file found, and once they pass `minBytes` (no worker would start for less) one worker per core but
 * this thread's is started, as `summarizeInParallel` would; each waits for its work. `stop` ends them all, used or
 * not.
 */
export class EarlyWorkers {
  started: StartedWorker[] = [];
  #bytes = 0;
  #done = false;

  constructor(private readonly options: ParallelOptions) {}

  found(size: number): void {
    this.#bytes += size;
    if (this.#done || !this.options.workerFile || this.#bytes < (this.options.minBytes ?? MIN_PARALLEL_BYTES)) return;
    this.#done = true;
    const threads = this.options.threads ?? defaultThreads();
    this.started = Array.from({ length: Math.max(0, threads - 1) }, () => startWorker(this.options.workerFile!, null));
  }

  stop(): void {
    for (const s of this.started) void s.worker?.terminate();
  }
}

/** A file's summary (`packed`: as a worker packed it, for the cache), or why it could not be read. */
export type SummaryOutcome = SummaryRead | { error: string };
export type SummaryRead = { summary: SessionSummary; packed?: SessionSummary | PackedSummary };

const MIN_PARALLEL_BYTES = 16 * 1024 * 1024;
const MAX_THREADS = 4;

/** The threads to read with: `$PI_SESSIONS_THREADS` when it is a positive number, else one per core (at most 4). */
function defaultThreads(env: NodeJS.ProcessEnv = process.env): number {
  const set = Number(env.PI_SESSIONS_THREADS);
  if (Number.isInteger(set) && set >= 1) return Math.min(set, 64);
  return Math.max(1, Math.min(availableParallelism(), MAX_THREADS));
}

/**
 * The summaries of `files` (with their sizes, for the sharing out), in the order given. This thread's share is read
 * synchronously (see `mainReads`).
 */
export async function summarizeInParallel(
  files: readonly { file: string; size: number }[],
  options: ParallelOptions,
): Promise<SummaryOutcome[]> {
  const order = files.map((_, i) => i).sort((a, b) => files[b]!.size - files[a]!.size);
  const work: SummaryWork = {
    files: order.map((i) => files[i]!.file),
    mode: options.mode,
    next: new SharedArrayBuffer(4),
  };
  const outcomes: (SummaryOutcome | undefined)[] = new Array(files.length);
  const settle = (i: number, o: SummaryOutcome) => {
    if (!options.kept || !("summary" in o)) outcomes[i] = o;
    else {
      options.kept(i, o);
      outcomes[i] = { summary: o.summary };
    }
  };
  const take = (reply: SummaryReply) => {
    for (const [k, r] of reply)
      settle(order[k]!, typeof r === "string" ? { error: r } : { summary: unpackSummary(r), packed: r });
  };
  const totalBytes = files.reduce((n, f) => n + f.size, 0);
  const mainReads = options.mainReads !== false;
  const threads = options.threads ?? defaultThreads();
  const workers =
    options.workerFile && totalBytes >= (options.minBytes ?? MIN_PARALLEL_BYTES)
      ? Math.min(mainReads ? threads - 1 : threads, mainReads ? files.length - 1 : files.length)
      : 0;
  const finished: Promise<void>[] = [];
  const signal = options.signal;
  for (let w = 0; w < workers; w++) {
    const ahead = options.started?.find((s) => !s.used && s.worker);
    finished.push(runWorker(ahead ?? options.workerFile!, work, take, signal));
  }
  if (mainReads)
    await readOnThisThread(work, (k) => settle(order[k]!, outcomeOf(work.files[k]!, options.mode)), signal);
  await Promise.all(finished);
  // Files no worker answered: a failed worker had taken them, or none started.
  const readOnMain = options.readOnMain ?? ((file: string) => Promise.resolve(outcomeOf(file, options.mode)));
  for (let i = 0; i < files.length; i++)
    if (!outcomes[i])
      settle(i, signal?.aborted ? { error: "the read was cancelled" } : await readOnMain(files[i]!.file));
  return outcomes as SummaryOutcome[];
}

/**
 * This thread's share of `work`, the event loop let run every 50 ms: the workers' answers are taken (and their
 * details written out by a `kept`) while this thread reads, not all at its end.
 */
async function readOnThisThread(
  work: SummaryWork,
  read: (k: number) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  let since = performance.now();
  for (const k of taken(work)) {
    if (signal?.aborted) return;
    read(k);
    if (performance.now() - since < 50) continue;
    await yieldToEventLoop();
    since = performance.now();
  }
}

function outcomeOf(file: string, mode: SummaryMode): SummaryOutcome {
  const r = summarizeFileSync(file, mode);
  if (typeof r === "string") return { error: r };
  // A long file's summary comes packed (core/leanSummary.ts): its details are decoded when read.
  return "packed" in r ? { summary: unpackSummary(r), packed: r } : { summary: r };
}

/**
 * One worker over `work` (a worker started ahead, given its work now, or a new one): resolves when it has exited,
 * failed, could not start or was stopped (never rejects).
 */
async function runWorker(
  from: StartedWorker | string,
  work: SummaryWork,
  take: (reply: SummaryReply) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (signal?.aborted) return;
  const started = typeof from === "string" ? startWorker(from, work) : from;
  started.used = true;
  const worker = started.worker;
  if (!worker) return;
  worker.on("message", (reply: SummaryReply) => {
    if (!signal?.aborted) take(reply);
  });
  if (typeof from !== "string") worker.postMessage(work);
  const stop = () => void worker.terminate();
  signal?.addEventListener("abort", stop, { once: true });
  await started.ended;
  signal?.removeEventListener("abort", stop);
}
