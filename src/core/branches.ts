/**
 * One identity per branch, shared by the tree, the transcript's switcher, compare and the CLI: its number among the
 * branches of its branch point in the order pi's `/tree` lists them (the one holding the session's leaf first, then
 * by timestamp, as `getTree` sorts children), and its name by one rule (the branch's first user prompt on the way to
 * its leaf, else what its first entry is). The session's leaf, not the branch a view happens to show, decides the
 * order, so a number does not change when a view switches branches or filters entries.
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

const cache = new WeakMap<Session, Map<string | null, Branch[]>>();

/** The branches at a branch point (`atId`'s children, or the roots for null), numbered as pi's `/tree` shows them. */
export function branchesAt(session: Session, atId: string | null): Branch[] {
  let bySession = cache.get(session);
  if (!bySession) cache.set(session, (bySession = new Map()));
  let branches = bySession.get(atId);
  if (!branches) bySession.set(atId, (branches = computeBranches(session, atId)));
  return branches;
}

/** The branch that starts at `startId`, when its parent has more than one child (else null: no branch starts there). */
export function branchStartingAt(session: Session, startId: string): Branch | null {
  const e = session.byId.get(startId);
  if (!e) return null;
  const at = e.parentId !== null && session.byId.has(e.parentId) ? e.parentId : null;
  const branches = branchesAt(session, at);
  return branches.length > 1 ? (branches.find((b) => b.startId === startId) ?? null) : null;
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

/** The branch points between the root and `entryId`, outermost first, with the branch taken at each. */
export function branchesOnPath(session: Session, entryId: string): Branch[] {
  const out: Branch[] = [];
  for (const e of pathTo(session, entryId)) {
    const b = branchStartingAt(session, e.id);
    if (b) out.push(b);
  }
  return out;
}

function computeBranches(session: Session, atId: string | null): Branch[] {
  const kids = atId === null ? session.roots : (session.children.get(atId) ?? []);
  const leafPath = new Set(pathTo(session, session.leafId).map((e) => e.id));
  // pi's /tree: the child whose subtree holds the leaf first, the others in getTree's (timestamp) order.
  const ordered = [...kids.filter((k) => leafPath.has(k)), ...kids.filter((k) => !leafPath.has(k))];
  return ordered.map((startId, i) => {
    const sub = subtree(session, startId);
    const active = leafPath.has(startId);
    const leafId = active && session.leafId ? session.leafId : newest(sub).id;
    return {
      startId,
      atId,
      number: i + 1,
      of: ordered.length,
      name: branchName(session, startId, leafId),
      leafId,
      entries: sub.length,
      active,
    };
  });
}

/** `id` and everything under it, each entry once (a parent-id cycle must not loop). */
function subtree(session: Session, id: string): Entry[] {
  const out: Entry[] = [];
  const seen = new Set<string>();
  const stack = [id];
  while (stack.length) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    const e = session.byId.get(next);
    if (!e) continue;
    out.push(e);
    for (const c of session.children.get(e.id) ?? []) stack.push(c);
  }
  return out;
}

function newest(entries: Entry[]): Entry {
  return entries.reduce((a, b) => (b.line > a.line ? b : a));
}

function branchName(session: Session, startId: string, leafId: string): string {
  const path = pathTo(session, leafId);
  const from = Math.max(
    0,
    path.findIndex((e) => e.id === startId),
  );
  for (let i = from; i < path.length; i++) {
    const e = path[i]!;
    if (e.type === "message" && e.role === "user") return entryLabel(e);
  }
  return entryLabel(session.byId.get(startId)!);
}
