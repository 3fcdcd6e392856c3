/**
 * A row of text: a placeholder, a rejected file's reason, a problem at a line (a diagnostic), or a group of them.
 * Clicking one that names a line opens the session file there.
 */
import * as vscode from "vscode";
import type { Diagnostic } from "../../core/diagnostics.js";
import { ContextValue } from "./contextValues.js";
import { type TreeContext, TreeNode } from "./node.js";
import { plainTooltip, rawLineCommand, themeIcon } from "./present.js";
import { problemsText } from "../counts.js";

export interface InfoContent {
  text: string;
  tooltip?: string;
  /** A codicon id; `error` and `warning` take the list's error and warning colours. */
  icon?: string;
  file?: string;
  line?: number;
  children?: InfoNode[];
}

export class InfoNode extends TreeNode implements InfoContent {
  readonly kind = "info";
  text: string;
  tooltip?: string;
  icon?: string;
  file?: string;
  line?: number;
  children?: InfoNode[];

  constructor(id: string, parent: TreeNode | undefined, tree: InfoNode["tree"], content: InfoContent) {
    super(id, parent, tree);
    this.text = content.text;
    this.tooltip = content.tooltip;
    this.icon = content.icon;
    this.file = content.file;
    this.line = content.line;
    this.children = content.children;
  }

  override getChildren(): TreeNode[] {
    return this.children ?? [];
  }

  getTreeItem(): vscode.TreeItem {
    const t = new vscode.TreeItem(
      this.text,
      this.children?.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    t.id = this.id;
    if (this.icon) {
      const color =
        this.icon === "error" ? "list.errorForeground" : this.icon === "warning" ? "list.warningForeground" : undefined;
      t.iconPath = themeIcon(this.icon, color);
    }
    if (this.tooltip) t.tooltip = plainTooltip(this.tooltip);
    if (this.file && this.line) t.command = rawLineCommand(this.file, this.line);
    t.contextValue = ContextValue.Info;
    return t;
  }
}

/** "N problems in the file", expanding to one row per diagnostic (at most 200), each opening its line. */
export function problemsNode(
  parent: TreeNode & { file: string },
  tree: TreeContext,
  diagnostics: Diagnostic[],
): InfoNode {
  const severity = (d: Diagnostic) => (d.severity === "error" ? "error" : "warning");
  const node = tree.intern(
    new InfoNode(`${parent.id}/problems`, parent, tree, {
      text: vscode.l10n.t("{0} in the file", problemsText(diagnostics.length)),
      icon: diagnostics.some((d) => d.severity === "error") ? "error" : "warning",
    }),
  );
  node.children = diagnostics.slice(0, 200).map(
    (d, i) =>
      new InfoNode(`${parent.id}/problems/${i}`, node, tree, {
        text: vscode.l10n.t("line {0}: {1}", d.line, d.message),
        tooltip: `${parent.file}:${d.line} (${d.code})`,
        icon: severity(d),
        file: parent.file,
        line: d.line,
      }),
  );
  return node;
}
