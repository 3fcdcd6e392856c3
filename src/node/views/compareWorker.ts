/**
 * The worker thread of Compare Branches (src/node/views/compareWork.ts; bundled as dist/compareWorker.cjs): does its
 * one piece of work and answers.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type CompareWork, doCompareWork } from "./compareWork.js";

void doCompareWork(workerData as CompareWork).then((answer) => parentPort!.postMessage(answer));
