/** "Archived (N)" at the end of a group: its archived sessions, hidden from the group's own rows. */
import * as vscode from "vscode";
import type { StoreSession } from "../../node/store/index.js";
import { ContextValue } from "./contextValues.js";
import { TreeNode } from "./node.js";
import { plainTooltip } from "./present.js";
import { SessionNode } from "./sessionNode.js";

export class ArchivedNode extends TreeNode {
  readonly kind = "archived";

  constructor(
    id: string,
    parent: TreeNode,
    tree: ArchivedNode["tree"],
    /** The sessions of the group it ends (archived or not): it lists the archived ones. */
    private readonly among: () => StoreSession[],
  ) {
    super(id, parent, tree);
  }

  private sessions(): StoreSession[] {
    return this.tree.marks.archived(this.among());
  }

  override getChildren(): TreeNode[] {
    const sessions = this.sessions();
    const rows = this.tree.forkDisplay === "nested" ? this.tree.lib.families().tops(sessions) : sessions;
    return rows.map((s) => SessionNode.of(s.file, this, this.tree));
  }

  getTreeItem(): vscode.TreeItem {
    const n = this.sessions().length;
    const item = new vscode.TreeItem(vscode.l10n.t("Archived ({0})", n), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon("archive");
    item.contextValue = ContextValue.Archived;
    item.tooltip = plainTooltip(
      vscode.l10n.t(
        "Archived sessions are hidden from the groups; their files are not changed. Unarchive brings one back; " +
          "Show Archived lists them in place.",
      ),
    );
    return item;
  }
}
