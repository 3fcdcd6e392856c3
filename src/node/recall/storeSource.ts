/**
 * The recall tools' source outside VS Code (`pi-sessions mcp`): the live library over the agent dirs (the metadata
 * cache, then every file's changes as a stat of the roots finds them before each call) and the shared search index
 * in a worker thread, told of every change. A search waits for the index to take in what changed before it, up to a
 * moment; past that (a first build of a large store) it answers from what is indexed and says the answer is partial.
 */
import { SessionLibrary } from "../library.js";
import type { SessionRoot } from "../roots.js";
import { indexTargets, SearchClient } from "../search/index.js";
import { cacheFileFor, type StoreSession } from "../store/index.js";
import type { ParseResult } from "../../core/session/index.js";
import { RecallModels } from "./models.js";
import type { RecallSearchAnswer, RecallSource } from "./source.js";

export interface StoreSourceOptions {
  roots: SessionRoot[];
  /** The metadata cache and the search index live here. */
  cacheDir: string;
  /** False: no metadata cache (every file read). */
  useCache: boolean;
  /** The search worker's module (dist/searchWorker.cjs, or its source when run from it). */
  searchWorker: string;
  /** The summary worker for cold reads (dist/summaryWorker.cjs); without it, this thread reads. */
  summaryWorker?: string;
  /** The caller's workspace folders (`--workspace`, else the MCP client's roots). */
  workspace: () => Promise<string[]>;
  onLog?: (message: string) => void;
  /** How long a search waits for the index to take in what changed (default `SYNC_WAIT_MS`). */
  indexWaitMs?: number;
}

/** How long a search waits for the index to take in the changes before it; then it answers from what is there. */
const SYNC_WAIT_MS = 3_000;

export class StoreSource implements RecallSource {
  private readonly library: SessionLibrary;
  private client: SearchClient | null = null;
  private syncsSent = 0;
  private syncsDone = 0;
  private syncWaiters: (() => void)[] = [];
  private refreshing: Promise<void> | null = null;
  private readonly models = new RecallModels(() => this.library);

  constructor(private readonly options: StoreSourceOptions) {
    this.library = new SessionLibrary({
      roots: options.roots,
      cacheFile: options.useCache ? cacheFileFor(options.cacheDir, options.roots) : null,
      ...(options.summaryWorker ? { summaryWorker: options.summaryWorker } : {}),
    });
  }

  rootDirs(): string[] {
    return this.options.roots.map((r) => r.dir);
  }

  workspace(): Promise<string[]> {
    return this.options.workspace();
  }

  /** The listing as of now: every file stat'ed, what changed read and sent to the index. Calls at once share one. */
  async sessions(): Promise<readonly StoreSession[]> {
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = null;
    });
    await this.refreshing;
    return this.library.sessions;
  }

  private async refresh(): Promise<void> {
    await this.library.whenComplete();
    const set = await this.library.sweep();
    if (!this.client || !set.changes.length) return;
    if (set.structural) this.sync(this.library.sessions);
    else {
      const changed = set.changes.filter((c) => c.kind !== "removed").map((c) => this.library.get(c.file));
      const removed = set.changes.filter((c) => c.kind === "removed").map((c) => c.file);
      this.sync(
        changed.filter((s) => s !== undefined),
        removed,
      );
    }
  }

  private sync(sessions: StoreSession[], removed?: string[]): void {
    this.syncsSent++;
    this.client!.sync(indexTargets(sessions), removed);
  }

  private synced(): void {
    this.syncsDone++;
    if (this.syncsDone < this.syncsSent) return;
    for (const w of this.syncWaiters.splice(0)) w();
  }

  /** The index worker, started on the first search with the whole listing. */
  private searchClient(): SearchClient {
    if (this.client) return this.client;
    const client = new SearchClient(
      this.options.searchWorker,
      { cacheDir: this.options.cacheDir, roots: this.rootDirs(), variant: "" },
      {
        onSynced: (m) => {
          if (m.result.indexed || m.result.removed)
            this.options.onLog?.(
              `search index: ${m.result.indexed} sessions indexed, ${m.result.removed} removed in ${m.ms} ms`,
            );
          this.synced();
        },
        onFailed: (message) => {
          this.options.onLog?.(`search index: ${message}`);
          this.synced();
        },
        onExit: () => {
          if (this.client !== client) return;
          // Started again by the next search (the index on disk keeps what was done).
          this.client = null;
          this.syncsDone = this.syncsSent;
          for (const w of this.syncWaiters.splice(0)) w();
        },
      },
    );
    this.client = client;
    this.sync(this.library.sessions);
    return client;
  }

  /** Resolves when the index has taken in every change sent so far, or after `ms` (false then). */
  private waitForIndex(ms: number): Promise<boolean> {
    if (this.syncsDone >= this.syncsSent) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.syncWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /** A query, after the changes the last `sessions()` found (the tools list the store first) reach the index. */
  async search(text: string, limit: number, files: string[] | null): Promise<RecallSearchAnswer> {
    await this.library.whenComplete();
    const client = this.searchClient();
    const caughtUp = await this.waitForIndex(this.options.indexWaitMs ?? SYNC_WAIT_MS);
    const answer = await client.query({ text, limit, files, roles: null });
    return { answer, partial: !caughtUp || answer.state.pending > 0 };
  }

  open(session: StoreSession): Promise<ParseResult> {
    return this.models.open(session);
  }

  async dispose(): Promise<void> {
    this.library.dispose();
    await this.client?.dispose();
    this.client = null;
  }
}
