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
 * The Sessions view's description and message. With no session, the description (the view's title bar) names the
 * folders read, and no message is set: VS Code shows the welcome content, with what to do, only while a view has no
 * message. Otherwise the filter, when it hides entries, in both (the description is not shown when the view is
 * alone in its container).
 */
export function sessionsViewTexts(
  state: LibraryState,
  roots: readonly SessionRoot[],
  filter: FilterMode,
): { description: string | undefined; message: string | undefined } {
  const dirs = [...new Set(roots.map((r) => shortenHome(r.dir)))];
  const list = dirs.join(", ");
  if (state === "noSessions") return { description: vscode.l10n.t("read {0}: no sessions", list), message: undefined };
  if (state === "noAgentDir") {
    const description = !dirs.length
      ? vscode.l10n.t("no folder to read")
      : dirs.length === 1
        ? vscode.l10n.t("{0} does not exist", list)
        : vscode.l10n.t("none of {0} exists", list);
    return { description, message: undefined };
  }
  if (filter === "default") return { description: undefined, message: undefined };
  return {
    description: vscode.l10n.t("Filter: {0}", filter),
    message: vscode.l10n.t("Filter: {0}. Some entries are hidden.", filter),
  };
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
