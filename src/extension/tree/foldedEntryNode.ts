/** An entry folded under its turn (an assistant reply, a tool call, a tool result). Clicking opens its line. */
import * as vscode from "vscode";
import { entryLabel } from "../../core/entryText.js";
import { ContextValue, withLeaf } from "./contextValues.js";
import { type TreeContext, TreeNode } from "./node.js";
import { assistantUsage, entryIcon, entryTooltip, leafMarker, openCommand } from "./present.js";
import { forksText } from "../counts.js";

export class FoldedEntryNode extends TreeNode {
  readonly kind = "entry";

  constructor(
    id: string,
    readonly file: string,
    readonly entryId: string,
    parent: TreeNode,
    tree: TreeContext,
  ) {
    super(id, parent, tree);
  }

  getTreeItem(): vscode.TreeItem {
    const outline = this.tree.loadedOutline(this.file);
    const entry = outline?.session.byId.get(this.entryId);
    const t = new vscode.TreeItem(entry ? entryLabel(entry) : this.entryId, vscode.TreeItemCollapsibleState.None);
    t.id = this.id;
    if (!outline || !entry) return t;
    const session = outline.session;
    const desc: string[] = [];
    const label = session.labels.get(entry.id)?.label;
    const isLeaf = outline.visibleLeafId === entry.id;
    if (isLeaf) desc.push(leafMarker(session, entry.id));
    if (label) desc.push(`[${label}]`);
    const usage = assistantUsage(entry);
    if (usage) desc.push(usage);
    const children = this.tree.lib.get(this.file)?.children ?? [];
    const forks = children.filter((c) => c.forkPointId && outline.nearestVisible(c.forkPointId) === entry.id).length;
    if (forks) desc.push(vscode.l10n.t("{0} here", forksText(forks)));
    t.description = desc.join(" · ");
    t.iconPath = entryIcon(entry, outline.activePath.has(entry.id));
    t.tooltip = entryTooltip(this.file, entry, label);
    t.command = openCommand(this.file, entry.id);
    t.contextValue = withLeaf(ContextValue.FoldedEntry, isLeaf);
    return t;
  }
}
