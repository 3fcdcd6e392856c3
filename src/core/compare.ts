/**
 * Two branches side by side: two leaves of one session, or a fork's leaf and its parent's (a fork copies its
 * parent's entries with their ids, so both paths share the copied prefix). The fork point is the last entry both
 * paths share; each side is what its path holds after it.
 */
import { isMetadataEntry } from "./summaryFacts.js";
import { messageText } from "./entryText.js";
import { type Entry, pathTo, type Session } from "./session/index.js";
import type { ToolTouch } from "./toolFiles.js";

export interface BranchEnd {
  session: Session;
  leafId: string | null;
}

export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface SideFacts {
  leaf: string | null;
  /** The whole path to the leaf, and the entries after the fork point, in path order. */
  path: Entry[];
  after: Entry[];
  cost: number;
  tokens: TokenCounts;
  /** The file tool calls after the fork point, in order, with the entry that made each. */
  touches: (ToolTouch & { entryId: string })[];
  /** The text of the last assistant message after the fork point (null when there is none). */
  lastAssistant: string | null;
  /** First and last entry times after the fork point (ms; NaN when unknown). */
  firstTime: number;
  lastTime: number;
}

export interface Comparison {
  /** The last entry both paths share (null when neither file holds it, or they share nothing). */
  forkPoint: Entry | null;
  forkPointId: string | null;
  sides: [SideFacts, SideFacts];
}

/** The newest entry (last in the file) below `id`, or `id` itself: where a branch that starts at `id` ends. */
export function newestLeafBelow(session: Session, id: string): string {
  let best = session.byId.get(id);
  if (!best) return id;
  const stack: string[] = [];
  for (const child of session.children.get(id) ?? []) stack.push(child);
  const seen = new Set<string>();
  while (stack.length) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    const entry = session.byId.get(next);
    if (!entry) continue;
    if (entry.line > best.line) best = entry;
    // One by one: a spread of 100k children would overflow the call stack.
    for (const child of session.children.get(next) ?? []) stack.push(child);
  }
  return best.id;
}

/** The leaves of a session (entries without children), newest first. */
export function leavesOf(session: Session): Entry[] {
  return session.entries
    .filter((e) => !e.shadowed && !(session.children.get(e.id)?.length ?? 0))
    .sort((a, b) => b.line - a.line);
}

function time(e: Entry): number {
  return e.timestamp ? Date.parse(e.timestamp) : Number.NaN;
}

function sideFacts(leaf: string | null, path: Entry[], after: Entry[]): SideFacts {
  const tokens: TokenCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let cost = 0;
  const touches: SideFacts["touches"] = [];
  let lastAssistant: string | null = null;
  let firstTime = Number.NaN;
  let lastTime = Number.NaN;
  for (const e of after) {
    for (const u of e.usage === undefined ? [] : Array.isArray(e.usage) ? e.usage : [e.usage]) {
      tokens.input += u.input;
      tokens.output += u.output;
      tokens.cacheRead += u.cacheRead;
      tokens.cacheWrite += u.cacheWrite;
      cost += u.cost;
    }
    for (const t of e.touches ?? []) touches.push({ ...t, entryId: e.id });
    // A name or a label written later is no work on the branch: it stretches no duration.
    const t = isMetadataEntry(e) ? Number.NaN : time(e);
    if (Number.isFinite(t)) {
      if (!(t >= firstTime)) firstTime = t;
      if (!(t <= lastTime)) lastTime = t;
    }
  }
  for (let i = after.length - 1; i >= 0 && lastAssistant === null; i--) {
    const e = after[i]!;
    if (e.role !== "assistant" || !e.message) continue;
    const text = messageText(e.message).trim();
    if (text) lastAssistant = text;
  }
  return { leaf, path, after, cost, tokens, touches, lastAssistant, firstTime, lastTime };
}

/**
 * The ids a path descends from, root first: the path's entries, after the parent its first entry names when that
 * entry is not in the file (a fork file may start below the entry it forked at).
 */
function lineOf(path: Entry[], session: Session): string[] {
  const first = path[0];
  const above = first?.parentId && !session.byId.has(first.parentId) ? [first.parentId] : [];
  return [...above, ...path.map((e) => e.id)];
}

/**
 * Compare the paths to two leaves (of one session, or of a fork and its parent). The fork point is the deepest id
 * both lines share; each side is its path after it (the whole path when they share nothing).
 */
export function compareBranches(a: BranchEnd, b: BranchEnd): Comparison {
  const pa = pathTo(a.session, a.leafId);
  const pb = pathTo(b.session, b.leafId);
  const la = lineOf(pa, a.session);
  const lb = lineOf(pb, b.session);
  const inA = new Map(la.map((id, i) => [id, i]));
  let forkId: string | null = null;
  for (let j = lb.length - 1; j >= 0 && forkId === null; j--) if (inA.has(lb[j]!)) forkId = lb[j]!;
  const after = (path: Entry[], line: string[]) => {
    if (forkId === null) return path;
    const at = line.indexOf(forkId);
    return path.slice(at + 1 - (line.length - path.length));
  };
  return {
    forkPoint: forkId === null ? null : (a.session.byId.get(forkId) ?? b.session.byId.get(forkId) ?? null),
    forkPointId: forkId,
    sides: [sideFacts(a.leafId, pa, after(pa, la)), sideFacts(b.leafId, pb, after(pb, lb))],
  };
}
