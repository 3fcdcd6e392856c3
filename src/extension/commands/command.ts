/**
 * The command layer: each command is one unit (`{ id, execute }`, as VS Code's markdown extension and GitLens declare
 * theirs), registered through one manager whose wrapper logs a failure, then shows it with "Show Log". Commands read
 * their arguments with `targetOf` (target.ts) and their sessions through `SessionService.resolve` and `open`.
 */
import * as vscode from "vscode";
import type { CommandId } from "../ids.js";
import type { Logger } from "../logging.js";

/** One command: its id and what it does with the arguments VS Code passes (a tree node, a path, preset answers). */
export interface Command {
  readonly id: CommandId;
  execute(...args: unknown[]): unknown;
}

/** Every command of the extension, registered once each. */
export class CommandManager implements vscode.Disposable {
  private readonly registered = new Map<CommandId, vscode.Disposable>();

  constructor(private readonly logger: Logger) {}

  register(...commands: Command[]): this {
    for (const command of commands) {
      if (this.registered.has(command.id))
        throw new Error(vscode.l10n.t("command {0} is registered twice", command.id));
      this.registered.set(
        command.id,
        registerCommand(command.id, (...args: unknown[]) => command.execute(...args), this.logger),
      );
    }
    return this;
  }

  dispose(): void {
    for (const d of this.registered.values()) d.dispose();
    this.registered.clear();
  }
}

/** The one wrapper every command runs in: a failure is logged, then shown with "Show Log". */
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
