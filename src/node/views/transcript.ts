/**
 * One open transcript: a branch of a session planned into rows (src/core/transcriptRows.ts), served to the view in
 * chunks under a byte budget, with the images, full texts, branch choices and edit texts it asks for. No vscode: the
 * panel (src/extension/webviews/transcriptPanel.ts) and the bench drive the same class.
 */
import { pathTo, type Session } from "../../core/session/index.js";
import { branchPath, transcriptItem } from "../../core/transcript.js";
import { planRows, type RowPlan, rowData, rowImages } from "../../core/transcriptRows.js";
import type { TranscriptHeader, TranscriptRow } from "../../protocol/transcript.js";
import { agentDirOf, readBlob } from "../blobs.js";
import { sessionTitle, type StoreSession } from "../store/index.js";
import { type Branch, branchesAt } from "../../core/branches.js";

/** The first message to the page stays under this (the bound is 256 KB; headers and framing take the rest). */
export const FIRST_CHUNK_BYTES = 128 * 1024;
/** Rows around the anchor in the first message, at most. */
const FIRST_CHUNK_ROWS = 30;
/** Images the page shows inline: raster types a browser decodes, as base64. */
const SHOWN_IMAGE = /^image\/(png|jpeg|gif|webp)$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export interface BranchChoice extends Branch {
  /** The sibling entry where the branch starts (`startId`). */
  entryId: string;
  /** The transcript shows this branch. */
  current: boolean;
}

export class TranscriptDocument {
  showInherited = false;
  readonly expanded = new Set<string>();
  plan!: RowPlan;
  /** How many entries the session had when the rows were last planned (a live update looks at the ones after). */
  entriesSeen = 0;

  /**
   * `leafId` undefined: follow the session's active leaf (and its growth); otherwise the branch ending there.
   * `stored`: the session as the store knows it, for a fork's copies and its parent; undefined outside the store.
   */
  constructor(
    public session: Session,
    public stored: StoreSession | undefined,
    public leafId: string | undefined,
  ) {
    this.rebuild();
  }

  get parent(): StoreSession | null {
    return this.stored?.parent ?? null;
  }

  get parentTitle(): string {
    return this.parent ? sessionTitle(this.parent) : "";
  }

  /** Plan again (after a toggle, a branch switch, or new entries in `session`). */
  rebuild(session = this.session, stored = this.stored): void {
    this.session = session;
    this.stored = stored;
    if (this.leafId !== undefined && !session.byId.has(this.leafId)) this.leafId = undefined;
    // The agent went on from the branch the reader chose: follow it as it grows.
    if (this.leafId !== undefined && pathTo(session, session.leafId).some((e) => e.id === this.leafId))
      this.leafId = undefined;
    // Only a fork with a parent has copies to fold (two files sharing one id have none).
    const inherited = stored?.parent ? stored.inherited : undefined;
    const path = branchPath(session, { leafId: this.leafId ?? session.leafId, inherited });
    this.plan = planRows(path, { showInherited: this.showInherited, expanded: this.expanded });
    this.entriesSeen = session.entries.length;
  }

  get title(): string {
    return this.stored ? sessionTitle(this.stored) : (this.session.name ?? this.session.header.id ?? "Session");
  }

  header(): TranscriptHeader {
    const s = this.session;
    const entries = this.plan.path.entries;
    const leaf = entries[entries.length - 1]?.id ?? null;
    const inherited = entries.filter((e) => this.plan.path.inherited?.has(e.id)).length;
    return {
      file: s.file,
      title: this.title,
      agent: s.flavor,
      cwd: typeof s.header.cwd === "string" ? s.header.cwd : "",
      leafId: leaf,
      activeLeaf: leaf === s.leafId,
      rows: this.plan.rows.length,
      entries: entries.length,
      replaced: this.replacedCount(),
      fork: this.parent
        ? { parentTitle: this.parentTitle, forkPointId: this.stored?.forkPointId ?? null, inherited }
        : null,
      showInherited: this.showInherited,
      replacedShown: [...this.plan.compactions.keys()].filter((id) => this.expanded.has(id)).length,
      recap: this.stored?.recap ?? null,
    };
  }

  /**
   * The path's entries a closed compaction card hides: before the furthest kept entry of a closed card (`reveal`'s
   * rule), and without a row (a fork's inherited entries fold into a row of their own, and are not counted).
   */
  private replacedCount(): number {
    const { path, rowOf, compactions } = this.plan;
    let until = 0;
    for (const [id, kept] of compactions) if (!this.expanded.has(id)) until = Math.max(until, kept);
    let n = 0;
    for (let i = 0; i < until && i < path.entries.length; i++) if (!rowOf.has(path.entries[i]!.id)) n++;
    return n;
  }

  row(index: number, full = false): TranscriptRow | null {
    return rowData(this.plan, index, this.parentTitle, full);
  }

  /** Rows `start`..`end` (exclusive), stopping early once `budget` bytes of JSON are reached (at least one row). */
  rows(start: number, end: number, budget = Infinity): TranscriptRow[] {
    const out: TranscriptRow[] = [];
    let bytes = 0;
    for (let i = Math.max(0, start); i < Math.min(end, this.plan.rows.length); i++) {
      const r = this.row(i);
      if (!r) continue;
      bytes += JSON.stringify(r).length;
      if (out.length && bytes > budget) break;
      out.push(r);
    }
    return out;
  }

  /** The first message's rows: around `anchor`, or the end of the branch (read upwards), within the budget. */
  firstChunk(anchor: number | null): { start: number; rows: TranscriptRow[] } {
    const count = this.plan.rows.length;
    if (anchor !== null) {
      const start = Math.max(0, Math.min(anchor, count - 1) - 10);
      return { start, rows: this.rows(start, start + FIRST_CHUNK_ROWS, FIRST_CHUNK_BYTES) };
    }
    const rows: TranscriptRow[] = [];
    let bytes = 0;
    for (let i = count - 1; i >= Math.max(0, count - FIRST_CHUNK_ROWS); i--) {
      const r = this.row(i);
      if (!r) break;
      bytes += JSON.stringify(r).length;
      if (rows.length && bytes > FIRST_CHUNK_BYTES) break;
      rows.unshift(r);
    }
    return { start: rows[0]?.index ?? count, rows };
  }

  /**
   * The row showing `entryId`, after opening what hides it (a fork's folded copies, the compactions that replaced
   * it); null when the entry is not on this branch.
   */
  reveal(entryId: string): number | null {
    const at = this.plan.path.position.get(entryId);
    if (at === undefined) return null;
    let changed = false;
    if (this.plan.path.inherited?.has(entryId) && !this.showInherited) {
      this.showInherited = true;
      changed = true;
    }
    for (const [id, kept] of this.plan.compactions)
      if (at < kept && !this.expanded.has(id)) {
        this.expanded.add(id);
        changed = true;
      }
    if (changed) this.rebuild();
    // An entry with no row of its own (extension state) shows at the next row that has one.
    const entries = this.plan.path.entries;
    for (let i = at; i < entries.length; i++) {
      const row = this.plan.rowOf.get(entries[i]!.id);
      if (row !== undefined) return row;
    }
    return null;
  }

  toggleCompaction(entryId: string): void {
    if (!this.plan.compactions.has(entryId)) return;
    if (!this.expanded.delete(entryId)) this.expanded.add(entryId);
    this.rebuild();
  }

  /** Open every closed compaction card of the branch: its whole conversation, from the first prompt, is rows again. */
  showReplaced(): void {
    let changed = false;
    for (const id of this.plan.compactions.keys())
      if (!this.expanded.has(id)) {
        this.expanded.add(id);
        changed = true;
      }
    if (changed) this.rebuild();
  }

  toggleInherited(): void {
    this.showInherited = !this.showInherited;
    this.rebuild();
  }

  /** An image of a row as a data: URI, when it is a raster image we can show (OMP blobs read from the agent dir). */
  async image(row: number, ref: number): Promise<string | null> {
    const i = rowImages(this.plan, row)[ref];
    if (!i || !SHOWN_IMAGE.test(i.mimeType)) return null;
    let data = i.data;
    if (!data && i.blob) data = (await readBlob(agentDirOf(this.session.file), i.blob))?.toString("base64") ?? null;
    return data && BASE64.test(data) ? `data:${i.mimeType};base64,${data}` : null;
  }

  /** The branches that start at `entryId` and its siblings, for the branch switcher (`branchesAt`'s identity). */
  branches(entryId: string): BranchChoice[] {
    const s = this.session;
    const e = s.byId.get(entryId);
    if (!e) return [];
    const onPath = new Set(this.plan.path.entries.map((x) => x.id));
    return branchesAt(s, e.parentId !== null && s.byId.has(e.parentId) ? e.parentId : null).map((b) => ({
      ...b,
      entryId: b.startId,
      current: onPath.has(b.startId),
    }));
  }

  /** Follow the branch ending at `leafId` from now on. */
  switchTo(leafId: string): void {
    this.leafId = leafId === this.session.leafId ? undefined : leafId;
    this.rebuild();
  }

  /**
   * The two texts of an edit (`edit` index) or a write (`edit` null) in call number `call` of an assistant entry, in
   * full; null when there is no such call.
   */
  editTexts(
    entryId: string,
    call: number,
    edit: number | null,
  ): { path: string; before: string; after: string } | null {
    const at = this.plan.path.position.get(entryId);
    const item = at === undefined ? null : transcriptItem(this.plan.path, at);
    if (item?.kind !== "assistant") return null;
    const b = item.blocks.filter((x) => x.type === "toolCall")[call];
    if (!b || b.type !== "toolCall") return null;
    const path = b.path ?? b.name;
    if (edit === null) return b.written === undefined ? null : { path, before: "", after: b.written };
    const e = b.edits?.[edit];
    return e ? { path, before: e.oldText, after: e.newText } : null;
  }
}
