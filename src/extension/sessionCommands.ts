/** The explorer's commands. Each is registered through `registerCommand`, which reports failures with "Show Log". */
import { basename } from "node:path";
import * as vscode from "vscode";
import { FILTER_MODES, type FilterMode, isFilterMode } from "../core/outline.js";
import { clipboardShell, commandLine, resumeArgs, shellKindOf } from "../core/resume.js";
import { targetOf } from "./commands/target.js";
import { inspectTail, repairTail } from "../node/repair.js";
import type { Command } from "./commands/command.js";
import { requireTrust } from "./trust.js";
import { CommandId, ContextKey } from "./ids.js";
import type { Logger } from "./logging.js";
import type { SessionService } from "./service.js";
import type { SessionsTreeProvider, Element } from "./tree/index.js";
import { relativeTime, truncate } from "../protocol/format.js";
import type { SessionLibrary } from "../node/library.js";
import { lastActivity, type StoreSession } from "../node/store/index.js";
import { displayTitle, pickText } from "./titles.js";
import { sessionsViewTexts } from "./firstRun.js";

/** What each filter mode hides, for the filter picker. */
function filterText(mode: FilterMode): string {
  switch (mode) {
    case "default":
      return vscode.l10n.t("Default: hide settings and bookkeeping entries");
    case "no-tools":
      return vscode.l10n.t("No tools: default, without tool results and tool-call-only replies");
    case "user-only":
      return vscode.l10n.t("User only: just your prompts");
    case "labeled-only":
      return vscode.l10n.t("Labeled only: entries with a label");
    case "all":
      return vscode.l10n.t("All: every entry");
  }
}

export interface CommandContext {
  service: SessionService;
  tree: SessionsTreeProvider;
  view: vscode.TreeView<Element>;
  logger: Logger;
  state: vscode.Memento;
}

export function applyFilterDescription(
  view: vscode.TreeView<Element>,
  mode: FilterMode,
  service: SessionService,
): void {
  const texts = sessionsViewTexts(service.state, service.roots, mode);
  view.description = texts.description;
  view.message = texts.message;
  void vscode.commands.executeCommand("setContext", ContextKey.Filter, mode);
}

function scopeOf(ctx: CommandContext): Scope {
  const { service, tree, view, logger } = ctx;
  const lib = () => service.lib;

  /** Only sessions the store listed (inside the configured roots) are ever opened. */
  const knownSession = (file: string | undefined) => service.resolve(file);

  const revealSession = async (file: string) => {
    knownSession(file);
    const el = await tree.sessionElementFor(file);
    if (!el) throw new Error(vscode.l10n.t("session {0} is not in the tree", basename(file)));
    await view.reveal(el, { select: true, focus: true, expand: true });
    return el;
  };

  const revealEntry = async (file: string, entryId: string) => {
    const sessionEl = await revealSession(file);
    const el = await tree.entryElementFor(sessionEl, entryId);
    if (!el)
      throw new Error(vscode.l10n.t("entry {0} is not shown under the current filter ({1})", entryId, tree.filter));
    await view.reveal(el, { select: true, focus: true, expand: false });
    return el;
  };

  return { ctx, service, tree, view, logger, lib, knownSession, revealSession, revealEntry };
}

/** What the commands below share. */
interface Scope {
  ctx: CommandContext;
  service: SessionService;
  tree: SessionsTreeProvider;
  view: vscode.TreeView<Element>;
  logger: Logger;
  lib: () => SessionLibrary;
  knownSession: (file: string | undefined) => StoreSession;
  revealSession: (file: string) => Promise<Element>;
  revealEntry: (file: string, entryId: string) => Promise<Element>;
}

export function sessionCommands(ctx: CommandContext): Command[] {
  const scope = scopeOf(ctx);
  return [
    refreshCommand(scope),
    setFilterCommand(scope),
    searchCommand(scope),
    showLogCommand(scope),
    openEntryCommand(scope),
    openEntryCommand(scope, true),
    copyEntryIdCommand(scope),
    copyResumeCommandCommand(scope),
    revealParentCommand(scope),
    repairTailCommand(scope),
    revealSessionCommand(scope),
    revealEntryCommand(scope),
  ];
}

/** `Refresh`. */
function refreshCommand({ service }: Scope): Command {
  return {
    id: CommandId.Refresh,
    execute: async () => {
      service.flushWatcher();
      await service.refresh();
    },
  };
}

/** `SetFilter`. */
function setFilterCommand({ ctx, tree, view, service }: Scope): Command {
  return {
    id: CommandId.SetFilter,
    execute: async (mode?: unknown) => {
      let next: FilterMode | undefined = isFilterMode(mode) ? mode : undefined;
      if (!next) {
        const pick = await vscode.window.showQuickPick(
          FILTER_MODES.map((m) => ({
            label: m,
            description: m === tree.filter ? vscode.l10n.t("(current)") : undefined,
            detail: filterText(m),
            mode: m,
          })),
          {
            title: vscode.l10n.t("Pi Sessions: filter the entry tree"),
            placeHolder: vscode.l10n.t("Current: {0}", tree.filter),
          },
        );
        next = pick?.mode;
      }
      if (!next) return undefined;
      tree.setFilter(next);
      applyFilterDescription(view, next, service);
      await ctx.state.update("piSessions.filter", next);
      return next;
    },
  };
}

/** `Search`. */
function searchCommand({ service, lib, revealSession, revealEntry }: Scope): Command {
  return {
    id: CommandId.Search,
    execute: async () => {
      await service.ensureStarted();
      type Item = vscode.QuickPickItem & { file: string; entryId?: string };
      const items: Item[] = [];
      // Newest first, this workspace's sessions before the others.
      const inWorkspace = new Set(service.workspaceSessions());
      const sessions = lib().sessions.sort(
        (a, b) => Number(inWorkspace.has(b)) - Number(inWorkspace.has(a)) || lastActivity(b) - lastActivity(a),
      );
      for (const s of sessions) {
        const sum = s.summary;
        if (!sum.ok) {
          items.push({
            label: `$(error) ${pickText(basename(s.file))}`,
            description: vscode.l10n.t("not readable"),
            detail: pickText(sum.rejection.message),
            file: s.file,
          });
          continue;
        }
        const title = pickText(displayTitle(s));
        const forkOf = s.parent
          ? `${vscode.l10n.t("fork of {0}", pickText(truncate(displayTitle(s.parent), 40)))} · `
          : sum.parentSession
            ? `${vscode.l10n.t("orphan fork")} · `
            : "";
        items.push({
          label: `$(${sum.parentSession ? "repo-forked" : "comment-discussion"}) ${title}`,
          description: `${forkOf}${pickText(sum.cwd ?? "")} · ${relativeTime(lastActivity(s))}`,
          detail: sum.name && sum.firstPrompt ? pickText(sum.firstPrompt) : undefined,
          file: s.file,
        });
        for (const [entryId, label] of sum.labels) {
          items.push({
            label: `$(tag) ${pickText(label)}`,
            description: vscode.l10n.t("in {0}", title),
            file: s.file,
            entryId,
          });
        }
      }
      const pick = await vscode.window.showQuickPick(items, {
        title: vscode.l10n.t("Pi Sessions: Find Session by Name"),
        placeHolder: vscode.l10n.t("Session name, first prompt or label"),
        matchOnDescription: true,
        matchOnDetail: true,
      });
      if (!pick) return undefined;
      if (pick.entryId) await revealEntry(pick.file, pick.entryId);
      else await revealSession(pick.file);
      return pick.file;
    },
  };
}

/** `ShowLog`. */
function showLogCommand({ logger }: Scope): Command {
  return { id: CommandId.ShowLog, execute: () => logger.show() };
}

/**
 * `OpenEntry`: the session file at an entry's line, read-only (an agent may be appending to it; a stray key must not
 * edit it). `OpenEntryEditable`: the same, editable, for an explicit choice.
 */
function openEntryCommand(scope: Scope, editable = false): Command {
  return {
    id: editable ? CommandId.OpenEntryEditable : CommandId.OpenEntry,
    execute: async (arg?: unknown, lineArg?: unknown) => {
      const file = targetOf(arg).file;
      scope.knownSession(file);
      let line = typeof lineArg === "number" ? lineArg : 1;
      const entryId = targetOf(arg).entryId;
      if (entryId) {
        const r = await scope.lib().open(file!);
        const e = r.ok ? r.session.byId.get(entryId) : undefined;
        if (e) line = e.line;
      }
      const position = new vscode.Position(Math.max(0, line - 1), 0);
      const editor = await vscode.window.showTextDocument(vscode.Uri.file(file!), {
        selection: new vscode.Range(position, position),
        preview: !editable,
      });
      // VS Code's own read-only state for this editor's file, for the window's session (the status bar shows a lock).
      await vscode.commands.executeCommand(
        editable
          ? "workbench.action.files.resetActiveEditorReadonlyInSession"
          : "workbench.action.files.setActiveEditorReadonlyInSession",
      );
      // The entry's whole line selected: where it ends is as plain as where it starts.
      const row = Math.min(position.line, editor.document.lineCount - 1);
      editor.selection = new vscode.Selection(row, 0, row, editor.document.lineAt(row).range.end.character);
      editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      return line;
    },
  };
}

/** `CopyEntryId`. */
function copyEntryIdCommand(_scope: Scope): Command {
  return {
    id: CommandId.CopyEntryId,
    execute: async (el?: unknown) => {
      const id = targetOf(el).entryId;
      if (!id) throw new Error(vscode.l10n.t("select an entry to copy its id"));
      await vscode.env.clipboard.writeText(id);
      vscode.window.setStatusBarMessage(vscode.l10n.t("Copied entry id {0}", id), 3000);
      return id;
    },
  };
}

/** `CopyResumeCommand`. */
function copyResumeCommandCommand({ knownSession }: Scope): Command {
  return {
    id: CommandId.CopyResumeCommand,
    execute: async (el?: unknown) => {
      const s = knownSession(targetOf(el).file);
      // Quoted for the shell it will be pasted into: the default terminal's (PowerShell or cmd.exe on Windows).
      const shell = clipboardShell(shellKindOf(vscode.env.shell), process.platform === "win32");
      const cmd = commandLine(resumeArgs(s.summary.ok ? s.summary.flavor : null, s.file), shell);
      if (cmd === null)
        throw new Error(
          vscode.l10n.t("The session's path cannot be quoted for cmd.exe (it holds % or \"); use PowerShell"),
        );
      await vscode.env.clipboard.writeText(cmd);
      vscode.window.setStatusBarMessage(vscode.l10n.t("Copied: {0}", cmd), 3000);
      return cmd;
    },
  };
}

/** `RevealParent`. */
function revealParentCommand({ knownSession, revealSession, revealEntry }: Scope): Command {
  return {
    id: CommandId.RevealParent,
    execute: async (el?: unknown) => {
      const s = knownSession(targetOf(el).file);
      if (!s.summary.ok || !s.summary.parentSession)
        throw new Error(vscode.l10n.t("{0} is not a fork", basename(s.file)));
      if (!s.parent) {
        throw new Error(
          s.parentState === "ambiguous"
            ? vscode.l10n.t("several sessions carry the parent id {0}; none is chosen", s.summary.parentSession.raw)
            : s.parentState === "external"
              ? vscode.l10n.t(
                  "the parent {0} is outside the configured session roots; it is not opened",
                  s.summary.parentSession.raw,
                )
              : vscode.l10n.t(
                  "the parent {0} is not under the session roots (orphan fork)",
                  s.summary.parentSession.raw,
                ),
        );
      }
      if (s.forkPointId) return revealEntry(s.parent.file, s.forkPointId);
      return revealSession(s.parent.file);
    },
  };
}

/** `RepairTail`. */
function repairTailCommand({ service, logger, knownSession }: Scope): Command {
  return {
    id: CommandId.RepairTail,
    // The confirmation cannot be skipped by an argument, and the handler checks trust itself.
    execute: async (el?: unknown) => {
      requireTrust(vscode.l10n.t("Repair"));
      const s = knownSession(targetOf(el).file);
      const seen = await inspectTail(s.file);
      if (!seen) {
        void vscode.window.showInformationMessage(
          vscode.l10n.t("{0}: the last line is complete; nothing to repair.", basename(s.file)),
        );
        return undefined;
      }
      {
        const detail =
          vscode.l10n.t(
            "The last line is incomplete ({0} bytes; the agent crashed mid-write, or is still writing):",
            seen.bytes,
          ) +
          `\n\n${seen.text.slice(0, 300)}${seen.text.length > 300 ? "…" : ""}\n\n` +
          vscode.l10n.t("A backup copy is written next to the file first; nothing else in the file changes.");
        const removeButton = vscode.l10n.t("Back Up and Remove");
        const choice = await vscode.window.showWarningMessage(
          vscode.l10n.t('Remove the incomplete last line of "{0}"?', basename(s.file)),
          { modal: true, detail },
          removeButton,
        );
        if (choice !== removeButton) return undefined;
      }
      const r = await repairTail(s.file, seen);
      logger.info(`repaired ${s.file}: removed ${r.removedBytes} bytes; backup ${r.backup}`);
      await service.refreshFile(s.file);
      void vscode.window.showInformationMessage(
        vscode.l10n.t("Removed the incomplete last line ({0} bytes). Backup: {1}", r.removedBytes, basename(r.backup)),
      );
      return r;
    },
  };
}

/** `RevealSession`. */
function revealSessionCommand({ revealSession }: Scope): Command {
  return { id: CommandId.RevealSession, execute: async (file?: unknown) => revealSession(targetOf(file).file ?? "") };
}

/** `RevealEntry`. */
function revealEntryCommand({ revealEntry }: Scope): Command {
  return {
    id: CommandId.RevealEntry,
    execute: async (file?: unknown, entryId?: unknown) => {
      if (typeof entryId !== "string") throw new Error(vscode.l10n.t("no entry given"));
      return revealEntry(targetOf(file).file ?? "", entryId);
    },
  };
}
