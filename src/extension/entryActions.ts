/**
 * `EntryActions`: what can be done with one entry, as a menu (the transcript's "⋯" on each entry, or any caller with a
 * file and an entry id). Each choice runs the command the Sessions view's context menu runs on that entry.
 */
import * as vscode from "vscode";
import type { Command } from "./commands/command.js";
import { CommandId } from "./ids.js";
import { formatCount } from "../protocol/format.js";

interface EntryAction extends vscode.QuickPickItem {
  run: (file: string, entryId: string) => Thenable<unknown>;
}

function actions(line: number | undefined): EntryAction[] {
  const target = (file: string, entryId: string) => ({ file, entryId });
  return [
    {
      label: vscode.l10n.t("Copy Entry Id"),
      run: (file, id) => vscode.commands.executeCommand(CommandId.CopyEntryId, target(file, id)),
    },
    {
      label: vscode.l10n.t("Open Session File at Entry"),
      description:
        line === undefined ? vscode.l10n.t("read-only") : vscode.l10n.t("line {0}, read-only", line.toLocaleString()),
      run: (file, id) => vscode.commands.executeCommand(CommandId.OpenEntry, target(file, id)),
    },
    {
      label: vscode.l10n.t("Label Entry…"),
      description: vscode.l10n.t("as pi's /tree labels it"),
      run: (file, id) => vscode.commands.executeCommand(CommandId.LabelEntry, target(file, id)),
    },
    {
      label: vscode.l10n.t("Reveal in Sessions View"),
      run: (file, id) => vscode.commands.executeCommand(CommandId.RevealEntry, file, id),
    },
    {
      label: vscode.l10n.t("Compare with Active Branch"),
      description: vscode.l10n.t("the branch through this entry against the active one"),
      run: (file, id) => vscode.commands.executeCommand(CommandId.CompareWithActiveBranch, target(file, id)),
    },
    {
      label: vscode.l10n.t("Export Branch up to Here…"),
      description: vscode.l10n.t("Markdown or HTML, root to this entry"),
      run: (file, id) => vscode.commands.executeCommand(CommandId.ExportBranch, target(file, id)),
    },
  ];
}

export function entryActionsCommand(): Command {
  return {
    id: CommandId.EntryActions,
    execute: async (file?: unknown, entryId?: unknown, line?: unknown) => {
      if (typeof file !== "string" || typeof entryId !== "string") throw new Error(vscode.l10n.t("no entry given"));
      const pick = await vscode.window.showQuickPick(actions(typeof line === "number" ? line : undefined), {
        title:
          typeof line === "number"
            ? vscode.l10n.t("This entry (line {0})", formatCount(line))
            : vscode.l10n.t("This entry"),
      });
      if (!pick) return undefined;
      await pick.run(file, entryId);
      return pick.label;
    },
  };
}
