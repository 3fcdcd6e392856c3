/**
 * A worker thread of a parallel cold store read (node/store/parallel.ts; bundled as dist/summaryWorker.cjs): takes
 * the next file from the shared counter until none is left, and sends the summaries back in batches.
 */
import { parentPort, workerData } from "node:worker_threads";
import { packSummary } from "./cache.js";
import { eachTaken, summarizeFileSync, type SummaryReply, type SummaryWork } from "./summarizeFile.js";

const BATCH = 32;

function run(work: SummaryWork): void {
  let batch: SummaryReply = [];
  eachTaken(work, (k) => {
    const r = summarizeFileSync(work.files[k]!, work.mode);
    // Packed with its details as an object: structured clone copies them faster than JSON would.
    batch.push([k, typeof r === "string" ? r : packSummary(r, false)]);
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
if (workerData) run(workerData as SummaryWork);
else parentPort!.once("message", run);
