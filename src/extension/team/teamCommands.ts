/**
 * The team database's commands: Set Team Database… (the connection string goes to SecretStorage, typed by the user,
 * never taken from an argument: another extension's call must not send this machine's sessions to a host the user
 * did not choose), Clear Team Database, Sync Now, Show Team Usage (Usage & Cost in its Team scope), and Open Team
 * Session… (a session of any machine that sends its text, as a read-only transcript).
 */
import * as vscode from "vscode";
import { formatCount, relativeTime, truncate } from "../../protocol/format.js";
import { plainLabel } from "../../protocol/markdown.js";
import type { Command } from "../commands/command.js";
import { CommandId } from "../ids.js";
import type { PanelManager } from "../webviews/panels.js";
import { pickText } from "../titles.js";
import type { TeamService } from "./teamService.js";
import type { TeamTranscripts } from "./teamTranscripts.js";

const URL_SHAPE = /^postgres(ql)?:\/\/\S+$/i;

/** Sessions offered by Open Team Session… (the most recently active). */
const PICK_MAX = 2000;

export function teamCommands(team: TeamService, panels: PanelManager, transcripts: TeamTranscripts): Command[] {
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
    { id: CommandId.OpenTeamSession, execute: () => openTeamSession(team, transcripts) },
  ];
}

/** Pick a session whose text the database holds, then show its transcript; its URI, or undefined when none. */
async function openTeamSession(team: TeamService, transcripts: TeamTranscripts): Promise<string | undefined> {
  if (!(await team.url())) {
    const set = vscode.l10n.t("Set Team Database…");
    const choice = await vscode.window.showWarningMessage(vscode.l10n.t("No team database is set."), set);
    if (choice === set) await vscode.commands.executeCommand(CommandId.SetTeamDatabase);
    return undefined;
  }
  const sessions = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t("Reading the team database's sessions…") },
    () => team.sessionsWithText(PICK_MAX),
  );
  if (!sessions.length) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        "The team database holds no session's text: a machine sends it with the piSessions.team.sendContent " +
          "setting or pi-sessions sync --content.",
      ),
    );
    return undefined;
  }
  const items = sessions.map((s) => ({
    label: pickText(truncate(plainLabel(s.title ?? s.sessionId), 80)),
    description: pickText(
      `${s.machine} · ${s.lastActivity ? relativeTime(Date.parse(s.lastActivity)) : vscode.l10n.t("no activity")}`,
    ),
    detail: pickText(s.project ?? ""),
    session: s,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t("Open a session of the team database"),
    placeHolder: vscode.l10n.t("Sessions of every machine that sends its text, most recent first"),
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked) return undefined;
  const doc = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t("Reading the transcript…") },
    () => team.transcript(picked.session),
  );
  if (!doc) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t("The team database no longer holds the text of {0}.", picked.label),
    );
    return undefined;
  }
  return (await transcripts.show(picked.session, doc.sessionId, doc.markdown)).toString();
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
