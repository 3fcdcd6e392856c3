/**
 * The recall tools' source in VS Code: the extension's own library (already listed and followed by the watcher) and
 * its search index worker; the workspace is the window's folders. Nothing is listed or indexed twice for the tools.
 */
import type { ParseResult } from "../../core/session/index.js";
import { RecallModels } from "../../node/recall/models.js";
import type { RecallSearchAnswer, RecallSource } from "../../node/recall/tools.js";
import type { StoreSession } from "../../node/store/index.js";
import type { SearchService } from "../search/searchService.js";
import type { SessionService } from "../service.js";

/** How long a search waits for a first index build before it answers from what is indexed. */
const INDEX_WAIT_MS = 3_000;

export class ExtensionRecallSource implements RecallSource {
  private readonly models: RecallModels;

  constructor(
    private readonly service: SessionService,
    private readonly searchService: SearchService,
  ) {
    this.models = new RecallModels(() => service.lib);
  }

  async sessions(): Promise<readonly StoreSession[]> {
    await this.service.ensureStarted();
    await this.service.lib.whenComplete();
    return this.service.lib.sessions;
  }

  rootDirs(): string[] {
    return this.service.roots.map((r) => r.dir);
  }

  /**
   * The first search starts the index; while it is built, a search waits a moment for it (a small store is indexed
   * by then), then answers from what is indexed, marked partial.
   */
  async search(text: string, limit: number, files: string[] | null): Promise<RecallSearchAnswer> {
    const request = { text, limit, files, roles: null };
    let answer = await this.searchService.query(request);
    if (this.searchService.building && (await this.indexed(INDEX_WAIT_MS)))
      answer = await this.searchService.query(request);
    return { answer, partial: this.searchService.building || answer.state.pending > 0 };
  }

  /** Resolves true when the index has taken in the listing, false after `ms`. */
  private indexed(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        done.dispose();
        resolve(false);
      }, ms);
      const done = this.searchService.onDidIndex(() => {
        if (this.searchService.building) return;
        clearTimeout(timer);
        done.dispose();
        resolve(true);
      });
    });
  }

  open(session: StoreSession): Promise<ParseResult> {
    return this.models.open(session);
  }

  workspace(): Promise<string[]> {
    return Promise.resolve(this.service.workspaceFolders());
  }
}
