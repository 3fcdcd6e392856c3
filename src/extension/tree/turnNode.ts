/** A turn: the user's prompt, with the assistant replies and tool calls that followed it folded underneath. */
import * as vscode from "vscode";
import { countOf } from "../../protocol/format.js";
import { EntryRowNode } from "./entryRowNode.js";
import type { RowContext } from "./rowNode.js";

export class TurnNode extends EntryRowNode {
  protected override render(t: vscode.TreeItem, row: RowContext): void {
    super.render(t, row);
    const n = this.item.folded?.length ?? 0;
    if (n) row.desc.push(countOf(n, "entry", "entries"));
    t.collapsibleState =
      n || row.forks ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None;
  }
}
