/** "Forked from: …" at the top of a fork: reveals the parent at the fork point; orphan and external parents are
 * labelled as such and never opened. */
import * as vscode from "vscode";

import { truncate } from "../../protocol/format.js";
import { entryLabel } from "../../core/entryText.js";
import { CommandId } from "../ids.js";
import { ContextValue } from "./contextValues.js";
import { type TreeContext, TreeNode } from "./node.js";
import { parentStateText, plainTooltip, themeIcon } from "./present.js";
import { displayTitle } from "../titles.js";

export class ForkedFromNode extends TreeNode {
  readonly kind = "forkedFrom";

  constructor(
    id: string,
    readonly file: string,
    parent: TreeNode,
    tree: TreeContext,
  ) {
    super(id, parent, tree);
  }

  getTreeItem(): vscode.TreeItem {
    const s = this.tree.lib.get(this.file);
    const t = new vscode.TreeItem(vscode.l10n.t("Forked from"), vscode.TreeItemCollapsibleState.None);
    t.id = this.id;
    if (!s || !s.summary.ok || !s.summary.parentSession) return t;
    const raw = s.summary.parentSession.raw;
    const parent = s.parent;
    if (parent) {
      t.label = vscode.l10n.t("Forked from: {0}", truncate(displayTitle(parent), 60));
      // The fork point is described from the parent's model when it is loaded (no file is read to render).
      const at = s.forkPointId && this.tree.lib.peek(parent.file);
      const atEntry = at && at.ok ? at.session.byId.get(s.forkPointId!) : undefined;
      if (s.forkPointId)
        t.description = vscode.l10n.t("at {0}", atEntry ? truncate(entryLabel(atEntry), 40) : s.forkPointId);
      t.iconPath = themeIcon("arrow-up", "charts.purple");
      t.command = {
        command: CommandId.RevealParent,
        title: vscode.l10n.t("Reveal parent session"),
        arguments: [this.file],
      };
      t.contextValue = ContextValue.ForkedFromResolved;
    } else if (s.parentState === "ambiguous") {
      t.label = vscode.l10n.t("Forked from one of several sessions with the same id");
      t.description = vscode.l10n.t("ambiguous: not guessed");
      t.iconPath = themeIcon("warning", "list.warningForeground");
      t.contextValue = ContextValue.ForkedFromAmbiguous;
    } else if (s.parentState === "external") {
      t.label = vscode.l10n.t("Forked from a session outside the session roots");
      t.description = vscode.l10n.t("not opened");
      t.iconPath = themeIcon("warning", "list.warningForeground");
      t.contextValue = ContextValue.ForkedFromExternal;
    } else {
      t.label = vscode.l10n.t("Forked from a session that is gone (orphan fork)");
      t.description = truncate(raw, 60);
      t.iconPath = themeIcon("warning", "list.warningForeground");
      t.contextValue = ContextValue.ForkedFromOrphan;
    }
    t.tooltip = plainTooltip(`parentSession: ${raw}\n${parentStateText(s.parentState)}`);
    return t;
  }
}
