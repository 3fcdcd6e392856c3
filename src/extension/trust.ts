/**
 * Workspace trust for the writing commands. Menus hide them in Restricted Mode (`enablement`), but any caller of
 * `executeCommand` reaches a handler, so each handler checks trust itself.
 */
import * as vscode from "vscode";

export function requireTrust(what: string): void {
  if (!vscode.workspace.isTrusted)
    throw new Error(
      vscode.l10n.t("{0} writes to session files, which needs a trusted workspace (Restricted Mode is on)", what),
    );
}
