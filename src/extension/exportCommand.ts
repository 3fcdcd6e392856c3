/**
 * "Pi Sessions: Export Branch…": the branch of a session (the selected entry's, else the active one) as Markdown or a
 * self-contained HTML file, written where the user chooses, with progress and Cancel. Presets for callers and
 * tests: `{ format, uri }` skip the two questions; the file is only ever written where the save dialog (or the
 * caller) says.
 */
import * as vscode from "vscode";
import { writeExport } from "../node/exportWrite.js";
import { lastActivity } from "../node/store/index.js";
import { exportBranch, type ExportFormat } from "../node/views/exportBranch.js";
import { targetOf } from "./commands/target.js";
import type { Command } from "./commands/command.js";
import { CommandId } from "./ids.js";
import type { Logger } from "./logging.js";
import type { SessionService } from "./service.js";
import { displayTitle, pickText } from "./titles.js";

interface ExportArgs {
  format?: ExportFormat;
  /** Where to write (a file URI string), instead of asking. */
  uri?: string;
}

/** A file name from a title: no path separators or characters file systems refuse, at most 60 characters. */
function fileNameOf(title: string): string {
  return (
    title
      .replace(/[\\/:*?"<>|\p{Cc}]+/gu, " ")
      .replace(/\s+/g, " ")
      .slice(0, 60)
      // No dot or space at the end: "repo." would give "repo..html", and Windows drops them.
      .replace(/[.\s]+$/, "")
      .trim() || "session"
  );
}

export function exportCommand(service: SessionService, logger: Logger): Command {
  return {
    id: CommandId.ExportBranch,
    execute: async (target?: unknown, argsArg?: unknown) => {
      const args = (argsArg && typeof argsArg === "object" ? argsArg : {}) as ExportArgs;
      await service.ensureStarted();
      const lib = service.lib;
      let file = targetOf(target).file;
      if (!file) {
        const items = lib.sessions
          .filter((s) => s.summary.ok)
          .sort((a, b) => lastActivity(b) - lastActivity(a))
          .map((s) => ({
            label: pickText(displayTitle(s)),
            description: pickText(s.summary.ok ? (s.summary.cwd ?? "") : ""),
            file: s.file,
          }));
        file = (await vscode.window.showQuickPick(items, { title: vscode.l10n.t("Export a branch of which session?") }))
          ?.file;
      }
      if (!file) return undefined;
      const stored = service.resolve(file);
      const format =
        args.format ??
        (
          await vscode.window.showQuickPick(
            [
              { label: vscode.l10n.t("Markdown"), description: ".md", format: "md" as const },
              { label: vscode.l10n.t("HTML, one self-contained file"), description: ".html", format: "html" as const },
            ],
            { title: vscode.l10n.t("Export as") },
          )
        )?.format;
      if (!format) return undefined;
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      const name = `${fileNameOf(displayTitle(stored))}.${format}`;
      const uri = args.uri
        ? vscode.Uri.parse(args.uri)
        : await vscode.window.showSaveDialog({
            title: vscode.l10n.t("Export Branch"),
            defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
            filters: format === "md" ? { Markdown: ["md"] } : { HTML: ["html"] },
          });
      if (!uri) return undefined;
      if (/\.jsonl$/i.test(uri.fsPath)) throw new Error(vscode.l10n.t("an export is not written over a .jsonl file"));
      const leafId = targetOf(target).entryId;
      const written = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: vscode.l10n.t("Exporting {0}…", displayTitle(stored)),
          cancellable: true,
        },
        async (_progress, token) => {
          const r = await lib.open(file);
          if (!r.ok) throw new Error(vscode.l10n.t("{0} cannot be read: {1}", file, r.rejection.message));
          if (token.isCancellationRequested) return undefined;
          const { text, entries } = await exportBranch(r.session, stored, { leafId, format });
          if (token.isCancellationRequested) return undefined;
          await writeExport(uri.fsPath, text);
          return entries;
        },
      );
      if (written === undefined) return undefined;
      logger.info(`exported ${written} entries of ${file} to ${uri.fsPath}`);
      const open = vscode.l10n.t("Open");
      void vscode.window
        .showInformationMessage(vscode.l10n.t("Exported {0} entries to {1}", written, uri.fsPath), open)
        .then((c) => {
          if (c === open) void vscode.commands.executeCommand("vscode.open", uri);
        });
      return uri.fsPath;
    },
  };
}
