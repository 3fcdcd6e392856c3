/**
 * Every `contextValue` a Sessions tree node can carry, named in one place. package.json's `view/item/context` menus
 * match these (`viewItem =~ /^piSessions:session:(pi|omp)/`); `test/extension/tree/contextValues.test.ts` checks
 * each menu against every value listed here. A value is a kind, then `:`-separated flags (as GitHub Pull Requests
 * composes them). No `vscode` import: the manifest test imports this module.
 */

const PREFIX = "piSessions";

export const ContextValue = {
  GroupWorkspace: `${PREFIX}:group:workspace`,
  GroupAll: `${PREFIX}:group:all`,
  Project: `${PREFIX}:project`,
  Branch: `${PREFIX}:branch`,
  BranchActive: `${PREFIX}:branch:active`,
  Compaction: `${PREFIX}:entry:compaction`,
  BranchSummary: `${PREFIX}:entry:branchSummary`,
  /** A turn or a standalone entry row: `EntryRow + ":" + item kind`. */
  EntryRow: `${PREFIX}:entry`,
  FoldedEntry: `${PREFIX}:entry:folded`,
  /** A compaction's or branch summary's detail row: `Detail + ":" + detail`. */
  Detail: `${PREFIX}:detail`,
  Fork: `${PREFIX}:fork`,
  /** "Forks (N)" and "Subagents (N)" under a session (nested fork display). */
  Forks: `${PREFIX}:forks`,
  Subagents: `${PREFIX}:subagents`,
  ForkedFromResolved: `${PREFIX}:forkedFrom:resolved`,
  ForkedFromExternal: `${PREFIX}:forkedFrom:external`,
  ForkedFromOrphan: `${PREFIX}:forkedFrom:orphan`,
  ForkedFromAmbiguous: `${PREFIX}:forkedFrom:ambiguous`,
  Info: `${PREFIX}:info`,
  /** "Archived (N)" at the end of a group. */
  Archived: `${PREFIX}:archived`,
  /** A session: `Session + ":" + flags`, the flags in `SESSION_FLAG_ORDER`. */
  Session: `${PREFIX}:session`,
} as const;

/** Appended to a row that holds the active leaf. */
const LEAF_FLAG = "leaf";

/** Session flags, in the order they are joined. The first is the agent, or `rejected` for an unreadable file. */
export const SESSION_FLAG_ORDER = [
  "pi",
  "omp",
  "rejected",
  "fork",
  "orphan",
  "external",
  "ambiguous",
  "live",
  "truncated",
  "pinned",
  "archived",
] as const;
export type SessionFlag = (typeof SESSION_FLAG_ORDER)[number];

export const DETAILS = ["summary", "method", "kept", "replaced", "from"] as const;
export type DetailKind = (typeof DETAILS)[number];

/** Outline row kinds that are plain entry rows (a turn, or an entry standing on its own). */
const ENTRY_ROW_KINDS = ["turn", "entry"] as const;

export function sessionContextValue(flags: SessionFlag[]): string {
  const ordered = SESSION_FLAG_ORDER.filter((f) => flags.includes(f));
  return [ContextValue.Session, ...ordered].join(":");
}

export function withLeaf(value: string, isLeaf: boolean): string {
  return isLeaf ? `${value}:${LEAF_FLAG}` : value;
}

/** Every value a node can carry (session flags in every combination the tree can produce). For the manifest test. */
export function allContextValues(): string[] {
  const out: string[] = [
    ContextValue.GroupWorkspace,
    ContextValue.GroupAll,
    ContextValue.Project,
    ContextValue.Fork,
    ContextValue.Forks,
    ContextValue.Subagents,
    ContextValue.ForkedFromResolved,
    ContextValue.ForkedFromExternal,
    ContextValue.ForkedFromOrphan,
    ContextValue.ForkedFromAmbiguous,
    ContextValue.Info,
    ContextValue.Archived,
    ...DETAILS.map((d) => `${ContextValue.Detail}:${d}`),
  ];
  // Branch rows never hold the leaf marker themselves (the entry rows under them do).
  out.push(ContextValue.Branch, ContextValue.BranchActive);
  for (const leaf of [false, true]) {
    for (const v of [
      ContextValue.Compaction,
      ContextValue.BranchSummary,
      ContextValue.FoldedEntry,
      ...ENTRY_ROW_KINDS.map((k) => `${ContextValue.EntryRow}:${k}`),
    ]) {
      out.push(withLeaf(v, leaf));
    }
  }
  // A readable session: its agent, then any of fork (resolved, orphan or external), live, truncated.
  for (const agent of ["pi", "omp"] as const) {
    const forks = [[], ["fork"], ["fork", "orphan"], ["fork", "external"], ["fork", "ambiguous"]] as SessionFlag[][];
    for (const fork of forks) {
      for (const live of [[], ["live"]] as SessionFlag[][]) {
        for (const truncated of [[], ["truncated"]] as SessionFlag[][]) {
          for (const marks of [[], ["pinned"], ["archived"], ["pinned", "archived"]] as SessionFlag[][])
            out.push(sessionContextValue([agent, ...fork, ...live, ...truncated, ...marks]));
        }
      }
    }
  }
  out.push(sessionContextValue(["rejected"]));
  return [...new Set(out)];
}
