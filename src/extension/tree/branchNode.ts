/**
 * One branch at a branch point, named as everywhere ("Branch 2/3: its first prompt", `branchHolding`: the raw branch
 * point's numbering, so a filter that hides entries does not renumber it); the active one expanded, its entries below.
 */
import type { TreeNode } from "./node.js";
import * as vscode from "vscode";
import type { SessionOutline } from "../../core/outline.js";
import { relativeTime } from "../../protocol/format.js";
import { entryLabel } from "../../core/entryText.js";
import { ContextValue } from "./contextValues.js";
import { type RowContext, RowNode } from "./rowNode.js";
import { entriesFromHereText } from "../counts.js";
import { branchHolding } from "../../core/branches.js";
import { branchTitle } from "../titles.js";

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

  protected render(t: vscode.TreeItem, { session, entry, desc }: RowContext): void {
    const { active, index, of, size } = this.item;
    // Filters can join branch points (a hidden entry's branches shown beside its siblings'): then the rows count here.
    const branch = branchHolding(session, entry.id) ?? {
      number: index ?? 0,
      of: of ?? 0,
      name: entryLabel(entry),
    };
    t.label = branchTitle(branch);
    if (active) desc.push(vscode.l10n.t("active"));
    // The branch's own entries (from its branch point), not its path from the root as the transcript counts them.
    // Counted from the branch point whatever the filter shows (the transcript's switcher counts the same).
    const entries = "entries" in branch ? branch.entries : (size ?? 0);
    desc.push(entriesFromHereText(entries), relativeTime(Date.parse(entry.timestamp ?? "")));
    t.iconPath = new vscode.ThemeIcon(
      "git-branch",
      new vscode.ThemeColor(active ? "charts.green" : "disabledForeground"),
    );
    t.collapsibleState = active ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
    t.contextValue = active ? ContextValue.BranchActive : ContextValue.Branch;
  }
}
