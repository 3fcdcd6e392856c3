/**
 * The team database's commands: Set Team Database… (the connection string goes to SecretStorage, typed by the user,
 * never taken from an argument: another extension's call must not send this machine's sessions to a host the user
 * did not choose), Clear Team Database, Sync Now, and Show Team Usage (Usage & Cost in its Team scope).
 */
import * as vscode from "vscode";
import { formatCount } from "../../protocol/format.js";
import type { Command } from "../commands/command.js";
import { CommandId } from "../ids.js";
import type { PanelManager } from "../webviews/panels.js";
import type { TeamService } from "./teamService.js";

const URL_SHAPE = /^postgres(ql)?:\/\/\S+$/i;

export function teamCommands(team: TeamService, panels: PanelManager): Command[] {
  return [
    { id: CommandId.SetTeamDatabase, execute: () => setTeamDatabase(team) },
    {
      id: CommandId.ClearTeamDatabase,
      execute: async () => {
        await team.setUrl(undefined);
        void vscode.window.showInformationMessage(
          vscode.l10n.t("Team database cleared. Nothing was deleted from the database itself."),
        );
        return true;
      },
    },
    { id: CommandId.SyncTeam, execute: () => syncNow(team, panels) },
    { id: CommandId.ShowTeamUsage, execute: async () => panels.show({ panel: "usage", scope: "team" }) },
  ];
}

async function setTeamDatabase(team: TeamService): Promise<boolean | undefined> {
  // Only what the user types is stored (see the header).
  const url = await vscode.window.showInputBox({
    title: vscode.l10n.t("Team database (PostgreSQL connection string)"),
    prompt: vscode.l10n.t(
      "postgres://user:password@host:5432/database?sslmode=require — kept in VS Code's secret storage, never in " +
        "settings, files or logs. Leave empty to remove it.",
    ),
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) =>
      !v.trim() || URL_SHAPE.test(v.trim())
        ? undefined
        : vscode.l10n.t("A postgres:// or postgresql:// URL, with no spaces"),
  });
  if (url === undefined) return undefined;
  const value = url.trim();
  if (!value) {
    await team.setUrl(undefined);
    return true;
  }
  const problem = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t("Connecting to the team database…") },
    () => team.check(value),
  );
  if (problem) {
    const save = vscode.l10n.t("Save Anyway");
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t("Could not use this database: {0}", problem),
      { modal: true },
      save,
    );
    if (choice !== save) return undefined;
  }
  await team.setUrl(value);
  const where = team.status.where ?? "";
  void vscode.window.showInformationMessage(
    vscode.l10n.t("Team database set: {0}. Run Sync Now to send this machine's usage.", where),
  );
  return true;
}

async function syncNow(team: TeamService, panels: PanelManager): Promise<boolean> {
  const result = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t("Syncing this machine's sessions to the team database…"),
    },
    () => team.sync(),
  );
  const s = team.status.lastSync;
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      "Synced {0} to {1}: {2} of {3} sessions sent ({4} usage records), {5} removed.",
      s?.machine ?? "",
      team.status.where ?? "",
      formatCount(result.sent),
      formatCount(result.sessions),
      formatCount(result.records),
      formatCount(result.removed),
    ),
  );
  // An open Team dashboard shows what was just sent.
  for (const p of panels.panels) if (p.state.panel === "usage" && p.state.scope === "team") panels.refresh(p);
  return true;
}
