/**
 * The search results panel ("Show All Results"): every hit of a query, grouped by session with counts, with the
 * roles as checkboxes and the scope as a choice; a click opens the transcript at the entry. One panel, reused; it
 * searches again when the index takes in a change. Every message from the page is validated.
 */
import * as vscode from "vscode";
import { truncate } from "../../protocol/format.js";
import {
  DEFAULT_SEARCH_ROLES,
  type FromSearchPage,
  fromSearchPageSchema,
  type SearchResultGroup,
  type SearchState,
  searchStateSchema,
  type ToSearchPage,
} from "../../protocol/search.js";
import { SearchResultsViewType } from "../ids.js";
import type { Logger } from "../logging.js";
import type { SessionService } from "../service.js";
import { groupHits, scopeFiles } from "../search/searchResults.js";
import type { SearchService } from "../search/searchService.js";
import type { TranscriptPanels } from "./transcriptPanel.js";
import { type HostedPage, WebviewHost } from "./webviewHost.js";
import { displayTitle, leafBranchTitle } from "../titles.js";
import { branchesOnPath } from "../../core/branches.js";

/** After the index takes in a change, the panel searches again this much later (changes in a burst, once). */
const REFRESH_AFTER_INDEX_MS = 1000;
/** The panel lists at most this many hits (the best ones). */
const PANEL_HITS = 500;

type SearchPage = HostedPage<SearchState>;

export class SearchPanel implements vscode.Disposable {
  private readonly host: WebviewHost<SearchState, FromSearchPage, SearchPage>;
  private state: SearchState | null = null;
  private readonly disposables: vscode.Disposable[] = [];
  private again: NodeJS.Timeout | undefined;
  /** What the page shows, for tests. */
  shown: ToSearchPage | null = null;

  constructor(
    extensionUri: vscode.Uri,
    private readonly service: SessionService,
    private readonly search: SearchService,
    private readonly transcripts: TranscriptPanels,
    private readonly logger: Logger,
  ) {
    this.host = new WebviewHost(extensionUri, logger, {
      viewType: SearchResultsViewType,
      page: "search",
      stateSchema: searchStateSchema,
      messageSchema: fromSearchPageSchema,
      restorable: false,
      html: { stylesheet: "search.css" },
      panelOptions: { enableFindWidget: true, retainContextWhenHidden: false },
      unreadyWhenHidden: true,
      create: (panel, state) => ({ panel, state, ready: false, seq: 0, dirty: false }),
      title: () => vscode.l10n.t("Search Sessions"),
      receive: (_page, m) => this.receive(m),
      disposed: () => {
        this.shown = null;
      },
    });
    // The index took in a change: search again, once things settle (an agent writing sends one per debounce).
    this.disposables.push(
      this.host,
      search.onDidIndex(() => {
        clearTimeout(this.again);
        this.again = setTimeout(() => void this.refresh(), REFRESH_AFTER_INDEX_MS);
      }),
    );
  }

  /** The one results page, when it is open. */
  private get page(): SearchPage | undefined {
    return this.host.pages[0];
  }

  show(state: SearchState): ToSearchPage | null {
    this.state = { ...state, roles: state.roles.length ? state.roles : [...DEFAULT_SEARCH_ROLES] };
    if (this.page) {
      this.page.panel.reveal();
      void this.refresh();
      return this.shown;
    }
    this.host.open(this.state, vscode.l10n.t("Search Sessions"));
    return null;
  }

  private async receive(m: FromSearchPage): Promise<void> {
    try {
      if (m.type === "ready") {
        this.page!.ready = true;
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
    const page = this.page;
    const state = this.state;
    if (!page || !state || !page.ready) return;
    const panel = page.panel;
    const mine = ++page.seq;
    panel.title = state.text.trim()
      ? vscode.l10n.t("Search: {0}", truncate(state.text, 30))
      : vscode.l10n.t("Search Sessions");
    const base = { type: "results" as const, state, groups: [], total: 0 };
    let message: ToSearchPage;
    if (!state.text.trim()) {
      const index = this.search.state ?? { sessions: 0, entries: 0, pending: 0, readOnly: false };
      message = { ...base, problem: null, index: { ...index, building: this.search.building } };
    } else {
      const files = scopeFiles(this.service, state.scope);
      const answer = await this.search.query({ text: state.text, limit: PANEL_HITS, files, roles: state.roles });
      if (mine !== page.seq || this.page !== page) return;
      const index = { ...answer.state, building: this.search.building };
      if (!answer.ok) message = { ...base, problem: answer.message, index };
      else {
        const titleOf = (file: string) => {
          const s = this.service.lib.get(file);
          return s ? displayTitle(s) : undefined;
        };
        const groups = withBranchNames(this.service, groupHits(answer.hits, titleOf));
        const suggestion = answer.hits.length ? null : await this.search.suggestion(state.text, files, state.roles);
        if (mine !== page.seq || this.page !== page) return;
        message = { ...base, problem: null, groups, total: answer.hits.length, index };
        if (suggestion) message.suggestion = suggestion;
      }
    }
    this.shown = message;
    await this.host.post(page, message);
  }

  dispose(): void {
    clearTimeout(this.again);
    for (const d of this.disposables) d.dispose();
  }
}

/**
 * Hits off the active branch get the name of their branch (`leafBranchTitle`) when their session is already read (a
 * tree row or a transcript opened it): naming them never reads a session, so a search costs no more memory than it did.
 */
function withBranchNames(service: SessionService, groups: SearchResultGroup[]): SearchResultGroup[] {
  for (const g of groups) {
    if (g.hits.every((h) => h.active)) continue;
    const read = service.lib.peek(g.file);
    if (!read?.ok) continue;
    for (const h of g.hits)
      if (!h.active && read.session.byId.has(h.entryId))
        h.branch = leafBranchTitle(branchesOnPath(read.session, h.entryId)) ?? undefined;
  }
  return groups;
}
