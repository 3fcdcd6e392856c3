/** What the quick pick and the results panel show of search hits: one line of snippet, the scope's files, groups. */
import type { SearchHit } from "../../node/search/index.js";
import { oneLine, truncate } from "../../protocol/format.js";
import { snippetPlainText } from "../../protocol/markdown.js";
import type { SearchResultGroup, SearchScope } from "../../protocol/search.js";
import type { SessionService } from "../service.js";
import { pickText } from "../titles.js";

/** The files a scope searches: the workspace's sessions, or null for every session. */
export function scopeFiles(service: SessionService, scope: SearchScope): string[] | null {
  if (scope === "all") return null;
  return service.workspaceSessions().map((s) => s.file);
}

/** The scope a search starts in: this workspace when it has sessions, else every project. */
export function defaultScope(service: SessionService): SearchScope {
  return service.workspaceFolders().length && service.workspaceSessions().length ? "workspace" : "all";
}

/**
 * A snippet as one line of plain text for a quick pick: Markdown's markup and the « » marks dropped (a quick pick
 * draws no marks of ours), and `$(name)` kept from being drawn as an icon.
 */
export function snippetLine(snippet: string, max = 200): string {
  return pickLine(snippetPlainText(snippet), max);
}

/** Session text (a title, a path, a tool's name) on one line of a quick pick, cut, with no icon of its own. */
export function pickLine(text: string, max = 200): string {
  return pickText(oneLine(truncate(text.replace(/[«»]/g, ""), max)));
}

/** Hits grouped by session, sessions in the order of their best hit. */
export function groupHits(hits: SearchHit[], titleOf: (file: string) => string | undefined): SearchResultGroup[] {
  const groups = new Map<string, SearchResultGroup>();
  for (const h of hits) {
    let g = groups.get(h.file);
    if (!g) {
      g = { file: h.file, title: titleOf(h.file) ?? h.title, project: h.cwd, hits: [] };
      groups.set(h.file, g);
    }
    g.hits.push({
      entryId: h.entryId,
      role: h.role,
      tool: h.tool,
      timestamp: h.timestamp,
      snippet: h.snippet,
      alsoIn: h.alsoIn.length,
      active: h.active,
    });
  }
  return [...groups.values()];
}
