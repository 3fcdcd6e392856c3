/**
 * pi 1.6's entries in the transcript page, for its `rendered` facts (tests and the log): system-prompt cards, context
 * edits and nested calls in the rows the page holds, and how many built rows show a different count of them than their
 * data. Kept up to date as rows arrive and are built, so a report costs nothing per row.
 */
import type { TranscriptRow } from "../protocol/transcript.js";

interface Counts {
  systemCards: number;
  contextEdits: number;
  nestedCalls: number;
}

const ZERO: Counts = { systemCards: 0, contextEdits: 0, nestedCalls: 0 };

function countsOf(r: TranscriptRow): Counts {
  if (r.kind !== "item") return ZERO;
  const items = [r.item, ...r.results];
  return {
    systemCards: r.item.kind === "system" ? 1 : 0,
    contextEdits: items.filter((i) => i.contextEdit).length,
    nestedCalls: items.reduce((n, i) => n + (i.kind === "toolResult" ? (i.nested?.length ?? 0) : 0), 0),
  };
}

export class Pi16Facts {
  private readonly byRow = new Map<number, Counts>();
  private readonly mismatched = new Set<number>();
  private total: Counts = { ...ZERO };

  /** Row `index` now holds `row` (a new row, or one sent again). */
  stored(index: number, row: TranscriptRow): void {
    this.add(this.byRow.get(index) ?? ZERO, -1);
    const counts = countsOf(row);
    this.byRow.set(index, counts);
    this.add(counts, 1);
    this.mismatched.delete(index);
  }

  /** Row `index` is no more (the rows from an append's start on are sent again). */
  removed(index: number): void {
    this.add(this.byRow.get(index) ?? ZERO, -1);
    this.byRow.delete(index);
    this.mismatched.delete(index);
  }

  /** Row `index` was built as `el`: does it show what its data holds? */
  built(index: number, el: HTMLElement): void {
    const want = this.byRow.get(index) ?? ZERO;
    const shown =
      Number(el.matches("article.row.system")) === want.systemCards &&
      el.querySelectorAll(".context-edit").length === want.contextEdits &&
      el.querySelectorAll("ul.nested li").length === want.nestedCalls;
    if (shown) this.mismatched.delete(index);
    else this.mismatched.add(index);
  }

  clear(): void {
    this.byRow.clear();
    this.mismatched.clear();
    this.total = { ...ZERO };
  }

  facts(): Counts & { pi16Mismatches: number } {
    return { ...this.total, pi16Mismatches: this.mismatched.size };
  }

  private add(c: Counts, sign: 1 | -1): void {
    this.total.systemCards += sign * c.systemCards;
    this.total.contextEdits += sign * c.contextEdits;
    this.total.nestedCalls += sign * c.nestedCalls;
  }
}
