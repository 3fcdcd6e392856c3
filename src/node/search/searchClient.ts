/**
 * The extension host's side of the search worker: starts it, sends it the library's changes, and turns its answers
 * into promises. Plain Node (no `vscode`), so that tests drive it as the extension does.
 */
import { Worker } from "node:worker_threads";
import type { IndexTarget } from "./targets.js";
import type { FromWorker, SearchAnswer, SearchRequest, ToWorker, WorkerSetup } from "./workerProtocol.js";

export interface SearchClientEvents {
  onProgress?: (done: number, total: number) => void;
  onSynced?: (m: FromWorker & { type: "synced" }) => void;
  onFailed?: (message: string) => void;
  /** The worker stopped (it failed, or was stopped): this client answers no more. */
  onExit?: () => void;
}

/** How long the worker has to finish what it is writing and close the index before it is stopped. */
const CLOSE_WAIT_MS = 5_000;

export class SearchClient {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (a: SearchAnswer) => void; reject: (e: Error) => void }>();
  private exited: Error | null = null;

  /** `workerFile`: the bundled worker (dist/searchWorker.cjs). */
  constructor(workerFile: string, setup: WorkerSetup, events: SearchClientEvents = {}) {
    // Its old generation capped: indexing a long session streams it (indexStream.ts), and V8 would otherwise let the
    // heap grow with its garbage to a gigabyte. About 200 bytes per entry are live: 2 million entries fit.
    this.worker = new Worker(workerFile, {
      workerData: setup,
      resourceLimits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 512 },
    });
    this.worker.on("message", (m: FromWorker) => {
      if (m.type === "answer") {
        this.waiting.get(m.id)?.resolve(m.answer);
        this.waiting.delete(m.id);
      } else if (m.type === "progress") events.onProgress?.(m.done, m.total);
      else if (m.type === "synced") events.onSynced?.(m);
      else events.onFailed?.(m.message);
    });
    const fail = (err: Error) => {
      this.exited = err;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    this.worker.on("error", (err) => {
      events.onFailed?.(err.message);
      fail(err);
    });
    this.worker.on("exit", (code) => {
      fail(new Error(`the search worker stopped (exit code ${code})`));
      events.onExit?.();
    });
  }

  private send(m: ToWorker): void {
    if (this.exited) throw this.exited;
    this.worker.postMessage(m);
  }

  /** The whole listing (`removed` undefined), or the sessions that changed and the files that went away. */
  sync(targets: IndexTarget[], removed?: string[]): void {
    this.send({ type: "sync", targets, ...(removed ? { removed } : {}) });
  }

  query(request: SearchRequest): Promise<SearchAnswer> {
    const id = this.nextId++;
    return new Promise<SearchAnswer>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      try {
        this.send({ type: "query", id, ...request });
      } catch (err) {
        this.waiting.delete(id);
        reject(err as Error);
      }
    });
  }

  /** Ask the worker to close the index (its lock released) and stop; stopped anyway after a few seconds. */
  async dispose(): Promise<void> {
    if (this.exited) return;
    const stopped = new Promise<void>((resolve) => this.worker.once("exit", () => resolve()));
    this.worker.postMessage({ type: "close" } satisfies ToWorker);
    const timer = setTimeout(() => void this.worker.terminate(), CLOSE_WAIT_MS);
    await stopped;
    clearTimeout(timer);
  }
}
