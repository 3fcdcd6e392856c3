/**
 * Find in a transcript: every entry of the branch shown, whatever the page has built or folded (entries a compaction
 * replaced, a fork's inherited entries, rows not yet scrolled to), searched in the texts search indexes of them
 * (`entryUnits`). The page's own find widget sees only the rows on screen; this sees the branch.
 */
import { entryUnits } from "../../core/search/units.js";
import type { RowPlan } from "../../core/transcriptRows.js";
import { truncate } from "../../protocol/format.js";

export interface FindHit {
  entryId: string;
  role: string;
  /** The text around the first match, the match between « and ». */
  snippet: string;
  /** Not a row now: replaced by a compaction, or folded into the inherited entries (opening it shows it). */
  hidden: boolean;
}

/** Hits listed at most (the first ones on the branch). */
const FIND_MAX = 200;
/** Characters shown before and after a match. */
const AROUND = 60;

interface Unit {
  entryId: string;
  role: string;
  text: string;
  hidden: boolean;
}

/** The branch's texts, once per plan (every keystroke searches them again). */
const unitsByPlan = new WeakMap<RowPlan, Unit[]>();

function unitsOf(plan: RowPlan): Unit[] {
  let units = unitsByPlan.get(plan);
  if (!units) {
    units = plan.path.entries.flatMap((e) =>
      entryUnits(e).map((u) => ({ entryId: e.id, role: u.role, text: u.text, hidden: !plan.rowOf.has(e.id) })),
    );
    unitsByPlan.set(plan, units);
  }
  return units;
}

/**
 * The entries whose text holds `query`, case-insensitive as Ctrl+F finds (a substring, no stems), in branch order,
 * one hit per entry. The match is found in the text itself (a case-insensitive pattern of the query, Unicode-aware), so
 * the snippet marks what matched even where lower-casing changes a text's length ("İ").
 */
export function findOnBranch(plan: RowPlan, query: string): { hits: FindHit[]; more: boolean } {
  const hits: FindHit[] = [];
  const needle = query.trim();
  if (!needle) return { hits, more: false };
  const pattern = new RegExp(needle.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "iu");
  let last: string | null = null;
  for (const unit of unitsOf(plan)) {
    if (unit.entryId === last) continue; // one hit per entry: choosing it shows the whole entry
    const m = pattern.exec(unit.text);
    if (!m) continue;
    if (hits.length >= FIND_MAX) return { hits, more: true };
    last = unit.entryId;
    hits.push({
      entryId: unit.entryId,
      role: unit.role,
      snippet: around(unit.text, m.index, m[0].length),
      hidden: unit.hidden,
    });
  }
  return { hits, more: false };
}

function around(text: string, at: number, length: number): string {
  const before = text.slice(Math.max(0, at - AROUND), at);
  const after = text.slice(at + length, at + length + AROUND);
  return truncate(
    `${at > AROUND ? "…" : ""}${before}«${text.slice(at, at + length)}»${after}`,
    2 * AROUND + length + 4,
  );
}
