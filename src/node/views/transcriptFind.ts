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

/** Case-folded as a reader expects of find (no stems, no word bounds: a substring, as Ctrl+F finds it). */
const fold = (s: string) => s.toLocaleLowerCase();

export function findOnBranch(plan: RowPlan, query: string): { hits: FindHit[]; more: boolean } {
  const needle = fold(query.trim());
  const hits: FindHit[] = [];
  if (!needle) return { hits, more: false };
  for (const e of plan.path.entries) {
    for (const unit of entryUnits(e)) {
      const at = fold(unit.text).indexOf(needle);
      if (at < 0) continue;
      if (hits.length >= FIND_MAX) return { hits, more: true };
      hits.push({
        entryId: e.id,
        role: unit.role,
        snippet: around(unit.text, at, needle.length),
        hidden: !plan.rowOf.has(e.id),
      });
      break; // one hit per entry: choosing it shows the whole entry
    }
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
