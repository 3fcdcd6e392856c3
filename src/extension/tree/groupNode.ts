/** The two top-level groups: This Workspace (its sessions) and All Projects (one node per project). */
import * as vscode from "vscode";
import { ContextValue } from "./contextValues.js";
import { ArchivedNode } from "./archivedNode.js";
import { InfoNode } from "./infoNode.js";
import { TreeNode } from "./node.js";
import { ProjectNode } from "./projectNode.js";
import { SessionNode } from "./sessionNode.js";
import { projectsText, rowsText, sessionsText } from "../counts.js";
import { plainTooltip } from "./present.js";
import type { StoreSession } from "../../node/store/index.js";

export class GroupNode extends TreeNode {
  readonly kind = "group";

  constructor(
    id: string,
    readonly group: "workspace" | "all",
    tree: GroupNode["tree"],
  ) {
    super(id, undefined, tree);
  }

  override getChildren(): TreeNode[] {
    return this.group === "workspace" ? this.workspaceChildren() : this.projectNodes();
  }

  /** "Archived (N)" for the group's archived sessions, when some are hidden. */
  private archivedNode(among: () => StoreSession[]): TreeNode[] {
    const marks = this.tree.marks;
    if (marks.showArchived || !marks.archived(among()).length) return [];
    return [this.tree.intern(new ArchivedNode(`${this.id}/archived`, this, this.tree, among))];
  }

  private workspaceChildren(): TreeNode[] {
    const folders = this.tree.workspaceFolderPaths();
    const all = () => this.tree.workspaceSessions();
    const sessions = this.tree.marks.visible(all());
    if (!sessions.length) {
      // VS Code shows viewsWelcome only for an empty view, so an empty group gets a placeholder row of its own.
      const tooltip =
        vscode.l10n.t("Sessions appear here when pi or omp runs in {0}.", folders.join(", ")) +
        " " +
        vscode.l10n.t("Sessions of other folders are under All Projects.");
      return [
        this.tree.intern(
          new InfoNode(`${this.id}/empty`, this, this.tree, {
            text: vscode.l10n.t("No sessions for this workspace yet"),
            tooltip,
            icon: "info",
          }),
        ),
        ...this.archivedNode(all),
      ];
    }
    const families = this.tree.lib.families();
    const rows = this.tree.forkDisplay === "nested" ? families.tops(sessions) : sessions;
    return [
      ...this.tree.marks.pinnedFirst(rows, families, sessions).map((s) => SessionNode.of(s.file, this, this.tree)),
      ...this.archivedNode(all),
    ];
  }

  /** The projects with a session to list; those holding a pinned session first. */
  private projectNodes(): TreeNode[] {
    const marks = this.tree.marks;
    const listed = this.tree.lib.projects().filter((p) => marks.visible(p.sessions).length);
    const pinned = (p: (typeof listed)[number]) => marks.visible(p.sessions).some((s) => marks.isPinned(s));
    return [
      ...[...listed.filter(pinned), ...listed.filter((p) => !pinned(p))].map((p) =>
        this.tree.intern(new ProjectNode(`all/project:${p.cwd}`, p.cwd, this, this.tree)),
      ),
      ...this.archivedNode(() => this.tree.lib.sessions),
    ];
  }

  getTreeItem(): vscode.TreeItem {
    const workspace = this.group === "workspace";
    const item = new vscode.TreeItem(workspace ? vscode.l10n.t("This Workspace") : vscode.l10n.t("All Projects"));
    item.id = this.id;
    item.contextValue = workspace ? ContextValue.GroupWorkspace : ContextValue.GroupAll;
    const lib = this.tree.lib;
    if (workspace) {
      item.collapsibleState = vscode.TreeItemCollapsibleState.Expanded;
      const sessions = this.tree.marks.visible(this.tree.workspaceSessions());
      const rows = this.tree.forkDisplay === "nested" ? lib.families().tops(sessions).length : sessions.length;
      item.description = rowsText(rows, sessions.length);
      // Sessions of a subfolder belong to the workspace but are a project of their own under All Projects: the
      // group says so, so that its count and the projects' counts add up.
      const folders = foldersOf(sessions, (s) => lib.projectOf(s));
      if (folders.length > 1) {
        item.description += ` · ${vscode.l10n.t("in {0} folders", folders.length)}`;
        item.tooltip = plainTooltip(folders.map(([cwd, n]) => `${cwd}: ${sessionsText(n)}`).join("\n"));
      }
      item.iconPath = new vscode.ThemeIcon("root-folder");
    } else {
      const marks = this.tree.marks;
      const projects = lib.projects().filter((p) => marks.visible(p.sessions).length).length;
      item.description = `${sessionsText(marks.visible(lib.sessions).length)} · ${projectsText(projects)}`;
      item.iconPath = new vscode.ThemeIcon("globe");
      // Expanded when it is the only group.
      item.collapsibleState = this.tree.workspaceFolderPaths().length
        ? vscode.TreeItemCollapsibleState.Collapsed
        : vscode.TreeItemCollapsibleState.Expanded;
    }
    return item;
  }
}

/** The projects of `sessions` (as All Projects groups them) with how many each holds, the fullest first. */
function foldersOf(sessions: readonly StoreSession[], projectOf: (s: StoreSession) => string): [string, number][] {
  const counts = new Map<string, number>();
  for (const s of sessions) {
    const cwd = projectOf(s);
    counts.set(cwd, (counts.get(cwd) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}
