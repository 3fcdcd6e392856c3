/**
 * One identity per branch, shared by the tree, the transcript's switcher, compare and the CLI: its number among the
 * branches of its branch point in the order pi's `/tree` lists them (the one holding the session's leaf first, then
 * by timestamp, as `getTree` sorts children), and its name by one rule (the branch's first user prompt on the way to
 * its leaf, else what its first entry is). The session's leaf, not the branch a view happens to show, decides the
 * order, so a number does not change when a view switches branches or filters entries.
 *
 * Linear in the session: one pass per session (cached) finds each entry's subtree size and newest entry, so a branch
 * point costs its own children, and an entry without siblings costs nothing (a 40,000-entry chain is no branch).
 */
import type { Entry, Session } from "./session/index.js";
import { pathTo } from "./session/index.js";
import { entryLabel } from "./entryText.js";

export interface Branch {
  /** The entry the branch starts with (a child of the branch point, or a root). */
  startId: string;
  /** The branch point: the parent of `startId` (null for the roots of a session with several). */
  atId: string | null;
  /** 1-based, in pi's `/tree` order, and how many branches the branch point has. */
  number: number;
  of: number;
  /** The first user prompt on the way to `leafId` (one line, ≤ 100 characters), else the first entry's label. */
  name: string;
  /** Where the branch ends: the session's leaf when the branch holds it, else its newest entry (by line). */
  leafId: string;
  /** Entries in the branch (its start and everything under it). */
  entries: number;
  /** Holds the session's leaf. */
  active: boolean;
}

/** How far down a branch its first prompt is looked for (a branch of tool calls only is named by its first entry). */
const NAME_DEPTH = 500;

interface SessionBranches {
  leafPath: Set<string>;
  /** Each entry's subtree: how many entries, and its newest (the highest line). */
  size: Map<string, number>;
  newest: Map<string, Entry>;
  at: Map<string | null, Branch[]>;
}

const cache = new WeakMap<Session, SessionBranches>();

function indexOf(session: Session): SessionBranches {
  let index = cache.get(session);
  if (!index) {
    index = {
      leafPath: new Set(pathTo(session, session.leafId).map((e) => e.id)),
      ...subtrees(session),
      at: new Map(),
    };
    cache.set(session, index);
  }
  return index;
}

/** The parent an entry hangs from in the tree (null for a root: no parent, an unknown one, or itself). */
function parentOf(session: Session, e: Entry): string | null {
  return e.parentId !== null && e.parentId !== e.id && session.byId.has(e.parentId) ? e.parentId : null;
}

/** The children of a branch point (the roots for null) in pi's `/tree` order: the one holding the leaf first. */
export function childrenInTreeOrder(session: Session, atId: string | null): string[] {
  const kids = atId === null ? session.roots : (session.children.get(atId) ?? []);
  if (kids.length < 2) return kids;
  const { leafPath } = indexOf(session);
  return [...kids.filter((k) => leafPath.has(k)), ...kids.filter((k) => !leafPath.has(k))];
}

/** The branches at a branch point (`atId`'s children, or the roots for null), numbered as pi's `/tree` shows them. */
export function branchesAt(session: Session, atId: string | null): Branch[] {
  const index = indexOf(session);
  let branches = index.at.get(atId);
  if (!branches) index.at.set(atId, (branches = computeBranches(session, index, atId)));
  return branches;
}

/** The branch that starts at `startId`, when its parent has more than one child (else null: no branch starts there). */
export function branchStartingAt(session: Session, startId: string): Branch | null {
  const e = session.byId.get(startId);
  if (!e) return null;
  const at = parentOf(session, e);
  const siblings = at === null ? session.roots : (session.children.get(at) ?? []);
  if (siblings.length < 2) return null;
  return branchesAt(session, at).find((b) => b.startId === startId) ?? null;
}

/**
 * The branch `entryId` is on at the nearest branch point above it (the entry may start it). Null when no branch point
 * is above the entry.
 */
export function branchHolding(session: Session, entryId: string): Branch | null {
  const path = pathTo(session, entryId);
  for (let i = path.length - 1; i >= 0; i--) {
    const b = branchStartingAt(session, path[i]!.id);
    if (b) return b;
  }
  return null;
}

/** The numbers of the branches taken to an entry (`branchesOnPath`): "2/2", or "2/2 › 1/3" under two branch points. */
export function branchNumbers(path: readonly Pick<Branch, "number" | "of">[]): string {
  return path.map((b) => `${b.number}/${b.of}`).join(" › ");
}

/** The branch points between the root and `entryId`, outermost first, with the branch taken at each. */
export function branchesOnPath(session: Session, entryId: string): Branch[] {
  const out: Branch[] = [];
  for (const e of pathTo(session, entryId)) {
    const b = branchStartingAt(session, e.id);
    if (b) out.push(b);
  }
  return out;
}

function computeBranches(session: Session, index: SessionBranches, atId: string | null): Branch[] {
  const ordered = childrenInTreeOrder(session, atId);
  return ordered.map((startId, i) => {
    const active = index.leafPath.has(startId);
    const leafId = active && session.leafId ? session.leafId : (index.newest.get(startId)?.id ?? startId);
    return {
      startId,
      atId,
      number: i + 1,
      of: ordered.length,
      name: branchName(session, index, startId, active),
      leafId,
      entries: index.size.get(startId) ?? 1,
      active,
    };
  });
}

/**
 * Every entry's subtree size and newest entry, in one iterative post-order walk from the roots (each entry once: a
 * parent-id cycle is cut where it closes).
 */
function subtrees(session: Session): Pick<SessionBranches, "size" | "newest"> {
  const size = new Map<string, number>();
  const newest = new Map<string, Entry>();
  const seen = new Set<string>();
  const order: Entry[] = [];
  const stack = [...session.roots];
  while (stack.length) {
    const id = stack.pop()!;
    const e = session.byId.get(id);
    if (!e || seen.has(id)) continue;
    seen.add(id);
    order.push(e);
    for (const c of session.children.get(id) ?? []) if (!seen.has(c)) stack.push(c);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const e = order[i]!;
    let n = 1;
    let top = e;
    for (const c of session.children.get(e.id) ?? []) {
      const below = newest.get(c);
      if (!below) continue; // not reached from here (a cycle's back edge)
      n += size.get(c)!;
      if (below.line > top.line) top = below;
    }
    size.set(e.id, n);
    newest.set(e.id, top);
  }
  return { size, newest };
}

/**
 * The first user prompt walking down from `startId` toward the branch's leaf (the session's leaf along the active path,
 * else the child whose subtree holds the branch's newest entry), at most `NAME_DEPTH` entries down.
 */
function branchName(session: Session, index: SessionBranches, startId: string, active: boolean): string {
  const target = index.newest.get(startId);
  let e = session.byId.get(startId);
  for (let depth = 0; e && depth < NAME_DEPTH; depth++) {
    if (e.type === "message" && e.role === "user") return entryLabel(e);
    const kids: string[] = session.children.get(e.id) ?? [];
    const next: string | undefined = active
      ? kids.find((k) => index.leafPath.has(k))
      : kids.find((k) => index.newest.get(k) === target);
    e = next ? session.byId.get(next) : undefined;
  }
  return entryLabel(session.byId.get(startId)!);
}
