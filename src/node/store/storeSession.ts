/** A session as the store lists it: its file, summary, fork lineage and the entries it owns. */
import { plainLabel } from "../../protocol/markdown.js";
import { basename } from "node:path";
import { truncate } from "../../protocol/format.js";
import type { SessionSummary, SessionSummaryOk } from "../../core/summary.js";
import type { SessionRoot } from "../roots.js";
import type { DiscoveredFile } from "./discover.js";

/**
 * `ambiguous`: the parent is named by a session id that several listed files carry; it is never guessed which.
 */
export type ParentState = "none" | "resolved" | "orphan" | "external" | "ambiguous";

export interface StoreSession {
  file: string;
  root: SessionRoot;
  slug: string | null;
  nestedIn: string | null;
  sizeBytes: number;
  /** Last modification time in ms (0 when unknown). */
  mtimeMs: number;
  summary: SessionSummary;
  parentState: ParentState;
  parent: StoreSession | null;
  /** An ambiguous fork's possible parents (every listed file carrying the id): its copies are counted for them. */
  parentCandidates: StoreSession[];
  children: StoreSession[];
  /** Ids of this session's entries that are copies of its parent's (fork deduplication: each entry is counted once). */
  inherited: Set<string>;
  /** The last inherited entry in file order: where the fork left its parent. */
  forkPointId: string | null;
  /** Other listed files whose header carries this session's id (a copy, a backup): each is its own row. */
  sameIdAs: StoreSession[];
  /** Oh My Pi: the title its agent dir's `history.db` holds for it (node/ompHistory.ts). */
  historyTitle?: string;
  /** Oh My Pi: its latest idle recap, from `history.db` (recaps never enter the session file). */
  recap?: { text: string; createdAt: number };
}

/** A store session before lineage is linked (`linkLineage`) and ownership computed (`computeOwnership`). */
export function newStoreSession(
  f: Pick<DiscoveredFile, "file" | "root" | "slug" | "nestedIn" | "size"> & { mtimeNs?: bigint },
  summary: SessionSummary,
): StoreSession {
  const mtimeMs = f.mtimeNs === undefined ? 0 : Number(f.mtimeNs / 1_000_000n);
  return {
    file: f.file,
    root: f.root,
    slug: f.slug,
    nestedIn: f.nestedIn,
    sizeBytes: f.size,
    mtimeMs,
    summary,
    parentState: "none",
    parent: null,
    parentCandidates: [],
    children: [],
    inherited: new Set(),
    forkPointId: null,
    sameIdAs: [],
  };
}

export function isOk(s: StoreSession): s is StoreSession & { summary: SessionSummaryOk } {
  return s.summary.ok;
}

/**
 * A session's time, wherever one is shown or sorted on: its newest entry's timestamp (the header's when it has no
 * entry), the file's mtime only when the file holds no time at all. Not the mtime first: a copy, a restore or a
 * checkout gives every file the same mtime, and the agents' own times are what `/resume` shows.
 */
export function lastActivity(s: StoreSession): number {
  return (s.summary.ok ? newestTime(s.summary) : 0) || s.mtimeMs;
}

/**
 * Each summary's newest time, found once: sorts and pickers ask for it many times per session, and a summary is
 * replaced, never changed, when its file grows. Keyed by the summary itself: its entries are not read (a cached
 * summary decodes them only when asked, and a long session has hundreds of thousands).
 */
const newestTimes = new WeakMap<SessionSummaryOk, number>();

function newestTime(summary: SessionSummaryOk): number {
  let last = newestTimes.get(summary);
  if (last === undefined) {
    last = Number.isFinite(summary.created) ? summary.created : 0;
    // A name or a label written later is no activity (`lastActiveAt`, NaN when no entry has a time).
    if (summary.lastActiveAt > last) last = summary.lastActiveAt;
    newestTimes.set(summary, last);
  }
  return last;
}

/** When the file was last written (its mtime, else its newest entry): whether an agent is writing it now. */
export function lastWritten(s: StoreSession): number {
  // A name or label appended last (ours, pi's picker) is no agent at work: the session is as old as its activity.
  if (s.summary.ok && s.summary.metadataTail) return lastActivity(s);
  return s.mtimeMs || lastActivity(s);
}

/** How a fork with no prompt of its own is called: by the last prompt it copied, which says where it forked. */
type NoNewPromptText = (lastCopiedPrompt: string | null) => string;

const noNewPromptText: NoNewPromptText = (last) =>
  last ? `after “${truncate(last, 60)}” (no new prompt)` : "(no new prompt)";

/**
 * What a session is called, everywhere it is listed. A fork of a listed parent says what it did: its own name when it
 * set one other than its parent's, else its first own prompt, else "(no new prompt)" and the last prompt it copied.
 * Any other session: its name or title, else its first prompt (an orphan or external fork: its first prompt written
 * after its header, if any, before a copied one). A fork summarized from its file's ends only (`partial`) keeps that
 * plain title until it is read in full.
 */
export function sessionTitle(s: StoreSession, noNewPrompt: NoNewPromptText = noNewPromptText): string {
  // A title is a label: a prompt's Markdown marks are dropped (`plainLabel`), in the tree and the CLI alike.
  return s.summary.ok ? plainLabel(titleText(s, noNewPrompt)) : basename(s.file);
}

function titleText(s: StoreSession, noNewPrompt: NoNewPromptText): string {
  const sum = s.summary;
  if (!sum.ok) return basename(s.file);
  const parent = s.parent ?? s.parentCandidates[0];
  const forked = ownPartKnown(sum);
  if (forked && parent) {
    if (sum.name && ownName(sum, parent)) return sum.name;
    return sum.laterPrompt ?? noNewPrompt(sum.lastPrompt);
  }
  // A fork whose parent is not listed: a name it copied, or its copied first prompt, say less than its own prompt.
  if (forked) {
    const copiedName = sum.nameTime !== null && sum.nameTime <= sum.created;
    return (copiedName ? null : sum.name) ?? sum.laterPrompt ?? sum.name ?? sum.firstPrompt ?? "(no prompt yet)";
  }
  return sum.name ?? s.historyTitle ?? sum.firstPrompt ?? "(no prompt yet)";
}

/**
 * A fork that added neither a name nor a prompt of its own: `sessionTitle` can only say where it forked ("after “…”
 * (no new prompt)"), and a view may name it by what differs from its siblings instead.
 */
export function addsNoPrompt(s: StoreSession): boolean {
  const sum = s.summary;
  if (!sum.ok || !ownPartKnown(sum)) return false;
  const parent = s.parent ?? s.parentCandidates[0];
  return !!parent && !(sum.name && ownName(sum, parent)) && sum.laterPrompt === null;
}

/** A fork whose own part is known: where it starts comes from its header's time (copies keep their earlier times). */
function ownPartKnown(sum: SessionSummaryOk): boolean {
  return sum.parentSession !== null && !sum.partial && Number.isFinite(sum.created);
}

/** How many ancestors a fork's title is compared with when the time it was set is not known. */
const ANCESTOR_NAMES = 16;

/**
 * Did the fork set a name of its own, other than its parent's? When the name's time is known (pi's `session_info`):
 * set after the fork. Else (Oh My Pi's title): a name none of its nearest ancestors carries (a copied name is theirs).
 */
function ownName(sum: SessionSummaryOk, parent: StoreSession): boolean {
  const { name, nameTime, created } = sum;
  if (parent.summary.ok && parent.summary.name === name) return false;
  if (nameTime !== null && Number.isFinite(created)) return nameTime > created;
  // The nearest ancestors only: a copied title comes from the parent, or from a fork of a fork of it. A bound keeps
  // naming a session of a lineage thousands of forks deep linear.
  let p: StoreSession | null = parent;
  for (let depth = 0; p && depth < ANCESTOR_NAMES; depth++, p = p.parent) {
    if (p.summary.ok && p.summary.name === name) return false;
  }
  return true;
}

/**
 * What kind of child of another session `s` is: an OMP subagent, an Oh My Pi /tan clone (a fork nested in its
 * parent's artifacts dir, docs/session-format.md#t23), a fork, or none. The tree and `list` word it each their way.
 */
export function childKind(s: StoreSession): "subagent" | "tan" | "fork" | null {
  const sum = s.summary;
  if (!sum.ok) return null;
  if (sum.subagent) return sum.parentSession || s.nestedIn ? "subagent" : null;
  if (!sum.parentSession) return null;
  return s.nestedIn ? "tan" : "fork";
}

/** Cost of the entries this session owns (inherited fork entries are the parent's). */
export function ownCost(s: StoreSession): number {
  if (!s.summary.ok || s.summary.partial) return 0;
  // Not a fork that inherits: the summary's total (the usage records are then never decoded from the cache).
  if (s.inherited.size === 0 && typeof s.summary.cost === "number") return s.summary.cost;
  let cost = 0;
  for (const r of s.summary.usage) if (!s.inherited.has(r.entryId)) cost += r.cost;
  return cost;
}
