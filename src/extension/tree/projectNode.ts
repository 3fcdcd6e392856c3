/** A project under All Projects: the sessions whose working directory it is, newest first. */
import { basename, dirname } from "node:path";
import * as vscode from "vscode";
import { relativeTime } from "../../protocol/format.js";
import { ContextValue } from "./contextValues.js";
import { TreeNode } from "./node.js";
import { plainTooltip } from "./present.js";
import { SessionNode } from "./sessionNode.js";
import { rowsText } from "../counts.js";

export class ProjectNode extends TreeNode {
  readonly kind = "project";

  constructor(
    id: string,
    readonly cwd: string,
    parent: TreeNode,
    tree: ProjectNode["tree"],
  ) {
    super(id, parent, tree);
  }

  private project() {
    return this.tree.lib.projects().find((p) => p.cwd === this.cwd);
  }

  /** Its sessions the group lists (the archived ones are under "Archived (N)" unless shown). */
  private sessions() {
    return this.tree.marks.visible(this.project()?.sessions ?? []);
  }

  override getChildren(): TreeNode[] {
    const sessions = this.sessions();
    const families = this.tree.lib.families();
    const rows = this.tree.forkDisplay === "nested" ? families.tops(sessions) : sessions;
    return this.tree.marks.pinnedFirst(rows, families, sessions).map((s) => SessionNode.of(s.file, this, this.tree));
  }

  getTreeItem(): vscode.TreeItem {
    const project = this.project();
    const item = new vscode.TreeItem(basename(this.cwd) || this.cwd, vscode.TreeItemCollapsibleState.Collapsed);
    // Two projects with the same folder name are told apart by where they are.
    const twins = this.tree.lib.projects().filter((p) => basename(p.cwd) === basename(this.cwd)).length > 1;
    item.id = this.id;
    const sessions = this.sessions();
    const n = sessions.length;
    const rows = this.tree.forkDisplay === "nested" ? this.tree.lib.families().tops(sessions).length : n;
    const counts = rowsText(rows, n);
    const where = twins ? `${dirname(this.cwd)} · ` : "";
    item.description = `${where}${relativeTime(project?.lastActivity ?? 0)} · ${counts}`;
    item.tooltip = plainTooltip(`${this.cwd}\n${counts}`);
    item.iconPath = vscode.ThemeIcon.Folder;
    item.contextValue = ContextValue.Project;
    return item;
  }
}
