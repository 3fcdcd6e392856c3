/**
 * The base of a session outline's rows (turns, entries standing alone, branches, compactions, branch summaries).
 * Each kind renders its own label, icon and state (`render`); the base adds what every row shows the same way: the
 * label tag, the active-leaf marker, the forks taken here, "abandoned branch", the tooltip, and the children (the
 * entries folded under a turn, a compaction's details, and the forks).
 */
import * as vscode from "vscode";
import type { OutlineItem, SessionOutline } from "../../core/outline.js";
import type { Entry, Session } from "../../core/session/index.js";
import { type DetailKind, withLeaf } from "./contextValues.js";
import { DetailNode } from "./detailNode.js";
import { FoldedEntryNode } from "./foldedEntryNode.js";
import { ForkNode } from "./forkNode.js";
import { type FileNode, type TreeContext, TreeNode } from "./node.js";
import { entryTooltip, leafMarker, openCommand } from "./present.js";
import { forksText } from "../counts.js";

/** What a row renders from: the session's outline, the entry it stands for, and the description so far. */
export interface RowContext {
  outline: SessionOutline;
  session: Session;
  entry: Entry;
  /** Parts of the description, joined with " · ". */
  desc: string[];
  /** Forks taken at this row (or at an entry folded under it). */
  forks: number;
}

export abstract class RowNode extends TreeNode {
  readonly kind = "row";

  constructor(
    id: string,
    readonly file: string,
    readonly item: OutlineItem,
    /** The session node the row is in. */
    readonly sessionNode: FileNode,
    parent: TreeNode,
    tree: TreeContext,
  ) {
    super(id, parent, tree);
  }

  /** Label, icon, collapsible state, context value and kind-specific description parts. */
  protected abstract render(t: vscode.TreeItem, row: RowContext): void;

  /** The detail rows under this row (a compaction's summary, kept and replaced ranges). */
  protected details(_row: Omit<RowContext, "desc" | "forks">): DetailKind[] {
    return [];
  }

  /** Whether this row carries the active-leaf marker itself (a branch never does: its entries do). */
  protected get canHoldLeaf(): boolean {
    return true;
  }

  private rowIds(): string[] {
    return [this.item.id, ...(this.item.folded ?? [])];
  }

  /** Child sessions forked at one of this row's entries (or, under a filter, at their nearest visible ancestor). */
  protected forksHere(outline: SessionOutline): string[] {
    const s = this.tree.lib.get(this.file);
    if (!s) return [];
    const here = new Set(this.rowIds());
    return s.children
      .filter((c) => c.forkPointId && here.has(outline.nearestVisible(c.forkPointId) ?? ""))
      .map((c) => c.file);
  }

  override async getChildren(): Promise<TreeNode[]> {
    const outline = await this.tree.outline(this.file);
    if (!outline) return [];
    const entry = outline.session.byId.get(this.item.id);
    if (!entry) return [];
    const out: TreeNode[] = this.details({ outline, session: outline.session, entry }).map((detail) =>
      this.tree.intern(new DetailNode(`${this.id}/${detail}`, this.file, entry.id, detail, this, this.tree)),
    );
    for (const id of this.item.folded ?? []) {
      const nodeId = `${this.sessionNode.id}/entry:${id}`;
      out.push(this.tree.intern(new FoldedEntryNode(nodeId, this.file, id, this, this.tree)));
    }
    for (const child of this.forksHere(outline)) out.push(ForkNode.of(this, this.file, child, this.tree));
    return out;
  }

  getTreeItem(): vscode.TreeItem {
    const outline = this.tree.loadedOutline(this.file);
    const session = outline?.session;
    const entry = session?.byId.get(this.item.id);
    const t = new vscode.TreeItem("", vscode.TreeItemCollapsibleState.None);
    t.id = this.id;
    if (!outline || !session || !entry) {
      t.label = this.item.id;
      return t;
    }
    const label = session.labels.get(this.item.id)?.label;
    const leafRow = outline.visibleLeafId;
    const isLeaf = this.canHoldLeaf && leafRow === this.item.id;
    const holdsLeaf = isLeaf || (leafRow !== null && (this.item.folded ?? []).includes(leafRow));
    const row: RowContext = { outline, session, entry, desc: [], forks: this.forksHere(outline).length };
    if (label) row.desc.push(`[${label}]`);
    this.render(t, row);
    const { desc, forks } = row;
    if (forks) desc.push(forksText(forks));
    if (isLeaf) desc.unshift(leafMarker(session, this.item.id));
    else if (holdsLeaf) desc.unshift("● leaf inside");
    if (this.canHoldLeaf && !this.item.active) desc.push(vscode.l10n.t("abandoned branch"));
    t.description = desc.join(" · ");
    t.tooltip = entryTooltip(this.file, entry, label);
    // A turn opens the transcript on a click too; its twistie expands it.
    t.command = openCommand(this.file, entry.id);
    t.contextValue = withLeaf(t.contextValue ?? "", isLeaf);
    return t;
  }
}
