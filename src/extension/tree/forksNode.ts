/**
 * "Forks (N)" (or "Subagents (N)") first under a session, in the nested fork display: the sessions forked from it
 * (or its OMP subagent sessions), the most recently active family first, each a session row with its own forks.
 */
import * as vscode from "vscode";
import type { StoreSession } from "../../node/store/index.js";
import { formatCount } from "../../protocol/format.js";
import { ContextValue } from "./contextValues.js";
import { type FileNode, type TreeContext, TreeNode } from "./node.js";
import { themeIcon } from "./present.js";

export type ForksKind = "forks" | "subagents";

export class ForksNode extends TreeNode {
  readonly kind = "forks";

  constructor(
    id: string,
    /** The session whose forks (or subagents) these are. */
    readonly file: string,
    readonly what: ForksKind,
    parent: TreeNode,
    tree: TreeContext,
  ) {
    super(id, parent, tree);
  }

  static of(session: FileNode & TreeNode, what: ForksKind, tree: TreeContext): ForksNode {
    return tree.intern(new ForksNode(`${session.id}/${what}`, session.file, what, session, tree));
  }

  private members(): StoreSession[] {
    const s = this.tree.lib.get(this.file);
    if (!s) return [];
    const families = this.tree.lib.families();
    return this.what === "forks" ? families.forks(s) : families.subagents(s);
  }

  override getChildren(): TreeNode[] {
    return this.members().map((m) => this.tree.sessionNode(m.file, this));
  }

  getTreeItem(): vscode.TreeItem {
    const n = formatCount(this.members().length);
    const label = this.what === "forks" ? vscode.l10n.t("Forks ({0})", n) : vscode.l10n.t("Subagents ({0})", n);
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = this.id;
    item.iconPath = themeIcon(this.what === "forks" ? "repo-forked" : "hubot", "charts.purple");
    item.tooltip =
      this.what === "forks"
        ? vscode.l10n.t("Sessions forked from this one, the most recently active first")
        : vscode.l10n.t("Subagent sessions this session started, the most recently active first");
    item.contextValue = this.what === "forks" ? ContextValue.Forks : ContextValue.Subagents;
    return item;
  }
}
