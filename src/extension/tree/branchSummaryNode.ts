/** A branch summary: "Branch summary · from …" (the branch it summarizes), expanding to the summary itself. */
import * as vscode from "vscode";
import { truncate } from "../../protocol/format.js";
import { entryLabel } from "../../core/entryText.js";
import { ContextValue, type DetailKind } from "./contextValues.js";
import { type RowContext, RowNode } from "./rowNode.js";

export class BranchSummaryNode extends RowNode {
  protected override details({ entry }: Omit<RowContext, "desc" | "forks">): DetailKind[] {
    return typeof entry.data.fromId === "string" ? ["summary", "from"] : ["summary"];
  }

  protected render(t: vscode.TreeItem, { session, entry }: RowContext): void {
    const from = typeof entry.data.fromId === "string" ? session.byId.get(entry.data.fromId) : undefined;
    t.label = vscode.l10n.t(
      "Branch summary · from {0}",
      from ? truncate(entryLabel(from), 40) : String(entry.data.fromId ?? "?"),
    );
    const color = this.item.active ? "charts.yellow" : "disabledForeground";
    t.iconPath = new vscode.ThemeIcon("note", new vscode.ThemeColor(color));
    t.collapsibleState = vscode.TreeItemCollapsibleState.Collapsed;
    t.contextValue = ContextValue.BranchSummary;
  }
}
