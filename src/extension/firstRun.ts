/**
 * What a user without sessions (yet) is told, and what they can do about it: the Sessions view's message names the
 * folders that were read; "Choose Agent Folder…" adds one to `piSessions.agentDirs`; a command with no session to
 * choose from says so as information (a normal state), not as an error.
 */
import * as vscode from "vscode";
import type { FilterMode } from "../core/outline.js";
import { type SessionRoot, shortenHome } from "../node/roots.js";
import type { Command } from "./commands/command.js";
import { CommandId } from "./ids.js";
import type { LibraryState } from "./service.js";

/**
 * The Sessions view's message: which folders were read when none holds a session (the welcome text below it says what
 * to do), else the filter when it hides entries.
 */
export function sessionsViewMessage(
  state: LibraryState,
  roots: readonly SessionRoot[],
  filter: FilterMode,
): string | undefined {
  const dirs = [...new Set(roots.map((r) => shortenHome(r.dir)))].join(", ");
  if (state === "noSessions") return vscode.l10n.t("Read {0}: no sessions there.", dirs);
  if (state === "noAgentDir")
    return dirs ? vscode.l10n.t("Looked for {0}: none of them exists.", dirs) : vscode.l10n.t("No folder to read.");
  // The description is not shown when the view is alone in its container, so the message says it too.
  return filter === "default" ? undefined : vscode.l10n.t("Filter: {0}. Some entries are hidden.", filter);
}

/** `ChooseAgentDir`: a folder picked in the OS dialog, added to `piSessions.agentDirs` (the view reloads). */
export function chooseAgentDirCommand(): Command {
  return {
    id: CommandId.ChooseAgentDir,
    execute: async () => {
      const picked = await vscode.window.showOpenDialog({
        canSelectFolders: true,
        canSelectFiles: false,
        canSelectMany: false,
        title: vscode.l10n.t("Choose the agent folder (it holds sessions/, like ~/.pi/agent)"),
        openLabel: vscode.l10n.t("Read Sessions from Here"),
      });
      const dir = picked?.[0]?.fsPath;
      if (!dir) return undefined;
      const config = vscode.workspace.getConfiguration("piSessions");
      const dirs = config.get<string[]>("agentDirs") ?? [];
      if (!dirs.includes(dir)) await config.update("agentDirs", [...dirs, dir], vscode.ConfigurationTarget.Global);
      return dir;
    },
  };
}

/**
 * A command found no session to choose from: said as information, with the two ways to point the explorer at
 * sessions. Resolves to undefined (nothing chosen), whichever button is taken.
 */
export async function nothingToChoose(): Promise<undefined> {
  const choose = vscode.l10n.t("Choose Agent Folder…");
  const setting = vscode.l10n.t("Open Setting");
  const answer = await vscode.window.showInformationMessage(
    vscode.l10n.t("No session to choose from: the agent folders hold no readable session yet."),
    choose,
    setting,
  );
  if (answer === choose) await vscode.commands.executeCommand(CommandId.ChooseAgentDir);
  else if (answer === setting)
    await vscode.commands.executeCommand("workbench.action.openSettings", "piSessions.agentDirs");
  return undefined;
}
