/** The one wrapper every command is registered through: it logs a failure, then shows it with "Show Log". */
import * as vscode from "vscode";
import type { CommandId } from "./ids.js";
import type { Logger } from "./logging.js";

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
      const showLog = vscode.l10n.t("Show Log");
      void vscode.window.showErrorMessage(vscode.l10n.t("Pi Sessions: {0}", message), showLog).then((choice) => {
        if (choice === showLog) logger.show();
      });
      return undefined;
    }
  });
}
