/** A turn: the user's prompt, with the assistant replies and tool calls that followed it folded underneath. */
import * as vscode from "vscode";
import { EntryRowNode } from "./entryRowNode.js";
import type { RowContext } from "./rowNode.js";
import { entriesText } from "../counts.js";

export class TurnNode extends EntryRowNode {
  protected override render(t: vscode.TreeItem, row: RowContext): void {
    super.render(t, row);
    const n = this.item.folded?.length ?? 0;
    if (n) row.desc.push(entriesText(n));
    t.collapsibleState =
      n || row.forks ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None;
  }
}
