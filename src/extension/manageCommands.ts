/**
 * Rename Session… and Label Entry…: the name and label written as the agent writes them (src/node/manage), from the
 * Sessions view, the transcript's entry menu and the palette. Both write, so both need a trusted workspace; the
 * file watcher brings the change into every view.
 */
import { basename } from "node:path";
import * as vscode from "vscode";
import { cleanLabel, cleanName, labelEntry, ManageRefused, renameSession } from "../node/manage/appendEntry.js";
import { entryLabel } from "../core/entryText.js";
import { truncate } from "../protocol/format.js";
import type { Command } from "./commands/command.js";
import { targetOf } from "./commands/target.js";
import { CommandId } from "./ids.js";
import type { SessionService } from "./service.js";
import { displayTitle } from "./titles.js";
import { requireTrust } from "./trust.js";
import { pickSession } from "./panelCommands.js";

/** A refusal read as the reason it is (the file is named by the message already). */
async function written<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (err instanceof ManageRefused) throw new Error(err.reason);
    throw err;
  }
}

/** `RenameSession`: the name pi shows; empty clears it. A preset name (second argument) skips the input box. */
function renameCommand(service: SessionService): Command {
  return {
    id: CommandId.RenameSession,
    execute: async (arg?: unknown, preset?: unknown) => {
      requireTrust(vscode.l10n.t("Rename"));
      const file = targetOf(arg).file ?? (await pickSession(service, vscode.l10n.t("Rename which session?")))?.file;
      if (!file) return undefined;
      const s = service.resolve(file);
      const current = s.summary.ok ? (s.summary.name ?? "") : "";
      const name =
        typeof preset === "string"
          ? preset
          : await vscode.window.showInputBox({
              title: vscode.l10n.t("Rename “{0}”", truncate(displayTitle(s), 60)),
              prompt: vscode.l10n.t("The name pi shows for this session. Leave empty to clear it."),
              value: current,
              valueSelection: [0, current.length],
              validateInput: (v) =>
                cleanName(v) !== v.trim()
                  ? { message: vscode.l10n.t("Line breaks and control characters become spaces"), severity: 1 }
                  : undefined,
            });
      if (name === undefined || cleanName(name) === current) return undefined;
      await written(renameSession(s.file, name));
      return cleanName(name);
    },
  };
}

/** `LabelEntry`: a label on the entry, as pi's `/tree` sets it; empty removes it. */
function labelCommand(service: SessionService): Command {
  return {
    id: CommandId.LabelEntry,
    execute: async (arg?: unknown, preset?: unknown) => {
      requireTrust(vscode.l10n.t("Label"));
      const { file, entryId } = targetOf(arg);
      if (!entryId) throw new Error(vscode.l10n.t("Choose an entry to label in the Sessions view or a transcript"));
      const s = service.resolve(file);
      const r = await service.lib.open(s.file);
      const entry = r.ok ? r.session.byId.get(entryId) : undefined;
      if (!r.ok || !entry) throw new Error(vscode.l10n.t("{0} has no entry {1} now", basename(s.file), entryId));
      const current = r.session.labels.get(entryId)?.label ?? "";
      const label =
        typeof preset === "string"
          ? preset
          : await vscode.window.showInputBox({
              title: vscode.l10n.t("Label “{0}”", truncate(entryLabel(entry), 60)),
              prompt: vscode.l10n.t(
                "A label marks the entry in pi's /tree and every view here. Leave empty to remove it.",
              ),
              value: current,
              valueSelection: [0, current.length],
            });
      if (label === undefined || (cleanLabel(label) ?? "") === current) return undefined;
      await written(labelEntry(s.file, entryId, label));
      return cleanLabel(label) ?? null;
    },
  };
}

export function manageCommands(service: SessionService): Command[] {
  return [renameCommand(service), labelCommand(service)];
}
