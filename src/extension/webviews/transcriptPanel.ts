/**
 * Transcript editors: one webview per session, showing one branch (src/node/views/transcript.ts) windowed in the page.
 * The host sends a first chunk of rows around where the reader is going, then rows, images and full texts on request;
 * when the agent appends, new rows follow within the watcher's debounce. Every message from the page is validated.
 */
import { basename } from "node:path";
import * as vscode from "vscode";
import { truncate } from "../../protocol/format.js";
import {
  type FromTranscript,
  fromTranscriptSchema,
  type ToTranscript,
  type TranscriptState,
  transcriptStateSchema,
} from "../../protocol/transcript.js";
import type { Facts } from "../../protocol/messages.js";
import { TranscriptDocument } from "../../node/views/transcript.js";
import { CommandId, TranscriptViewType } from "../ids.js";
import type { Logger } from "../logging.js";
import type { SessionService } from "../service.js";
import { type HostedPage, WebviewHost } from "./webviewHost.js";
import { DiffTexts } from "./diffTexts.js";
import { branchTitle, displayTitle, pickText } from "../titles.js";
import { entriesText } from "../counts.js";
import { openLink } from "./openLink.js";

/** A chunk of rows the page asked for stays under this (at least one row). */
const FETCH_BYTES = 1024 * 1024;

export interface OpenTranscript extends HostedPage<TranscriptState> {
  file: string;
  doc: TranscriptDocument | null;
  /** Where to go once ready (an entry to reveal), and what the page last reported. */
  pendingEntry: string | null;
  /** From a revived state: the branch the reader chose, and the entry they had at the top. */
  restore: { leafId?: string; top?: string };
  facts: Facts | null;
}

export class TranscriptPanels implements vscode.Disposable {
  private readonly host: WebviewHost<TranscriptState, FromTranscript, OpenTranscript>;
  private readonly disposables: vscode.Disposable[] = [];
  /** The in-memory texts of diff editors (the Agent History view opens its diffs here too). */
  readonly diffs: DiffTexts;

  constructor(
    extensionUri: vscode.Uri,
    private readonly service: SessionService,
    private readonly logger: Logger,
  ) {
    this.diffs = new DiffTexts();
    this.host = new WebviewHost(extensionUri, logger, {
      viewType: TranscriptViewType,
      page: "transcript",
      stateSchema: transcriptStateSchema,
      messageSchema: fromTranscriptSchema,
      restorable: true,
      html: { sessionImages: true, stylesheet: "transcript.css" },
      panelOptions: { enableFindWidget: true },
      // A hidden webview is torn down: when it shows again it says "ready" and gets the rows around where it was.
      unreadyWhenHidden: true,
      create: (panel, state) => ({
        file: state.file,
        state,
        panel,
        doc: null,
        seq: 0,
        ready: false,
        dirty: false,
        pendingEntry: state.entryId ?? null,
        restore: { leafId: state.leafId, top: state.top },
        facts: null,
      }),
      title: (t) => this.title(t.file),
      receive: (t, msg) => this.receive(t, msg),
    });
    this.disposables.push(
      this.host,
      this.diffs,
      service.onDidChange((set) => {
        for (const t of this.open) if (!set || set.changes.some((c) => c.file === t.file)) this.scheduleUpdate(t);
      }),
    );
  }

  /** The open transcripts. */
  get open(): OpenTranscript[] {
    return this.host.pages;
  }

  /** Open the transcript of `file` (or reveal the one open), at `entryId` when given, else at the end. */
  show(file: string, entryId?: string): OpenTranscript {
    const existing = this.open.find((t) => t.file === file);
    if (existing) {
      existing.panel.reveal();
      if (entryId) void this.reveal(existing, entryId);
      return existing;
    }
    return this.host.open({ file, ...(entryId ? { entryId } : {}) }, basename(file));
  }

  /** The session's title from the listing until the document is read (a revived panel may come first: the file). */
  private title(file: string): string {
    const s = this.service.lib.get(file);
    return truncate(s ? displayTitle(s) : basename(file), 40);
  }

  private async load(t: OpenTranscript): Promise<TranscriptDocument> {
    await this.service.ensureStarted();
    const stored = this.service.resolve(t.file);
    const session = await this.service.open(t.file);
    if (t.doc) t.doc.rebuild(session, stored);
    else t.doc = new TranscriptDocument(session, stored, t.restore.leafId);
    t.panel.title = truncate(t.doc.title, 40);
    return t.doc;
  }

  private async post(t: OpenTranscript, message: ToTranscript): Promise<void> {
    await this.host.post(t, message);
  }

  /** Send the page a fresh start: the header and the rows around `anchor` (or the end). */
  private async reset(t: OpenTranscript, anchor: number | null, highlight: string | null): Promise<void> {
    const doc = t.doc!;
    const first = doc.firstChunk(anchor);
    t.seq++;
    await this.post(t, {
      type: "reset",
      seq: t.seq,
      header: doc.header(),
      start: first.start,
      rows: first.rows,
      anchor,
      highlight,
    });
  }

  /** Scroll the open page to an entry (opening what hides it), highlighted. */
  async reveal(t: OpenTranscript, entryId: string, highlight = true): Promise<void> {
    if (!t.ready || !t.doc) {
      t.pendingEntry = entryId;
      return;
    }
    // The tree may know an entry the document has not read yet (the update waits for the watcher's debounce).
    if (!t.doc.session.byId.has(entryId)) await this.load(t);
    const doc = t.doc;
    if (!doc.plan.path.position.has(entryId) && doc.session.byId.has(entryId)) {
      // On another branch: show the branch through it, down to the newest leaf under it.
      doc.switchTo(doc.branches(entryId).find((b) => b.entryId === entryId)?.leafId ?? entryId);
    }
    const at = doc.reveal(entryId);
    if (at === null) {
      if (highlight) void vscode.window.showWarningMessage(vscode.l10n.t("That entry is not in this session."));
      await this.reset(t, null, null);
      return;
    }
    // A tool result shows in its call's row: that row is highlighted.
    const row = doc.plan.rows[at];
    const shownIn = row?.kind === "item" ? (doc.plan.path.entries[row.at]?.id ?? entryId) : entryId;
    await this.reset(t, at, highlight ? shownIn : null);
  }

  private scheduleUpdate(t: OpenTranscript): void {
    this.host.debounce(t, 100, () => this.update(t));
  }

  /** The session changed on disk: send the new rows (or start over when the branch is no longer a prefix). */
  /** The row the reader has at the top (from what the page last reported), to keep them there on a reset. */
  private topRow(t: OpenTranscript): number | null {
    const first = t.facts?.first;
    return typeof first === "string" && t.doc ? (t.doc.plan.rowOf.get(first) ?? null) : null;
  }

  /**
   * The session changed on disk: send the new rows. When the branch shown is no longer what it was plus new entries
   * (it moved, or a new branch started on it, which changes its switchers), start over where the reader was.
   */
  private async update(t: OpenTranscript): Promise<void> {
    if (!t.ready) return;
    try {
      if (!t.doc) {
        // The first load failed (the file was not readable): try again now that it changed.
        await this.load(t);
        await this.reset(t, null, null);
        return;
      }
      const before = t.doc.plan;
      const seen = t.doc.entriesSeen;
      const lastOld = before.rows[before.rows.length - 1];
      const lastId = lastOld?.kind === "item" ? before.path.entries[lastOld.at]!.id : null;
      const oldLeaf = before.path.entries[before.path.entries.length - 1]?.id ?? null;
      const doc = await this.load(t);
      const branched = doc.session.entries
        .slice(seen)
        .some((e) => e.parentId !== null && e.parentId !== oldLeaf && before.path.position.has(e.parentId));
      const extended =
        lastId === null ? before.rows.length === 0 : doc.plan.rowOf.get(lastId) === before.rows.length - 1;
      if (branched || !extended) {
        const top = this.topRow(t);
        await this.reset(t, top, null);
        return;
      }
      const start = Math.max(0, before.rows.length - 1);
      await this.post(t, {
        type: "append",
        seq: t.seq,
        header: doc.header(),
        start,
        rows: doc.rows(start, doc.plan.rows.length, FETCH_BYTES),
      });
    } catch (err) {
      this.logger.error("transcript update", err);
    }
  }

  private async receive(t: OpenTranscript, msg: FromTranscript): Promise<void> {
    try {
      await this.handle(t, msg);
    } catch (err) {
      this.logger.error(`transcript: ${msg.type}`, err);
      if (msg.type === "ready")
        await this.post(t, { type: "error", message: err instanceof Error ? err.message : String(err) });
      else void vscode.window.showErrorMessage(err instanceof Error ? err.message : String(err));
    }
  }

  private async handle(t: OpenTranscript, msg: FromTranscript) {
    const doc = t.doc;
    switch (msg.type) {
      case "ready": {
        t.ready = true;
        await this.load(t);
        const entry = t.pendingEntry;
        t.pendingEntry = null;
        // Shown again after being hidden (or revived after a reload): back where the reader was, nothing highlighted.
        const first = typeof t.facts?.first === "string" ? t.facts.first : t.restore.top;
        if (entry) await this.reveal(t, entry);
        else if (first && first !== "inherited") await this.reveal(t, first, false);
        else await this.reset(t, null, null);
        return;
      }
      case "rendered":
        if (msg.seq === t.seq) t.facts = msg.facts;
        return;
      case "fetch":
        if (doc && msg.seq === t.seq)
          await this.post(t, {
            type: "rows",
            seq: t.seq,
            start: msg.start,
            rows: doc.rows(msg.start, Math.min(msg.end, msg.start + 200), FETCH_BYTES),
          });
        return;
      case "showAll": {
        const row = doc?.row(msg.index, true);
        if (row && msg.seq === t.seq) await this.post(t, { type: "rows", seq: t.seq, start: msg.index, rows: [row] });
        return;
      }
      case "image":
        if (doc && msg.seq === t.seq)
          await this.post(t, {
            type: "image",
            seq: t.seq,
            row: msg.row,
            ref: msg.ref,
            src: await doc.image(msg.row, msg.ref),
          });
        return;
      case "toggleInherited":
        doc?.toggleInherited();
        if (doc) await this.reset(t, 0, null);
        return;
      case "showReplaced": {
        if (!doc) return;
        doc.showReplaced();
        await this.reset(t, 0, null);
        return;
      }
      case "toggleCompaction": {
        if (!doc) return;
        doc.toggleCompaction(msg.entryId);
        await this.reset(t, doc.plan.rowOf.get(msg.entryId) ?? null, msg.entryId);
        return;
      }
      case "chooseBranch":
        await this.chooseBranch(t, msg.entryId);
        return;
      case "openDiff": {
        const texts = doc?.editTexts(msg.entryId, msg.call, msg.edit);
        if (!texts) return;
        const what = msg.edit === null ? vscode.l10n.t("written by the agent") : vscode.l10n.t("edit by the agent");
        await this.diffs.open(
          texts.before,
          texts.after,
          `${basename(texts.path)} — ${what} (${doc!.title})`,
          texts.path,
        );
        return;
      }
      case "openLink":
        await openLink(msg.url);
        return;
      case "openParent": {
        const parent = doc?.parent;
        if (parent) this.show(parent.file, doc?.stored?.forkPointId ?? undefined);
        return;
      }
      case "entryActions": {
        const line = doc?.session.byId.get(msg.entryId)?.line;
        if (line) await vscode.commands.executeCommand(CommandId.EntryActions, t.file, msg.entryId, line);
        return;
      }
    }
  }

  /** The branch switcher: the sibling branches at `entryId`, with their first prompt and size; the tree follows. */
  async chooseBranch(t: OpenTranscript, entryId: string, pickLeaf?: string): Promise<void> {
    const doc = t.doc;
    if (!doc) return;
    const choices = doc.branches(entryId);
    let leafId = pickLeaf;
    if (!leafId) {
      const pick = await vscode.window.showQuickPick(
        choices.map((c) => ({
          label: (c.current ? "$(check) " : "") + pickText(branchTitle(c)),
          description: [entriesText(c.entries), c.active ? vscode.l10n.t("● active leaf") : ""]
            .filter(Boolean)
            .join(" · "),
          c,
        })),
        { title: vscode.l10n.t("Show which branch?") },
      );
      leafId = pick?.c.leafId;
    }
    const chosen = choices.find((c) => c.leafId === leafId);
    if (!leafId || !chosen) return;
    doc.switchTo(leafId);
    // Through reveal: a later compaction on the new branch may have replaced the entry where it starts.
    await this.reset(t, doc.reveal(chosen.entryId), chosen.entryId);
    await vscode.commands.executeCommand(CommandId.RevealEntry, t.file, chosen.entryId);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
