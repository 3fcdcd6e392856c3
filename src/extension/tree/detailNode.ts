/**
 * A detail of a compaction or branch summary: its summary (the text in the tooltip), how it was made (with its
 * timeline entry), the kept range, the replaced range, or the branch a summary was written for. Clicking reveals the
 * entries it names.
 */
import * as vscode from "vscode";
import { compactionMethod, isTimelineEntry } from "../../core/compact/blackmagic.js";
import { objectOf } from "../../core/compact/checkpointDetails.js";
import { pathTo, type Session } from "../../core/session/index.js";
import { truncate } from "../../protocol/format.js";
import { entryLabel } from "../../core/entryText.js";
import { CommandId } from "../ids.js";
import { entriesText } from "../counts.js";
import { ContextValue, type DetailKind } from "./contextValues.js";
import { type TreeContext, TreeNode } from "./node.js";
import { replacedMessages } from "../../core/compactionReach.js";
import { appendPreview, openCommand, untrustedMarkdown } from "./present.js";
import { snippetPlainText } from "../../protocol/markdown.js";

export class DetailNode extends TreeNode {
  readonly kind = "detail";

  constructor(
    id: string,
    readonly file: string,
    readonly entryId: string,
    readonly detail: DetailKind,
    parent: TreeNode,
    tree: TreeContext,
  ) {
    super(id, parent, tree);
  }

  getTreeItem(): vscode.TreeItem {
    const session = this.tree.loadedOutline(this.file)?.session;
    const entry = session?.byId.get(this.entryId);
    const t = new vscode.TreeItem(this.detail, vscode.TreeItemCollapsibleState.None);
    t.id = this.id;
    if (!session || !entry) return t;
    const info = session.compactions.find((c) => c.id === entry.id);
    const reveal = (title: string, id: string): vscode.Command => ({
      command: CommandId.RevealEntry,
      title,
      arguments: [this.file, id],
    });
    switch (this.detail) {
      case "summary": {
        const text = typeof entry.data.summary === "string" ? entry.data.summary : "";
        t.label = text.trim()
          ? vscode.l10n.t("Summary: {0}", truncate(snippetPlainText(text), 80))
          : vscode.l10n.t("Summary: (empty)");
        t.iconPath = new vscode.ThemeIcon("book");
        const md = untrustedMarkdown();
        appendPreview(md, text);
        t.tooltip = md;
        t.command = openCommand(this.file, entry.id);
        break;
      }
      case "method": {
        // The timeline entry Blackmagic writes after each compaction is folded here, not shown as a row.
        const method = compactionMethod(entry.data.details) ?? "";
        const timeline = (session.children.get(entry.id) ?? [])
          .map((id) => session.byId.get(id))
          .find((e) => e !== undefined && isTimelineEntry(e));
        const data = (timeline && objectOf(timeline.data.data)) ?? null;
        t.label = vscode.l10n.t("Made by: {0}", method);
        t.description = data
          ? vscode.l10n.t(
              "timeline {0}",
              [data.method, data.failureClass].filter((x) => typeof x === "string").join(" · "),
            )
          : undefined;
        t.iconPath = new vscode.ThemeIcon(method.startsWith("server") ? "cloud" : "warning");
        t.command = {
          command: CommandId.InspectCheckpoint,
          title: vscode.l10n.t("Inspect Checkpoint"),
          arguments: [this.file, entry.id],
        };
        break;
      }
      case "kept": {
        const kept = info?.keptFromId ? session.byId.get(info.keptFromId) : undefined;
        const n = kept ? countPath(session, kept.id, info!.replacesThroughId) : 0;
        t.label = kept
          ? vscode.l10n.t("Kept: from {0}", truncate(entryLabel(kept), 50))
          : vscode.l10n.t("Kept: nothing");
        t.description = kept
          ? vscode.l10n.t("line {0} · {1} kept before the compaction", kept.line, entriesText(n))
          : undefined;
        t.iconPath = new vscode.ThemeIcon("pass");
        if (kept) t.command = reveal(vscode.l10n.t("Reveal kept entry"), kept.id);
        break;
      }
      case "replaced": {
        const replaced = info ? replacedMessages(session, info) : [];
        const through = replaced.at(-1);
        t.label =
          replaced.length === 1
            ? vscode.l10n.t("Replaced: 1 message summarized")
            : vscode.l10n.t("Replaced: {0} messages summarized", replaced.length);
        t.description = through
          ? vscode.l10n.t("through “{0}” · line {1}", truncate(entryLabel(through), 40), through.line)
          : undefined;
        t.iconPath = new vscode.ThemeIcon("archive");
        if (replaced[0]) t.command = reveal(vscode.l10n.t("Reveal first replaced message"), replaced[0].id);
        break;
      }
      case "from": {
        const fromId = String(entry.data.fromId ?? "");
        const from = session.byId.get(fromId);
        t.label = from
          ? vscode.l10n.t("Summarizes the branch left at: {0}", truncate(entryLabel(from), 50))
          : vscode.l10n.t("Summarizes the branch left at {0} (not in this file)", fromId);
        t.iconPath = new vscode.ThemeIcon("git-branch");
        if (from) t.command = reveal(vscode.l10n.t("Reveal"), from.id);
        break;
      }
    }
    t.contextValue = `${ContextValue.Detail}:${this.detail}`;
    return t;
  }
}

/** Entries from `fromId` through `throughId` on the path to `throughId`. */
function countPath(session: Session, fromId: string, throughId: string | null): number {
  const path = pathTo(session, throughId);
  const i = path.findIndex((e) => e.id === fromId);
  return i < 0 ? 0 : path.length - i;
}
