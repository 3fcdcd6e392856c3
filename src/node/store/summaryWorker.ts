/**
 * A worker thread of a parallel cold store read (node/store/parallel.ts; bundled as dist/summaryWorker.cjs): takes
 * the next file from the shared counter until none is left, and sends the summaries back in batches. Started with
 * `{ compare }`, it does one comparison of two branches instead (node/views/compareWork.ts): one bundle of the reader
 * for both, since the package's size is budgeted.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type CompareWork, doCompareWork } from "../views/compareWork.js";
import type { PackedSummary } from "../../core/summaryPack.js";
import { packSummary } from "./cache.js";
import { summarizeFileSync, type SummaryReply, type SummaryWork, taken } from "./summarizeFile.js";

const BATCH = 32;
/**
 * Details at least this long go as UTF-8 bytes in a buffer moved to the main thread: a string of tens of MB is
 * copied when the main thread receives it, holding an editor's event loop for 80–200 ms (issue #38).
 */
const BYTES_AT = 64 << 10;

/** A listing's packed details as the cache file's text, or for a long one as that text's bytes (moved, not copied). */
function asCacheText(r: PackedSummary, transfer: ArrayBuffer[]): PackedSummary {
  if (typeof r.detail !== "object") return r;
  if (r.detail instanceof Uint8Array) return moved(r, transfer);
  const text = JSON.stringify(r.detail);
  if (text.length < BYTES_AT) return { ...r, detail: text };
  const bytes = new TextEncoder().encode(text);
  transfer.push(bytes.buffer as ArrayBuffer);
  return { ...r, detail: bytes };
}

/** A long session's details, written as bytes as it streamed (core/leanSummary.ts), in either mode: moved. */
function moved(r: PackedSummary, transfer: ArrayBuffer[]): PackedSummary {
  if (r.detail instanceof Uint8Array) transfer.push(r.detail.buffer as ArrayBuffer);
  return r;
}

function run(work: SummaryWork): void {
  let batch: SummaryReply = [];
  let transfer: ArrayBuffer[] = [];
  const send = () => {
    parentPort!.postMessage(batch, transfer);
    batch = [];
    transfer = [];
  };
  for (const k of taken(work)) {
    const r = summarizeFileSync(work.files[k]!, work.mode);
    // A listing's summaries are cached: their details as the cache file's text, made here rather than on the thread
    // that saves the cache (a long session's are tens of MB of JSON). A usage report's are read at once: as objects,
    // which structured clone copies faster than JSON would write and read them.
    const asText = work.mode === "full";
    if (typeof r === "string") batch.push([k, r]);
    else {
      const packed = "packed" in r ? r : packSummary(r, false);
      if (!("packed" in packed)) batch.push([k, packed]);
      else batch.push([k, asText ? asCacheText(packed, transfer) : moved(packed, transfer)]);
    }
    if (batch.length >= BATCH || transfer.length) send();
  }
  if (batch.length) send();
  // A worker started ahead is kept alive by its port: done, it ends.
  parentPort!.close();
}

// Started with its work, or ahead of it (node/store/parallel.ts `EarlyWorkers`): then the work is sent.
const data = workerData as SummaryWork | { compare: CompareWork } | null | undefined;
if (data && "compare" in data) void doCompareWork(data.compare).then((answer) => parentPort!.postMessage(answer));
else if (data) run(data);
else parentPort!.once("message", run);
