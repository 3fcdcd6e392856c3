/**
 * Fork-aware usage aggregation over a result set of store sessions. Every token and dollar is counted once:
 * - entries a fork inherited from a parent in the result count for the parent (shown as `inheritedCost`);
 * - an OMP subagent session whose parent is in the result is already counted through the parent's `task`
 *   tool result (`details.usage`), so its own records are shown on its row but never added to totals.
 */
import { dayOf, periodOf } from "../core/periods.js";
import { addRecord, emptyTotals, type UsageRecord, type UsageTotals } from "../core/usage.js";
import { computeOwnership, forEachUsage, isOk, sessionTitle, type StoreSession } from "./store/index.js";

export type GroupBy = "session" | "model" | "day" | "week" | "month" | "project";

export interface UsageRow extends UsageTotals {
  key: string;
  /** Cost of the active-path share of this row. */
  activeCost: number;
  /** Session rows of forks: the cost of entries copied from the parent (counted there, not here). */
  inheritedCost?: number;
  /** Session rows of OMP subagents counted through their parent's task result. */
  includedInParent?: boolean;
  /** Session rows: the other files that carry the same session id (each is a row of its own). */
  sameIdAs?: string[];
  name?: string | null;
  file?: string;
}

export interface UsageReport {
  by: GroupBy;
  rows: UsageRow[];
  /** Only with `cellKey`: per row key, totals by cell key. */
  cells?: Map<string, Map<string, UsageTotals>>;
  total: UsageTotals & { activeCost: number; inheritedCost: number };
}

export interface UsageOptions {
  by: GroupBy;
  /** Keep records on or after this day (YYYY-MM-DD), in `timeZone`. */
  since?: string;
  /** Keep records on or before this day (YYYY-MM-DD), in `timeZone`. */
  until?: string;
  /** The IANA time zone days are cut in (default: local). */
  timeZone?: string;
  /**
   * Also fill `cells`: row key → `cellKey(record)` → totals (e.g. day × model for a stacked chart). The record passed
   * may be one object filled again for each record (`forEachUsage`): read it, do not keep it.
   */
  cellKey?: (r: UsageRecord) => string;
}

export function usageReport(result: StoreSession[], options: UsageOptions): UsageReport {
  computeOwnership(result);
  const inResult = new Set(result);
  const rows = new Map<string, UsageRow>();
  const total = { ...emptyTotals(), activeCost: 0, inheritedCost: 0 };
  const cells = options.cellKey ? new Map<string, Map<string, UsageTotals>>() : undefined;
  /** The row under `mapKey` (session rows: the file, so two files with one id are two rows), labelled `key`. */
  const row = (mapKey: string, key = mapKey) => {
    let r = rows.get(mapKey);
    if (!r) rows.set(mapKey, (r = { key, ...emptyTotals(), activeCost: 0 }));
    return r;
  };
  for (const s of result) {
    if (!isOk(s)) continue;
    const sum = s.summary;
    const includedInParent = sum.subagent && s.parent !== null && inResult.has(s.parent);
    const sessionRow = options.by === "session" ? row(s.file, sum.id) : undefined;
    if (sessionRow) {
      // The title the list and the tree show (a fork: what it did).
      sessionRow.name = sessionTitle(s);
      sessionRow.file = s.file;
      if (s.sameIdAs.length) sessionRow.sameIdAs = s.sameIdAs.map((o) => o.file);
      if (s.parent && inResult.has(s.parent)) sessionRow.inheritedCost = 0;
      if (includedInParent) sessionRow.includedInParent = true;
    }
    // Records are read without keeping them (`forEachUsage` may fill one object again for each).
    forEachUsage(sum, (r) => {
      const day = dayOf(r.time, options.timeZone);
      if (options.since && day < options.since) return;
      if (options.until && day > options.until) return;
      if (s.inherited.has(r.entryId)) {
        total.inheritedCost += r.cost;
        if (sessionRow) sessionRow.inheritedCost = (sessionRow.inheritedCost ?? 0) + r.cost;
        return;
      }
      if (includedInParent && options.by !== "session") return;
      const key =
        options.by === "session"
          ? s.file
          : options.by === "model"
            ? modelKey(r)
            : options.by === "project"
              ? (sum.cwd ?? "(unknown)")
              : periodOf(day, options.by);
      const target = sessionRow ?? row(key);
      addRecord(target, r);
      if (cells && options.cellKey) {
        let byCell = cells.get(key);
        if (!byCell) cells.set(key, (byCell = new Map()));
        const ck = options.cellKey(r);
        let cell = byCell.get(ck);
        if (!cell) byCell.set(ck, (cell = emptyTotals()));
        addRecord(cell, r);
      }
      if (r.active) target.activeCost += r.cost;
      if (includedInParent) return;
      addRecord(total, r);
      if (r.active) total.activeCost += r.cost;
    });
  }
  // A model row of records that cost nothing and used no token is none (pi's breakdown leaves it out too).
  const spent = (r: UsageRow) => r.cost > 0 || r.input + r.output + r.cacheRead + r.cacheWrite > 0;
  const list = [...rows.values()].filter(
    (r) => (r.messages > 0 && (options.by !== "model" || spent(r))) || (r.inheritedCost ?? 0) > 0,
  );
  if (options.by === "day" || options.by === "week" || options.by === "month")
    list.sort((a, b) => a.key.localeCompare(b.key));
  else list.sort((a, b) => b.cost - a.cost || a.key.localeCompare(b.key));
  return { by: options.by, rows: list, total, ...(cells ? { cells } : {}) };
}

/** The records pi's `/session` breakdown (`getUsageCostBreakdown()`) puts in one row, whatever model made them. */
const TOOLS_AND_SUMMARIES = new Set<UsageRecord["source"]>(["tool_result", "branch_summary", "compaction_summary"]);

/**
 * A record's model row, as pi 1.6's `getUsageCostBreakdown()` keys it: `provider/model` of the model served, and one
 * "Tools/summaries" row for tool results' and summaries' own calls; a server compaction's tokens kept apart (they
 * carry no price).
 */
export function modelKey(r: UsageRecord): string {
  if (TOOLS_AND_SUMMARIES.has(r.source)) return "Tools/summaries";
  return `${r.provider}/${r.model}${r.source === "server_compaction" ? " (server compaction)" : ""}`;
}
