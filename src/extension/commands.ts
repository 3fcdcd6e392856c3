/** Command ids and the one wrapper every command is registered through (logs, then shows the error with "Show Log"). */
import * as vscode from "vscode";
import type { Logger } from "./logging.js";

export const CommandId = {
  Refresh: "piSessions.refresh",
  SetFilter: "piSessions.setFilter",
  Search: "piSessions.search",
  ShowLog: "piSessions.showLog",
  OpenEntry: "piSessions.openEntry",
  CopyEntryId: "piSessions.copyEntryId",
  CopyResumeCommand: "piSessions.copyResumeCommand",
  RevealParent: "piSessions.revealParent",
  RevealSession: "piSessions.revealSession",
  RevealEntry: "piSessions.revealEntry",
  ShowUsage: "piSessions.showUsage",
  ShowSessionUsage: "piSessions.showSessionUsage",
  InspectCheckpoint: "piSessions.inspectCheckpoint",
  ShowLineage: "piSessions.showLineage",
  ShowContext: "piSessions.showContext",
  CompactBranch: "piSessions.compactBranch",
  SetApiKey: "piSessions.setApiKey",
  RepairTail: "piSessions.repairTail",
} as const;
export type CommandId = (typeof CommandId)[keyof typeof CommandId];

export function registerCommand(
  id: CommandId,
  handler: (...args: never[]) => unknown,
  logger: Logger,
): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    try {
      return await (handler as (...a: unknown[]) => unknown)(...args);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      logger.error(`command ${id} failed`, err);
      void vscode.window.showErrorMessage(`Pi Sessions: ${message}`, "Show Log").then((choice) => {
        if (choice === "Show Log") logger.show();
      });
      return undefined;
    }
  });
}
