/**
 * Pin, Unpin, Archive, Unarchive, and Show/Hide Archived: marks by session id (marksState.ts), from the Sessions
 * view's rows and the palette. They change no session file, but they write (OMP's pins file too): a trusted
 * workspace only, as every write.
 */
import * as vscode from "vscode";
import type { StoreSession } from "../node/store/index.js";
import type { Command } from "./commands/command.js";
import { targetOf } from "./commands/target.js";
import { CommandId } from "./ids.js";
import type { MarksState } from "./marksState.js";
import { pickSession } from "./panelCommands.js";
import type { SessionService } from "./service.js";
import { requireTrust } from "./trust.js";

type MarkAction = "pin" | "unpin" | "archive" | "unarchive";

const IDS: Record<MarkAction, CommandId> = {
  pin: CommandId.PinSession,
  unpin: CommandId.UnpinSession,
  archive: CommandId.ArchiveSession,
  unarchive: CommandId.UnarchiveSession,
};

function markCommand(service: SessionService, marks: MarksState, action: MarkAction): Command {
  const words: Record<MarkAction, string> = {
    pin: vscode.l10n.t("Pin"),
    unpin: vscode.l10n.t("Unpin"),
    archive: vscode.l10n.t("Archive"),
    unarchive: vscode.l10n.t("Unarchive"),
  };
  return {
    id: IDS[action],
    execute: async (arg?: unknown) => {
      requireTrust(words[action]);
      const file =
        targetOf(arg).file ?? (await pickSession(service, vscode.l10n.t("{0} which session?", words[action])))?.file;
      if (!file) return undefined;
      const s: StoreSession = service.resolve(file);
      const on = action === "pin" || action === "archive";
      return action.endsWith("pin") ? marks.setPinned(s, on) : marks.setArchived(s, on);
    },
  };
}

export function markCommands(service: SessionService, marks: MarksState): Command[] {
  return [
    ...(["pin", "unpin", "archive", "unarchive"] as const).map((a) => markCommand(service, marks, a)),
    { id: CommandId.ShowArchived, execute: () => marks.setShowArchived(true) },
    { id: CommandId.HideArchived, execute: () => marks.setShowArchived(false) },
  ];
}
