/**
 * A worker thread of a parallel cold store read (node/store/parallel.ts; bundled as dist/summaryWorker.cjs): takes
 * the next file from the shared counter until none is left, and sends the summaries back in batches. Started with
 * `{ compare }`, it does one comparison of two branches instead (node/views/compareWork.ts): one bundle of the reader
 * for both, since the package's size is budgeted.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type CompareWork, doCompareWork } from "../views/compareWork.js";
import { packSummary } from "./cache.js";
import { eachTaken, summarizeFileSync, type SummaryReply, type SummaryWork } from "./summarizeFile.js";

const BATCH = 32;

function run(work: SummaryWork): void {
  let batch: SummaryReply = [];
  eachTaken(work, (k) => {
    const r = summarizeFileSync(work.files[k]!, work.mode);
    // A listing's summaries are cached: their details as the cache file's text, made here rather than on the thread
    // that saves the cache (a long session's are tens of MB of JSON). A usage report's are read at once: as objects,
    // which structured clone copies faster than JSON would write and read them.
    const asText = work.mode === "full";
    if (typeof r === "string") batch.push([k, r]);
    else if (!("packed" in r)) batch.push([k, packSummary(r, asText)]);
    else batch.push([k, asText && typeof r.detail === "object" ? { ...r, detail: JSON.stringify(r.detail) } : r]);
    if (batch.length >= BATCH) {
      parentPort!.postMessage(batch);
      batch = [];
    }
  });
  if (batch.length) parentPort!.postMessage(batch);
  // A worker started ahead is kept alive by its port: done, it ends.
  parentPort!.close();
}

// Started with its work, or ahead of it (node/store/parallel.ts `EarlyWorkers`): then the work is sent.
const data = workerData as SummaryWork | { compare: CompareWork } | null | undefined;
if (data && "compare" in data) void doCompareWork(data.compare).then((answer) => parentPort!.postMessage(answer));
else if (data) run(data);
else parentPort!.once("message", run);
