/**
 * One session's usage: cost and tokens per branch segment, the per-turn timeline and the context size over time, on
 * the active path and on every other branch.
 */
import { type Entry, pathTo, type Session } from "../../core/session/index.js";
import { branchesOnPath, branchNumbers, childrenInTreeOrder } from "../../core/branches.js";
import { entryLabel } from "../../core/entryText.js";
import { addRecord, emptyTotals, usageRecords, type UsageRecord } from "../../core/usage.js";
import type { SegmentRow, SessionUsageModel } from "../../protocol/views.js";
import { buckets } from "./dashboard.js";

/**
 * Branch segments: maximal chains between branch points, each entry in exactly one segment, so the segments add up
 * to the session's total. `inherited`: a fork's entries copied from its parent (their cost is the parent's).
 */
export function sessionUsageModel(session: Session, inherited: Set<string>, title: string): SessionUsageModel {
  const records = usageRecords(session);
  const byEntry = new Map<string, UsageRecord[]>();
  for (const r of records) {
    let list = byEntry.get(r.entryId);
    if (!list) byEntry.set(r.entryId, (list = []));
    list.push(r);
  }
  const activePath = pathTo(session, session.leafId);
  const active = new Set(activePath.map((e) => e.id));
  const segments: SegmentRow[] = [];
  const stack: { id: string; depth: number }[] = [...session.roots].reverse().map((id) => ({ id, depth: 0 }));
  const seen = new Set<string>();
  while (stack.length) {
    const { id, depth } = stack.pop()!;
    if (seen.has(id)) continue;
    const first = session.byId.get(id)!;
    const totals = emptyTotals();
    let activeCost = 0;
    let inheritedCost = 0;
    let entries = 0;
    let label: string | null = null;
    let current = id;
    let kids: string[];
    for (;;) {
      seen.add(current);
      entries++;
      const e = session.byId.get(current)!;
      if (label === null && e.role === "user") label = entryLabel(e, 80);
      for (const r of byEntry.get(current) ?? []) {
        if (inherited.has(current)) {
          inheritedCost += r.cost;
          continue;
        }
        addRecord(totals, r);
        if (r.active) activeCost += r.cost;
      }
      kids = session.children.get(current) ?? [];
      if (kids.length !== 1 || seen.has(kids[0]!)) break;
      current = kids[0]!;
    }
    segments.push({
      startId: id,
      endId: current,
      label: label ?? entryLabel(first, 80),
      entries,
      depth,
      active: active.has(id),
      inheritedCost,
      ...buckets(totals),
      activeCost,
    });
    // Like the tree: the branch holding the active leaf first.
    const ordered = childrenInTreeOrder(session, current);
    for (let i = ordered.length - 1; i >= 0; i--)
      if (!seen.has(ordered[i]!)) stack.push({ id: ordered[i]!, depth: depth + 1 });
  }
  const total = emptyTotals();
  let activeCost = 0;
  let inheritedCost = 0;
  for (const r of records) {
    if (inherited.has(r.entryId)) {
      inheritedCost += r.cost;
      continue;
    }
    addRecord(total, r);
    if (r.active) activeCost += r.cost;
  }
  const { turns, compactions } = pathSeries(session, activePath, byEntry);
  return {
    kind: "sessionUsage",
    file: session.file,
    title,
    totals: { ...buckets(total), activeCost, inheritedCost },
    segments,
    turns,
    compactions,
    ...everyBranch(session, records, byEntry, active, inherited),
  };
}

/** Branches charted apart at most (the rest are counted, and their turns are still in `allTurns`). */
const CHARTED_BRANCHES = 12;

/**
 * Every branch of the session (one per leaf), in the order pi's `/tree` lists them (the active one first), the first
 * `CHARTED_BRANCHES` with their path's turns and compactions; and every assistant turn the session paid for once (a
 * fork's copies are its parent's), in file order, marked when on the active path. One walk finds the leaves in order;
 * only the charted ones have their paths followed.
 */
function everyBranch(
  session: Session,
  records: readonly UsageRecord[],
  byEntry: Map<string, UsageRecord[]>,
  active: Set<string>,
  inherited: Set<string>,
): Pick<SessionUsageModel, "branches" | "moreBranches" | "allTurns"> {
  const leaves = leavesInTreeOrder(session);
  const branches = leaves.slice(0, CHARTED_BRANCHES).map((leaf) => {
    const path = branchesOnPath(session, leaf);
    return {
      leafId: leaf,
      numbers: branchNumbers(path),
      name: path.at(-1)?.name ?? "",
      active: active.has(leaf),
      ...pathSeries(session, pathTo(session, leaf), byEntry),
    };
  });
  const allTurns = records
    .filter((r) => r.source === "assistant" && !inherited.has(r.entryId))
    .map((r) => ({ ...turnPoint(r), active: active.has(r.entryId) }));
  return { branches, moreBranches: Math.max(0, leaves.length - CHARTED_BRANCHES), allTurns };
}

/** The session's leaves as pi's `/tree` lists them: depth first, the child holding the active leaf first. */
function leavesInTreeOrder(session: Session): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const stack = [...childrenInTreeOrder(session, null)].reverse();
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id) || !session.byId.has(id)) continue;
    seen.add(id);
    const kids = childrenInTreeOrder(session, id).filter((k) => !seen.has(k));
    if (!kids.length) out.push(id);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
  return out;
}

const turnPoint = (r: UsageRecord) => ({
  entryId: r.entryId,
  time: r.time,
  cost: r.cost,
  context: r.input + r.cacheRead + r.cacheWrite,
  model: r.model,
});

/** The assistant turns along a path and its compactions (after which turn the context was replaced). */
function pathSeries(
  session: Session,
  path: readonly Entry[],
  byEntry: Map<string, UsageRecord[]>,
): Pick<SessionUsageModel, "turns" | "compactions"> {
  const turns: SessionUsageModel["turns"] = [];
  const compactions: SessionUsageModel["compactions"] = [];
  for (const e of path) {
    if (e.type === "compaction") {
      const info = session.compactions.find((c) => c.id === e.id);
      compactions.push({
        entryId: e.id,
        afterTurn: turns.length - 1,
        tokensBefore: info?.tokensBefore ?? null,
        tokensAfter: info?.tokensAfter ?? null,
      });
    }
    for (const r of byEntry.get(e.id) ?? []) if (r.source === "assistant") turns.push(turnPoint(r));
  }
  return { turns, compactions };
}
