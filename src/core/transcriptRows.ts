/**
 * The rows of the transcript view of one branch. Planning reads only what the parser keeps of every entry (ids,
 * types, roles, timestamps, compaction ranges), never a body, so a 40,000-entry branch is planned in milliseconds;
 * a row's content is built when the page asks for it. An assistant message and the tool results that answer it share
 * a row. A compaction hides the entries it replaced until its card is opened; a fork's copies fold into one row.
 */
import { entryLabel } from "./entryText.js";
import { branchStartingAt } from "./branches.js";
import type { ToolResultItem, TranscriptImage, TranscriptItem, TranscriptRow } from "../protocol/transcript.js";
import type { Entry } from "./session/index.js";
import { type BranchPath, hasTranscriptItem, transcriptItem } from "./transcript.js";

export type PlannedRow =
  { kind: "item"; at: number; results: number[]; dimmed: boolean } | { kind: "inherited"; from: number; to: number };

export interface RowPlan {
  path: BranchPath;
  rows: PlannedRow[];
  /** Row of each visible entry (an entry folded into the inherited row maps to it; hidden entries are absent). */
  rowOf: Map<string, number>;
  /** Compactions on the path: entry id → the path position of the first entry it kept. */
  compactions: Map<string, number>;
  options: PlanOptions;
}

export interface PlanOptions {
  /** Show a fork's copied entries one by one instead of one folded row. */
  showInherited: boolean;
  /** Compactions whose replaced entries are shown (dimmed). */
  expanded: ReadonlySet<string>;
}

const isToolResult = (e: Entry) => e.type === "message" && e.role === "toolResult";

export function planRows(path: BranchPath, options: PlanOptions): RowPlan {
  const { entries, session } = path;
  const compactions = new Map<string, number>();
  let hiddenBefore = 0;
  let replacedBefore = 0;
  const kept = new Map(session.compactions.map((c) => [c.id, c.keptFromId]));
  entries.forEach((e, i) => {
    if (e.type !== "compaction") return;
    const k = path.position.get(kept.get(e.id) ?? "") ?? -1;
    if (k <= 0 || k >= i) return;
    compactions.set(e.id, k);
    replacedBefore = Math.max(replacedBefore, k);
    if (!options.expanded.has(e.id)) hiddenBefore = Math.max(hiddenBefore, k);
  });

  const rows: PlannedRow[] = [];
  const rowOf = new Map<string, number>();
  let start = 0;
  if (!options.showInherited && path.inherited?.size) {
    while (start < entries.length && path.inherited.has(entries[start]!.id)) start++;
    if (start > 0) {
      rows.push({ kind: "inherited", from: 0, to: start });
      for (let i = 0; i < start; i++) rowOf.set(entries[i]!.id, 0);
    }
  }
  // The last member (entry position) of the latest item row, to attach the tool results that follow it.
  let lastMember = -1;
  for (let i = Math.max(start, hiddenBefore); i < entries.length; i++) {
    const e = entries[i]!;
    if (!hasTranscriptItem(e)) continue;
    const last = rows[rows.length - 1];
    const dimmed = i < replacedBefore;
    if (
      isToolResult(e) &&
      last?.kind === "item" &&
      last.results.length < ROW_CAPS.results &&
      last.dimmed === dimmed &&
      entries[last.at]!.role === "assistant" &&
      entries.slice(lastMember + 1, i).every((x) => !hasTranscriptItem(x))
    ) {
      last.results.push(i);
      rowOf.set(e.id, rows.length - 1);
      lastMember = i;
      continue;
    }
    rows.push({ kind: "item", at: i, results: [], dimmed });
    rowOf.set(e.id, rows.length - 1);
    lastMember = i;
  }
  return { path, rows, rowOf, compactions, options };
}

/** How much of each text a row carries before "show all" (a row is sent whole, so it must stay small). */
export interface ClipLimits {
  text: number;
  output: number;
}
export const ROW_LIMITS: ClipLimits = { text: 32 * 1024, output: 8 * 1024 };
/** "Show all": each text whole up to this (beyond it, the session file has the rest). */
const FULL_LIMITS: ClipLimits = { text: 2 * 1024 * 1024, output: 2 * 1024 * 1024 };
/** What one row lists at most, whatever the session holds: a row is sent and built whole. */
export const ROW_CAPS = { images: 20, edits: 50, blocks: 200, results: 50 };

/** An item's images as a row shows them (`rowData` numbers them, `rowImages` finds them by number). */
const shownImages = (images: TranscriptImage[]) => images.slice(0, ROW_CAPS.images);

class Clipper {
  clipped = false;
  /** Parts left out of the row by the caps. */
  readonly omitted = { images: 0, edits: 0, blocks: 0 };
  constructor(private readonly limits: ClipLimits) {}
  cap<T>(list: T[], max: number, kind: keyof Clipper["omitted"]): T[] {
    if (list.length <= max) return list;
    this.omitted[kind] += list.length - max;
    this.clipped = true;
    return list.slice(0, max);
  }
  private cut(text: string, max: number): string {
    if (text.length <= max) return text;
    this.clipped = true;
    return text.slice(0, max);
  }
  text = (t: string) => this.cut(t, this.limits.text);
  output = (t: string) => this.cut(t, this.limits.output);
}

/** Images travel without their data (the page asks for each by number when it shows it). */
function imageRefs(images: TranscriptImage[], next: { n: number }, c: Clipper): TranscriptImage[] {
  c.cap(images, ROW_CAPS.images, "images");
  return shownImages(images).map((i) => ({ mimeType: i.mimeType, data: null, blob: i.blob, ref: next.n++ }));
}

function clipItem(written: TranscriptItem, c: Clipper, next: { n: number }): TranscriptItem {
  const edit = written.contextEdit;
  const item = edit?.text ? { ...written, contextEdit: { ...edit, text: c.output(edit.text) } } : written;
  switch (item.kind) {
    case "user":
      return { ...item, text: c.text(item.text), images: imageRefs(item.images, next, c) };
    case "assistant":
      return {
        ...item,
        blocks: c.cap(item.blocks, ROW_CAPS.blocks, "blocks").map((b) => {
          if (b.type !== "toolCall") return { ...b, text: c.text(b.text) };
          const call = { ...b, summary: c.output(b.summary), arguments: c.output(b.arguments) };
          if (b.edits)
            call.edits = c
              .cap(b.edits, ROW_CAPS.edits, "edits")
              .map((e) => ({ oldText: c.output(e.oldText), newText: c.output(e.newText) }));
          if (b.written !== undefined) call.written = c.output(b.written);
          return call;
        }),
      };
    case "toolResult":
      return { ...item, text: c.output(item.text), images: imageRefs(item.images, next, c) };
    case "bash":
      return { ...item, command: c.output(item.command), output: c.output(item.output) };
    case "compaction":
    case "branchSummary":
      return { ...item, summary: c.text(item.summary) };
    case "custom":
      return { ...item, text: c.text(item.text) };
    case "note":
      return { ...item, text: c.output(item.text) };
    case "system":
      return {
        ...item,
        sections: c.cap(item.sections, ROW_CAPS.blocks, "blocks").map((sec) => ({
          name: c.output(sec.name),
          text: sec.text === null ? null : c.text(sec.text),
        })),
        toolsAdded: c.cap(item.toolsAdded, ROW_CAPS.blocks, "blocks").map(c.output),
        toolsRemoved: c.cap(item.toolsRemoved, ROW_CAPS.blocks, "blocks").map(c.output),
      };
  }
}

/** The branch the entry starts, when it has siblings (a branch point above it): numbered as everywhere. */
function branchOf(path: BranchPath, e: Entry): { position: number; count: number } | null {
  const b = branchStartingAt(path.session, e.id);
  return b && { position: b.number, count: b.of };
}

/** Milliseconds since the previous message on the path (looking back a bounded number of entries). */
function sincePrevious(path: BranchPath, at: number): number | null {
  const t = Date.parse(path.entries[at]!.timestamp ?? "");
  if (!Number.isFinite(t)) return null;
  for (let i = at - 1; i >= Math.max(0, at - 200); i--) {
    const e = path.entries[i]!;
    if (e.type !== "message") continue;
    const p = Date.parse(e.timestamp ?? "");
    return Number.isFinite(p) ? Math.max(0, t - p) : null;
  }
  return null;
}

/**
 * Row `index` of the plan as the page shows it. `full` sends every text whole up to 2 MB ("show all"); otherwise long
 * texts are clipped to `ROW_LIMITS`. Lists are capped by `ROW_CAPS` either way (`omitted` counts what was left out).
 * Images are numbered in order (the message's, then each tool result's).
 */
export function rowData(plan: RowPlan, index: number, parentTitle: string, full = false): TranscriptRow | null {
  const row = plan.rows[index];
  if (!row) return null;
  if (row.kind === "inherited") return { kind: "inherited", index, entries: row.to - row.from, parentTitle };
  const item = transcriptItem(plan.path, row.at);
  if (!item) return null;
  const c = new Clipper(full ? FULL_LIMITS : ROW_LIMITS);
  const next = { n: 0 };
  const e = plan.path.entries[row.at]!;
  const out: TranscriptRow = {
    kind: "item",
    index,
    item: clipItem(item, c, next),
    results: row.results
      .map((i) => transcriptItem(plan.path, i))
      .filter((r): r is ToolResultItem => r?.kind === "toolResult")
      .map((r) => clipItem(r, c, next) as ToolResultItem),
    dimmed: row.dimmed,
    branch: branchOf(plan.path, e),
    sincePrevious: item.kind === "assistant" ? sincePrevious(plan.path, row.at) : null,
    clipped: c.clipped,
  };
  if (c.omitted.images || c.omitted.edits || c.omitted.blocks) out.omitted = { ...c.omitted };
  const from = item.kind === "branchSummary" && item.fromId ? plan.path.session.byId.get(item.fromId) : undefined;
  if (from) out.fromLabel = entryLabel(from, 80);
  if (item.kind === "compaction" && plan.compactions.has(item.entryId))
    out.expanded = plan.options.expanded.has(item.entryId);
  return out;
}

/** The images of a row in the order `rowData` numbers them, with their data. */
export function rowImages(plan: RowPlan, index: number): TranscriptImage[] {
  const row = plan.rows[index];
  if (row?.kind !== "item") return [];
  const items = [row.at, ...row.results].map((i) => transcriptItem(plan.path, i));
  return items.flatMap((i) => (i?.kind === "user" || i?.kind === "toolResult" ? shownImages(i.images) : []));
}
