/**
 * Search for the extension: the index lives in a worker thread (src/node/search/searchWorker.ts), started on the
 * first search, or as soon as the library is listed when an index of these roots already exists (it is then only
 * brought up to date). The library's changes are sent to it as they come, so the index stays current while agents
 * write; while it indexes, the window's progress says so.
 */
import { existsSync } from "node:fs";
import * as vscode from "vscode";
import { cacheDir } from "../../node/cacheDir.js";
import type { ChangeSet, SessionLibrary } from "../../node/library.js";
import { SearchClient } from "../../node/search/index.js";
import { indexFileFor } from "../../node/search/index.js";
import { indexTargets } from "../../node/search/index.js";
import type { IndexState, SearchAnswer, SearchRequest } from "../../node/search/index.js";
import type { Logger } from "../logging.js";
import type { SessionService } from "../service.js";
import { prefixSuggestion } from "../../core/search/query.js";

export class SearchService implements vscode.Disposable {
  private client: SearchClient | null = null;
  /** The library the worker indexes (a reconfiguration makes a new one, and a new worker). */
  private indexed: SessionLibrary | null = null;
  /** The whole listing was sent: changes can follow one by one. */
  private listed = false;
  private progress: { report: (done: number, total: number) => void; end: () => void } | null = null;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly indexedEmitter = new vscode.EventEmitter<IndexState>();
  /** Fires when the worker has taken in a change (tests wait on it; open result lists may search again). */
  readonly onDidIndex = this.indexedEmitter.event;
  /** What the index held after its last update. */
  state: IndexState | null = null;
  /** The whole listing is being indexed for the first time in this window. */
  building = false;
  /** The last answer (what the quick pick shows; tests wait on it). */
  lastAnswer: SearchAnswer | null = null;

  constructor(
    private readonly service: SessionService,
    private readonly workerFile: string,
    private readonly logger: Logger,
  ) {
    this.disposables.push(
      this.indexedEmitter,
      service.onDidStart(() => {
        if (this.client && this.indexed !== service.lib) this.stop();
        if (!this.client && existsSync(this.indexFile())) this.start();
      }),
      service.onDidChange((set) => this.onChange(set)),
    );
  }

  private variant(): string {
    const { pi, omp } = this.service.included;
    return pi && omp ? "" : `pi=${pi},omp=${omp}`;
  }

  private indexFile(): string {
    return indexFileFor(cacheDir(), this.service.roots, this.variant());
  }

  /** Start the worker for the current library, and send it the whole listing once the library is complete. */
  private start(): SearchClient {
    const library = this.service.lib;
    const client = new SearchClient(
      this.workerFile,
      { cacheDir: cacheDir(), roots: library.roots.map((r) => r.dir), variant: this.variant() },
      {
        onProgress: (done, total) => this.onProgress(done, total),
        onSynced: (m) => {
          this.state = m.state;
          this.building = false;
          this.progress?.end();
          this.progress = null;
          if (m.result.indexed || m.result.removed)
            this.logger.info(
              `search index: ${m.result.indexed} sessions indexed (${m.result.appended} from their appended bytes), ` +
                `${m.result.removed} removed in ${m.ms} ms; ${m.state.sessions} sessions, ${m.state.entries} entries`,
            );
          this.indexedEmitter.fire(m.state);
        },
        onFailed: (message) => {
          this.logger.warn(`search index: ${message}`);
          this.building = false;
          this.progress?.end();
          this.progress = null;
        },
        // A worker that stopped (out of memory, a crash) is started again by the next search.
        onExit: () => {
          if (this.client !== client) return;
          this.client = null;
          this.indexed = null;
          this.building = false;
          this.progress?.end();
          this.progress = null;
        },
      },
    );
    this.client = client;
    this.indexed = library;
    this.listed = false;
    this.building = true;
    void library
      .whenComplete()
      .then(() => {
        if (this.client !== client) return;
        client.sync(indexTargets(library.sessions));
        this.listed = true;
      })
      .catch((err: unknown) => this.logger.error("search index: listing the sessions failed", err));
    return client;
  }

  private stop(): void {
    void this.client?.dispose();
    this.client = null;
    this.indexed = null;
    this.progress?.end();
    this.progress = null;
  }

  private onProgress(done: number, total: number): void {
    if (!this.progress) {
      // The task may run later than withProgress returns: it takes what happened before it ran.
      const shown: { message: string; ended: boolean; resolve?: () => void; report?: (message: string) => void } = {
        message: "",
        ended: false,
      };
      void vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: vscode.l10n.t("Indexing Pi sessions") },
        (p) =>
          new Promise<void>((resolve) => {
            if (shown.ended) return resolve();
            shown.resolve = resolve;
            shown.report = (message) => p.report({ message });
            if (shown.message) shown.report(shown.message);
          }),
      );
      this.progress = {
        report: (d, t) => {
          shown.message = vscode.l10n.t("{0} of {1}", d, t);
          shown.report?.(shown.message);
        },
        end: () => {
          shown.ended = true;
          shown.resolve?.();
        },
      };
    }
    this.progress.report(done, total);
  }

  private onChange(set: ChangeSet | undefined): void {
    const client = this.client;
    if (!client || !this.listed || this.indexed !== this.service.lib) return;
    const library = this.service.lib;
    if (!set || set.structural) {
      // New lineage may change what forks own: the whole listing (the worker indexes only what changed).
      void library.whenComplete().then(() => this.client === client && client.sync(indexTargets(library.sessions)));
      return;
    }
    const changed = set.changes.filter((c) => c.kind !== "removed").map((c) => library.get(c.file));
    const removed = set.changes.filter((c) => c.kind === "removed").map((c) => c.file);
    client.sync(indexTargets(changed.filter((s) => s !== undefined)), removed);
  }

  /** Search (starting the index on first use: what is indexed so far answers while the rest is built). */
  async query(request: SearchRequest): Promise<SearchAnswer> {
    await this.service.ensureStarted();
    if (this.client && this.indexed !== this.service.lib) this.stop();
    const answer = await (this.client ?? this.start()).query(request);
    this.lastAnswer = answer;
    return answer;
  }

  /**
   * For a query that found nothing: its prefix form (`prefixSuggestion`) when that finds something in the same files,
   * else null. Asked of the index, never of the last answer (a suggestion that finds nothing is no help).
   */
  async suggestion(text: string, files: string[] | null, roles: SearchRequest["roles"] = null): Promise<string | null> {
    const prefix = prefixSuggestion(text);
    if (!prefix) return null;
    const client = this.client ?? this.start();
    const answer = await client.query({ text: prefix, limit: 1, files, roles });
    return answer.ok && answer.hits.length ? prefix : null;
  }

  dispose(): void {
    this.stop();
    for (const d of this.disposables) d.dispose();
  }
}
