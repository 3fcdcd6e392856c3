/** One branch at a branch point: "Active branch 1/2: …" (expanded) or "Branch 2/2: …", its entries below it. */
import type { TreeNode } from "./node.js";
import * as vscode from "vscode";
import type { SessionOutline } from "../../core/outline.js";
import { relativeTime } from "../../protocol/format.js";
import { entryLabel } from "../../core/entryText.js";
import { ContextValue } from "./contextValues.js";
import { type RowContext, RowNode } from "./rowNode.js";
import { entriesText } from "../counts.js";

export class BranchNode extends RowNode {
  protected override get canHoldLeaf(): boolean {
    return false;
  }

  protected override forksHere(_outline: SessionOutline): string[] {
    return []; // forks are shown on the entries inside the branch
  }

  override async getChildren(): Promise<TreeNode[]> {
    const outline = await this.tree.outline(this.file);
    if (!outline) return [];
    return outline.items(this.item.id).map((i) => this.tree.row(this.sessionNode, this, i));
  }

  protected render(t: vscode.TreeItem, { entry, desc }: RowContext): void {
    const { active, index, of, size } = this.item;
    const [i, n] = [String(index ?? "?"), String(of ?? "?")];
    t.label = active
      ? vscode.l10n.t("Active branch {0}/{1}: {2}", i, n, entryLabel(entry))
      : vscode.l10n.t("Branch {0}/{1}: {2}", i, n, entryLabel(entry));
    desc.push(entriesText(size ?? 0), relativeTime(Date.parse(entry.timestamp ?? "")));
    t.iconPath = new vscode.ThemeIcon(
      "git-branch",
      new vscode.ThemeColor(active ? "charts.green" : "disabledForeground"),
    );
    t.collapsibleState = active ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
    t.contextValue = active ? ContextValue.BranchActive : ContextValue.Branch;
  }
}
