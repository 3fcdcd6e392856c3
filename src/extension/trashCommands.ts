/**
 * Delete Session… and Restore Deleted Session…: a session to the trash after a confirmation that names its file, its
 * size, its forks (they stay, as orphans) and its subagents' folder (it goes with it); back from the "Recently
 * Deleted" list, byte for byte. On Linux and the BSDs the trash is the freedesktop.org one, written and read back by
 * src/node/manage/trash.ts (what VS Code's own delete uses there too); elsewhere VS Code's `workspace.fs.delete` with
 * `useTrash` moves it to the system Trash, from which the system restores it.
 */
import { realpath } from "node:fs/promises";
import { basename } from "node:path";
import * as vscode from "vscode";
import { ManageRefused } from "../node/manage/appendEntry.js";
import { deleteSession, recentlyDeleted, restoreSession } from "../node/manage/deleteSession.js";
import { hasXdgTrash, trashItems } from "../node/manage/trash.js";
import { formatBytes, truncate } from "../protocol/format.js";
import type { Command } from "./commands/command.js";
import { targetOf } from "./commands/target.js";
import { CommandId } from "./ids.js";
import { pickSession } from "./panelCommands.js";
import type { SessionService } from "./service.js";
import { displayTitle } from "./titles.js";
import { requireTrust } from "./trust.js";

async function reasonOnly<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ManageRefused) throw new Error(err.message);
    throw err;
  }
}

/** What the confirmation says about the session: its file and size, its forks, what goes with it. */
function confirmDetail(service: SessionService, file: string, items: string[]): string {
  const s = service.resolve(file);
  const forks = service.lib.families().forkCount(s);
  const lines = [`${basename(file)} · ${formatBytes(s.sizeBytes)}`];
  if (items.length > 1) lines.push(vscode.l10n.t("Its subagents' folder goes with it."));
  if (forks) lines.push(vscode.l10n.t("Its {0} forks stay, shown as orphans.", forks));
  lines.push(
    hasXdgTrash()
      ? vscode.l10n.t("It goes to the trash; Restore Deleted Session… puts it back.")
      : vscode.l10n.t("It goes to the system Trash, from which it can be put back."),
  );
  return lines.join("\n");
}

function deleteCommand(service: SessionService): Command {
  return {
    id: CommandId.DeleteSession,
    /** `confirmed` (second argument): skip the question (tests, and callers that asked already). */
    execute: async (arg?: unknown, confirmed?: unknown) => {
      requireTrust(vscode.l10n.t("Delete"));
      const file = targetOf(arg).file ?? (await pickSession(service, vscode.l10n.t("Delete which session?")))?.file;
      if (!file) return undefined;
      const s = service.resolve(file);
      const items = await trashItems(s.file);
      if (confirmed !== true) {
        const go = vscode.l10n.t("Move to Trash");
        const answer = await vscode.window.showWarningMessage(
          vscode.l10n.t("Delete “{0}”?", truncate(displayTitle(s), 80)),
          { modal: true, detail: confirmDetail(service, s.file, items) },
          go,
        );
        if (answer !== go) return undefined;
      }
      if (hasXdgTrash()) return reasonOnly(deleteSession(s.file));
      for (const item of items)
        await vscode.workspace.fs.delete(vscode.Uri.file(item), { recursive: true, useTrash: true });
      return items;
    },
  };
}

function restoreCommand(service: SessionService): Command {
  return {
    id: CommandId.RestoreSession,
    /** `which` (first argument): the path or session id to restore, without the list. */
    execute: async (which?: unknown) => {
      requireTrust(vscode.l10n.t("Restore"));
      if (!hasXdgTrash())
        throw new Error(vscode.l10n.t("Restore a deleted session from the system Trash (Finder or Recycle Bin)."));
      const dirs = await Promise.all(service.roots.map((r) => realpath(r.dir).catch(() => r.dir)));
      let target = typeof which === "string" ? which : undefined;
      if (!target) {
        const deleted = await recentlyDeleted(dirs);
        if (!deleted.length) {
          void vscode.window.showInformationMessage(vscode.l10n.t("No deleted session is in the trash."));
          return undefined;
        }
        const picked = await vscode.window.showQuickPick(
          deleted.map((t) => ({
            label: basename(t.file.original),
            description: t.file.deletedAt.replace("T", " "),
            detail: t.file.original,
            original: t.file.original,
          })),
          { title: vscode.l10n.t("Recently Deleted"), placeHolder: vscode.l10n.t("Restore which session?") },
        );
        target = picked?.original;
      }
      if (!target) return undefined;
      return reasonOnly(restoreSession(target, dirs));
    },
  };
}

export function trashCommands(service: SessionService): Command[] {
  return [deleteCommand(service), restoreCommand(service)];
}
