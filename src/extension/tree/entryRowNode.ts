/** An entry on a row of its own (a model change, an assistant reply after a branch point, a label, …). */
import * as vscode from "vscode";
import { entryLabel } from "../../core/entryText.js";
import { ContextValue } from "./contextValues.js";
import { entryIcon } from "./present.js";
import { type RowContext, RowNode } from "./rowNode.js";

export class EntryRowNode extends RowNode {
  protected render(t: vscode.TreeItem, { entry, forks }: RowContext): void {
    t.label = entryLabel(entry);
    t.iconPath = entryIcon(entry, this.item.active);
    t.contextValue = `${ContextValue.EntryRow}:${this.item.kind}`;
    if (forks) t.collapsibleState = vscode.TreeItemCollapsibleState.Collapsed;
  }
}
