/** "Fork: …" under the row a child session forked from (or under the session, when the fork point is unknown). */
import { basename } from "node:path";
import * as vscode from "vscode";
import { lastActivity, ownCost } from "../../node/store/index.js";
import { formatCost, relativeTime, truncate } from "../../protocol/format.js";
import { CommandId } from "../ids.js";
import { ContextValue } from "./contextValues.js";
import { type TreeContext, TreeNode } from "./node.js";
import { plainTooltip, themeIcon } from "./present.js";
import { displayTitle } from "../titles.js";

export class ForkNode extends TreeNode {
  readonly kind = "fork";

  constructor(
    id: string,
    /** The parent session's file (the tree this node is in). */
    readonly file: string,
    /** The forked session's file. */
    readonly child: string,
    parent: TreeNode,
    tree: TreeContext,
  ) {
    super(id, parent, tree);
  }

  static of(parent: TreeNode, file: string, child: string, tree: TreeContext): ForkNode {
    return tree.intern(new ForkNode(`${parent.id}/fork:${tree.keyOf(child)}`, file, child, parent, tree));
  }

  getTreeItem(): vscode.TreeItem {
    const child = this.tree.lib.get(this.child);
    const title = child ? displayTitle(child) : basename(this.child);
    const t = new vscode.TreeItem(
      vscode.l10n.t("Fork: {0}", truncate(title, 70)),
      vscode.TreeItemCollapsibleState.None,
    );
    t.id = this.id;
    if (child) {
      const subagent = child.summary.ok && child.summary.subagent ? "subagent · " : "";
      t.description = `${subagent}${relativeTime(lastActivity(child))} · ${formatCost(ownCost(child))}`;
    }
    t.iconPath = themeIcon("repo-forked", "charts.purple");
    t.tooltip = plainTooltip(`${vscode.l10n.t("A session forked off here:")}\n${this.child}`);
    t.command = {
      command: CommandId.RevealSession,
      title: vscode.l10n.t("Reveal forked session"),
      arguments: [this.child],
    };
    t.contextValue = ContextValue.Fork;
    return t;
  }
}
