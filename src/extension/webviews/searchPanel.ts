/**
 * The search results panel ("Show All Results"): every hit of a query, grouped by session with counts, with the
 * roles as checkboxes and the scope as a choice; a click opens the transcript at the entry. One panel, reused; it
 * searches again when the index takes in a change. Every message from the page is validated.
 */
import * as vscode from "vscode";
import { truncate } from "../../protocol/format.js";
import {
  DEFAULT_SEARCH_ROLES,
  fromSearchPageSchema,
  type SearchState,
  type ToSearchPage,
} from "../../protocol/search.js";
import { SearchResultsViewType } from "../ids.js";
import type { Logger } from "../logging.js";
import type { SessionService } from "../service.js";
import { groupHits, scopeFiles } from "../search/searchResults.js";
import type { SearchService } from "../search/searchService.js";
import type { TranscriptPanels } from "./transcriptPanel.js";
import { renderHtml, webviewOptions } from "./html.js";
import { displayTitle } from "../titles.js";

/** After the index takes in a change, the panel searches again this much later (changes in a burst, once). */
const REFRESH_AFTER_INDEX_MS = 1000;
/** The panel lists at most this many hits (the best ones). */
const PANEL_HITS = 500;

export class SearchPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | null = null;
  private state: SearchState | null = null;
  private ready = false;
  private seq = 0;
  private readonly disposables: vscode.Disposable[] = [];
  private again: NodeJS.Timeout | undefined;
  /** What the page shows, for tests. */
  shown: ToSearchPage | null = null;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly service: SessionService,
    private readonly search: SearchService,
    private readonly transcripts: TranscriptPanels,
    private readonly workspaceFolders: () => string[],
    private readonly logger: Logger,
  ) {
    // The index took in a change: search again, once things settle (an agent writing sends one per debounce).
    this.disposables.push(
      search.onDidIndex(() => {
        clearTimeout(this.again);
        this.again = setTimeout(() => void this.refresh(), REFRESH_AFTER_INDEX_MS);
      }),
    );
  }

  show(state: SearchState): ToSearchPage | null {
    this.state = { ...state, roles: state.roles.length ? state.roles : [...DEFAULT_SEARCH_ROLES] };
    if (this.panel) {
      this.panel.reveal();
      void this.refresh();
      return this.shown;
    }
    const panel = vscode.window.createWebviewPanel(
      SearchResultsViewType,
      vscode.l10n.t("Search Sessions"),
      vscode.ViewColumn.Active,
      { ...webviewOptions(this.extensionUri), enableFindWidget: true, retainContextWhenHidden: false },
    );
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, "media", "pi-sessions.svg");
    this.panel = panel;
    this.ready = false;
    panel.webview.html = renderHtml(panel.webview, this.extensionUri, "search", panel.title, this.state, {
      stylesheet: "search.css",
    });
    const subs = [
      panel.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)),
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
      }),
    ];
    panel.onDidDispose(() => {
      for (const s of subs) s.dispose();
      this.panel = null;
      this.shown = null;
    });
    return null;
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = fromSearchPageSchema.safeParse(raw);
    if (!parsed.success) {
      this.logger.warn("the search results page sent a message that is not valid; ignored");
      return;
    }
    const m = parsed.data;
    try {
      if (m.type === "ready") {
        this.ready = true;
        await this.refresh();
      } else if (m.type === "search") {
        this.state = m.state;
        await this.refresh();
      } else {
        // Only a hit the page was sent: a session under the roots.
        if (!this.service.lib.get(m.file)) return;
        this.transcripts.show(m.file, m.entryId || undefined);
      }
    } catch (err) {
      this.logger.error("search results: handling a message failed", err);
    }
  }

  /** Search with the panel's state and send the results. */
  async refresh(): Promise<void> {
    const panel = this.panel;
    const state = this.state;
    if (!panel || !state || !this.ready) return;
    const mine = ++this.seq;
    panel.title = state.text.trim()
      ? vscode.l10n.t("Search: {0}", truncate(state.text, 30))
      : vscode.l10n.t("Search Sessions");
    const base = { type: "results" as const, state, groups: [], total: 0 };
    let message: ToSearchPage;
    if (!state.text.trim()) {
      const index = this.search.state ?? { sessions: 0, entries: 0, pending: 0, readOnly: false };
      message = { ...base, problem: null, index: { ...index, building: this.search.building } };
    } else {
      const answer = await this.search.query({
        text: state.text,
        limit: PANEL_HITS,
        files: scopeFiles(this.service, state.scope, this.workspaceFolders()),
        roles: state.roles,
      });
      if (mine !== this.seq || this.panel !== panel) return;
      const index = { ...answer.state, building: this.search.building };
      if (!answer.ok) message = { ...base, problem: answer.message, index };
      else {
        const titleOf = (file: string) => {
          const s = this.service.lib.get(file);
          return s ? displayTitle(s) : undefined;
        };
        message = { ...base, problem: null, groups: groupHits(answer.hits, titleOf), total: answer.hits.length, index };
      }
    }
    this.shown = message;
    await panel.webview.postMessage(message);
  }

  dispose(): void {
    clearTimeout(this.again);
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
