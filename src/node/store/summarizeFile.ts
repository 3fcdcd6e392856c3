/**
 * One store file summarized synchronously, for the threads of a parallel cold read (node/store/parallel.ts): the
 * summary a single-threaded load makes of it, or why the file could not be read, as the load reports it.
 */
import { type SessionSummary, summarize } from "../../core/summary.js";
import { statSync } from "node:fs";
import { LeanSummarizer } from "../../core/leanSummary.js";
import { readSessionFileSync, streamSessionFileSync } from "../fileBodies.js";
import { streamSessionFile } from "../readSession.js";
import { ioReason } from "../ioReason.js";
import type { PackedSummary } from "../../core/summaryPack.js";

/**
 * `full`: what listings show and the cache keeps. `usage`: for a usage report read without the cache: the same
 * summary without the schema checks' findings (which only listings report) and without the file touches, its tool
 * results scanned rather than parsed (core/envelope.ts), so it must never be cached.
 */
export type SummaryMode = "full" | "usage";

/** What a thread is given: the files, largest first, and the shared counter of the next file to take. */
export interface SummaryWork {
  files: string[];
  mode: SummaryMode;
  next: SharedArrayBuffer;
}

/** A worker's answers: [index in `files`, packed summary or why the file could not be read]. */
export type SummaryReply = [index: number, summary: SessionSummary | PackedSummary | string][];

/**
 * Files at least this large are summarized as they stream past (core/leanSummary.ts): the same summary, without the
 * session's tree in memory (a 1.8 GB session's tree takes about 0.4 times its size; its lean summary a few percent).
 */
export const LEAN_BYTES = 32 * 1024 * 1024;

export function summarizeFileSync(
  file: string,
  mode: SummaryMode,
  leanBytes = LEAN_BYTES,
): SessionSummary | PackedSummary | string {
  try {
    const lean = statSync(file).size >= leanBytes ? leanSummaryFileSync(file, mode) : null;
    if (lean) return lean;
    const r = readSessionFileSync(file, mode === "full" ? {} : { validate: false, scan: true });
    // As the store's file access reports it (node/store/fs.ts throws the rejection's message).
    if (!r.ok && r.rejection.code === "unreadable") return ioReason(new Error(r.rejection.message));
    return summarize(r, { touches: mode === "full" });
  } catch (err) {
    // A body read back from a file that changed meanwhile (`SessionChangedError`): as the store reports it.
    return ioReason(err);
  }
}

/**
 * `summarizeFileSync` of a file streamed through a `LeanSummarizer` (no entry is kept), packed; null when the summary
 * cannot be packed (then the file is read whole).
 */
function leanSummaryFileSync(file: string, mode: SummaryMode): SessionSummary | PackedSummary | string | null {
  const lean = new LeanSummarizer({ touches: mode === "full" });
  const r = streamSessionFileSync(file, {
    ...(mode === "full" ? {} : { validate: false, scan: true }),
    onEntry: lean.add,
  });
  if (r.ok) return lean.finish(r);
  if (r.rejection.code === "unreadable") return ioReason(new Error(r.rejection.message));
  return summarize(r);
}

/**
 * `leanSummaryFileSync`, reading asynchronously (the event loop runs between chunks): a listing's full read of a long
 * file on the main thread. Null when the summary cannot be packed; throws when the file cannot be read.
 */
export async function leanSummaryFile(file: string): Promise<SessionSummary | PackedSummary | null> {
  const lean = new LeanSummarizer({ touches: true });
  const { streamed } = await streamSessionFile(file, { onEntry: lean.add }, {});
  if (streamed.ok) return lean.finish(streamed);
  if (streamed.rejection.code === "unreadable") throw new Error(streamed.rejection.message);
  return summarize(streamed);
}

/** The files of `work` this thread takes (their indexes), one after the other, from the counter the threads share. */
export function* taken(work: SummaryWork): Generator<number> {
  const next = new Int32Array(work.next);
  for (let k = Atomics.add(next, 0, 1); k < work.files.length; k = Atomics.add(next, 0, 1)) yield k;
}
