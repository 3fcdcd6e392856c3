/**
 * The search results panel's state and messages. The page shows snippets of session content (untrusted): the host
 * validates every message from it with these schemas.
 */
import * as z from "zod";

/** The kinds of text search tells apart (src/core/search/units.ts). */
export const SEARCH_ROLES = ["user", "assistant", "thinking", "tool", "summary", "meta", "custom", "system"] as const;
export type SearchRole = (typeof SEARCH_ROLES)[number];
/**
 * Searched unless the query or the filters name roles: thinking and pi 1.6's system messages (the same prompt in
 * every session) only when asked for.
 */
export const DEFAULT_SEARCH_ROLES: readonly SearchRole[] = SEARCH_ROLES.filter(
  (r) => r !== "thinking" && r !== "system",
);

export const SEARCH_SCOPES = ["workspace", "all"] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];

export const searchStateSchema = z.object({
  text: z.string().max(2000),
  roles: z.array(z.enum(SEARCH_ROLES)).max(SEARCH_ROLES.length),
  scope: z.enum(SEARCH_SCOPES),
});
export type SearchState = z.infer<typeof searchStateSchema>;

export const fromSearchPageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready") }),
  z.object({ type: z.literal("search"), state: searchStateSchema }),
  z.object({ type: z.literal("open"), file: z.string().max(4096), entryId: z.string().max(512) }),
]);
export type FromSearchPage = z.infer<typeof fromSearchPageSchema>;

export interface SearchResultHit {
  entryId: string;
  role: SearchRole;
  tool: string | null;
  timestamp: string | null;
  /** The matched text around the terms, which are between « and ». */
  snippet: string;
  /** Forks that carry this entry as a copy. */
  alsoIn: number;
  active: boolean;
  /** Off the active branch: the branch the entry is on, named as the tree names it ("Branch 2/3: …"), when known. */
  branch?: string;
}

export interface SearchResultGroup {
  file: string;
  title: string;
  project: string;
  hits: SearchResultHit[];
}

export interface SearchIndexState {
  sessions: number;
  entries: number;
  pending: number;
  readOnly: boolean;
  /** The first indexing of the whole store in this window is under way (`pending` may not be known yet). */
  building: boolean;
}

export type ToSearchPage = {
  type: "results";
  state: SearchState;
  /** Why the query could not be searched, or null. */
  problem: string | null;
  groups: SearchResultGroup[];
  total: number;
  index: SearchIndexState;
  /** When nothing matched: the query's prefix form, which matches something (`prefixSuggestion`). */
  suggestion?: string;
};
