/**
 * "Search Session Content…": a quick pick over the full-text index with live results as you type (debounced), in
 * the scope of this workspace or of every project (a button switches), and "Show All Results" for the results panel.
 * Choosing a hit opens the transcript at its entry.
 */
import * as vscode from "vscode";
import { relativeTime } from "../../protocol/format.js";
import type { SearchRole, SearchScope } from "../../protocol/search.js";
import type { SearchAnswer } from "../../node/search/index.js";
import type { SearchHit } from "../../node/search/index.js";
import type { Command } from "../commands/command.js";
import { CommandId } from "../ids.js";
import type { Logger } from "../logging.js";
import type { SessionService } from "../service.js";
import type { TranscriptPanels } from "../webviews/transcriptPanel.js";
import type { SearchPanel } from "../webviews/searchPanel.js";
import { defaultScope, pickLine, scopeFiles, snippetLine } from "./searchResults.js";
import type { SearchService } from "./searchService.js";
import { displayTitle } from "../titles.js";

/** Typing is searched this long after the last key. */
const DEBOUNCE_MS = 150;
const QUICK_PICK_HITS = 50;
/** While the index is being built, the results are searched again this often. */
const GROWING_REFRESH_MS = 1000;

const ROLE_ICONS: Record<SearchRole, string> = {
  user: "account",
  assistant: "hubot",
  thinking: "lightbulb",
  tool: "tools",
  summary: "fold",
  meta: "tag",
  custom: "extensions",
  system: "settings-gear",
};

type Item = vscode.QuickPickItem & { hit?: SearchHit; showAll?: boolean; suggestion?: string };

export interface SearchCommandContext {
  service: SessionService;
  search: SearchService;
  transcripts: TranscriptPanels;
  results: SearchPanel;
  logger: Logger;
}

/** What a finished search says of the index, or "" when it is complete. */
function indexNote(search: SearchService, answer: SearchAnswer): string {
  const s = answer.state;
  if (search.building || s.pending)
    return s.pending
      ? vscode.l10n.t("Indexing: {0} sessions to go; results so far", s.pending)
      : vscode.l10n.t("Indexing; results so far");
  if (s.readOnly) return vscode.l10n.t("Another window is updating the index");
  return "";
}

function scopeOf(ctx: SearchCommandContext): Scope {
  const { service, search, transcripts, results, logger } = ctx;
  const titleOf = (file: string) => {
    const s = service.lib.get(file);
    return s ? displayTitle(s) : undefined;
  };

  const itemsOf = (answer: SearchAnswer, text: string, suggestion: string | null): Item[] => {
    const note = indexNote(search, answer);
    if (!answer.ok) return [{ label: `$(warning) ${answer.message}`, alwaysShow: true }];
    // The path only where it says something: a session of another folder than the workspace's.
    const here = new Set(service.workspaceFolders());
    const items: Item[] = answer.hits.map((hit) => {
      const role = hit.tool ? `${hit.role} · ${pickLine(hit.tool, 40)}` : hit.role;
      const when = hit.timestamp ? relativeTime(Date.parse(hit.timestamp)) : "";
      const n = hit.alsoIn.length;
      const forks = n ? (n === 1 ? vscode.l10n.t("also in 1 fork") : vscode.l10n.t("also in {0} forks", n)) : "";
      return {
        // What tells hits apart first (the session, what matched, when); the snippet under it, as plain text.
        label: `$(${ROLE_ICONS[hit.role]}) ${pickLine(titleOf(hit.file) ?? hit.title, 60)}`,
        description: [role, when, forks].filter(Boolean).join(" · "),
        detail: [snippetLine(hit.snippet), here.has(hit.cwd) ? "" : pickLine(hit.cwd, 120)].filter(Boolean).join(" — "),
        alwaysShow: true,
        hit,
      };
    });
    if (!items.length) {
      items.push({
        label: note
          ? vscode.l10n.t("No match yet for {0}", pickLine(text, 80))
          : vscode.l10n.t("No match for {0}", pickLine(text, 80)),
        description: note,
        alwaysShow: true,
      });
      if (suggestion)
        items.push({
          label: `$(lightbulb) ${vscode.l10n.t("Search for {0}", pickLine(suggestion, 80))}`,
          description: vscode.l10n.t("the beginning of the word: it finds other forms of it"),
          alwaysShow: true,
          suggestion,
        });
    } else if (note) items[0] = { ...items[0]!, description: `${note} · ${items[0]!.description ?? ""}` };
    items.push(
      { label: "", kind: vscode.QuickPickItemKind.Separator },
      { label: `$(list-flat) ${vscode.l10n.t("Show All Results")}`, alwaysShow: true, showAll: true },
    );
    return items;
  };

  return { service, search, transcripts, results, logger, itemsOf };
}

/** What the commands below share. */
interface Scope {
  service: SessionService;
  search: SearchService;
  transcripts: TranscriptPanels;
  results: SearchPanel;
  logger: Logger;
  itemsOf: (answer: SearchAnswer, text: string, suggestion: string | null) => Item[];
}

export function searchCommands(ctx: SearchCommandContext): Command[] {
  const scope = scopeOf(ctx);
  return [searchContentCommand(scope), showSearchResultsCommand(scope)];
}

/** `SearchContent`. */
function searchContentCommand({ service, search, transcripts, results, logger, itemsOf }: Scope): Command {
  return {
    id: CommandId.SearchContent,
    execute: async (initial?: unknown) => {
      await service.ensureStarted();
      let scope: SearchScope = defaultScope(service);
      const pick = vscode.window.createQuickPick<Item>();
      const scopeButton = (): vscode.QuickInputButton =>
        scope === "workspace"
          ? { iconPath: new vscode.ThemeIcon("globe"), tooltip: vscode.l10n.t("Search All Projects") }
          : { iconPath: new vscode.ThemeIcon("folder"), tooltip: vscode.l10n.t("Search This Workspace") };
      const title = () =>
        scope === "workspace"
          ? vscode.l10n.t("Search Session Content: This Workspace")
          : vscode.l10n.t("Search Session Content: All Projects");
      const showAllButton: vscode.QuickInputButton = {
        iconPath: new vscode.ThemeIcon("list-flat"),
        tooltip: vscode.l10n.t("Show All Results"),
      };
      pick.title = title();
      pick.buttons = [scopeButton(), showAllButton];
      pick.placeholder = vscode.l10n.t('Words, "a phrase", prefix*, -exclude, role:user, tool:bash, since:2026-11-01');
      pick.matchOnDescription = false;
      pick.matchOnDetail = false;
      let timer: NodeJS.Timeout | undefined;
      const run = searcher({ service, search, logger, itemsOf }, pick, () => scope);
      const chosen = new Promise<{ file: string; entryId: string } | { all: string } | undefined>((resolve) => {
        pick.onDidChangeValue((text) => {
          clearTimeout(timer);
          timer = setTimeout(() => void run(text), DEBOUNCE_MS);
        });
        pick.onDidTriggerButton((button) => {
          if (button === showAllButton) {
            resolve({ all: pick.value });
            pick.hide();
            return;
          }
          scope = scope === "workspace" ? "all" : "workspace";
          pick.title = title();
          pick.buttons = [scopeButton(), showAllButton];
          void run(pick.value);
        });
        pick.onDidAccept(() => {
          const item = pick.selectedItems[0];
          if (item?.suggestion) {
            // The box shows what is searched now; set by code, a value fires no change event.
            pick.value = item.suggestion;
            clearTimeout(timer);
            void run(item.suggestion);
            return;
          }
          if (item?.showAll) resolve({ all: pick.value });
          else if (item?.hit) resolve({ file: item.hit.file, entryId: item.hit.entryId });
          else return;
          pick.hide();
        });
        // While the index is built, what it has grows: the results are searched again as it does.
        const again = () => {
          if (pick.value.trim() && !pick.busy) void run(pick.value);
        };
        const indexed = search.onDidIndex(again);
        const growing = setInterval(() => {
          const s = search.lastAnswer?.state;
          if (search.building || (s?.pending && !s.readOnly)) again();
        }, GROWING_REFRESH_MS);
        pick.onDidHide(() => {
          clearTimeout(timer);
          clearInterval(growing);
          indexed.dispose();
          resolve(undefined);
          pick.dispose();
        });
      });
      if (typeof initial === "string" && initial) {
        pick.value = initial;
        void run(initial);
      }
      pick.show();
      const result = await chosen;
      if (!result) return undefined;
      if ("all" in result) {
        results.show({ text: result.all, roles: [], scope });
        return result;
      }
      // A unit of the OMP title slot has no entry: the transcript opens at its end.
      transcripts.show(result.file, result.entryId || undefined);
      return result;
    },
  };
}

/**
 * What fills the quick pick as the reader types: each call searches `text` in the scope of now and shows the answer,
 * unless a later call has started meanwhile; the reader stays on the hit they were on when the list is refreshed.
 */
function searcher(
  { service, search, logger, itemsOf }: Pick<Scope, "service" | "search" | "logger" | "itemsOf">,
  pick: vscode.QuickPick<Item>,
  scopeNow: () => SearchScope,
): (text: string) => Promise<void> {
  let seq = 0;
  return async (text: string) => {
    const mine = ++seq;
    if (!text.trim()) {
      pick.items = [];
      pick.busy = false;
      return;
    }
    pick.busy = true;
    try {
      const files = scopeFiles(service, scopeNow());
      const answer = await search.query({ text, limit: QUICK_PICK_HITS, files, roles: null });
      if (mine !== seq) return;
      const suggestion = answer.ok && !answer.hits.length ? await search.suggestion(text, files) : null;
      if (mine !== seq) return;
      // Searched again while the reader is in the list (the index grew): they stay on the hit they were on.
      const was = pick.activeItems[0]?.hit;
      pick.items = itemsOf(answer, text, suggestion);
      const same = was && pick.items.find((i) => i.hit?.file === was.file && i.hit.entryId === was.entryId);
      if (same) pick.activeItems = [same];
    } catch (err) {
      logger.error("search failed", err);
      if (mine === seq) pick.items = [{ label: `$(error) ${String(err)}`, alwaysShow: true }];
    } finally {
      if (mine === seq) pick.busy = false;
    }
  };
}

/** `ShowSearchResults`. */
function showSearchResultsCommand({ service, results }: Scope): Command {
  return {
    id: CommandId.ShowSearchResults,
    execute: async (text?: unknown) => {
      await service.ensureStarted();
      return results.show({
        text: typeof text === "string" ? text : "",
        roles: [],
        scope: defaultScope(service),
      });
    },
  };
}
