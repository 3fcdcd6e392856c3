/** Commands that open the panels: from a tree node (its session or entry), or from the palette with a quick pick. */
import { basename } from "node:path";
import * as vscode from "vscode";
import { nothingToChoose } from "./firstRun.js";
import { formatDateTime, formatTimeOfDay, formatTokens, relativeTime } from "../protocol/format.js";
import { type SessionLibrary } from "../node/library.js";
import { addsNoPrompt, lastActivity } from "../node/store/index.js";
import type { StoreSession } from "../node/store/index.js";
import { targetOf } from "./commands/target.js";
import type { Command } from "./commands/command.js";
import { CommandId } from "./ids.js";
import type { SessionService } from "./service.js";
import type { PanelManager } from "./webviews/panels.js";
import type { TranscriptPanels } from "./webviews/transcriptPanel.js";
import { displayTitle, pickText } from "./titles.js";

/** A moment to the millisecond, `2026-11-29 18:50:22.033`: twin forks are often made in the same second. */
const toTheSecond = (ms: number) => `${formatDateTime(ms).slice(0, 10)} ${formatTimeOfDay(ms, true)}`;

/**
 * A session chosen in a quick pick, listed as pi's `/resume` lists them: this workspace's sessions first, each group
 * newest first; forks that add no prompt of their own after the others (they read the same as their siblings).
 */
export async function pickSession(
  service: SessionService,
  title: string,
  filter: (s: StoreSession) => boolean = (s) => s.summary.ok,
): Promise<StoreSession | undefined> {
  const workspace = new Set(service.workspaceSessions());
  const rank = (s: StoreSession) => (workspace.has(s) ? 0 : 2) + (addsNoPrompt(s) ? 1 : 0);
  const items = service.lib.sessions
    .filter(filter)
    .sort((a, b) => rank(a) - rank(b) || lastActivity(b) - lastActivity(a))
    .map((s) => ({
      label: pickText(displayTitle(s)),
      // A fork without a prompt of its own reads like its siblings: the second it was made tells it apart.
      description:
        `${pickText(s.summary.ok ? (s.summary.cwd ?? "") : "")} · ${relativeTime(lastActivity(s))}` +
        (addsNoPrompt(s) && s.summary.ok ? ` · ${vscode.l10n.t("forked {0}", toTheSecond(s.summary.created))}` : ""),
      s,
    }));
  if (!items.length) return nothingToChoose();
  return (await vscode.window.showQuickPick(items, { title, matchOnDescription: true }))?.s;
}

function scopeOf(service: SessionService, panels: PanelManager, transcripts: TranscriptPanels): Scope {
  const lib = () => service.lib;
  const sessionFile = async (arg: unknown, title: string, filter?: (s: StoreSession) => boolean) => {
    await service.ensureStarted();
    const file = targetOf(arg).file ?? (await pickSession(service, title, filter))?.file;
    if (file) service.resolve(file);
    return file;
  };
  return { panels, transcripts, lib, sessionFile };
}

/** What the commands below share. */
interface Scope {
  panels: PanelManager;
  transcripts: TranscriptPanels;
  lib: () => SessionLibrary;
  sessionFile: (arg: unknown, title: string, filter?: (s: StoreSession) => boolean) => Promise<string | undefined>;
}

export function panelCommands(service: SessionService, panels: PanelManager, transcripts: TranscriptPanels): Command[] {
  const scope = scopeOf(service, panels, transcripts);
  return [
    openTranscriptCommand(scope),
    showUsageCommand(scope),
    showSessionUsageCommand(scope),
    showLineageCommand(scope),
    showContextCommand(scope),
    inspectCheckpointCommand(scope),
  ];
}

/** `OpenTranscript`. */
function openTranscriptCommand({ transcripts, sessionFile }: Scope): Command {
  return {
    id: CommandId.OpenTranscript,
    execute: async (arg?: unknown, entryArg?: unknown) => {
      const file = await sessionFile(arg, vscode.l10n.t("Open the transcript of which session?"));
      if (!file) return undefined;
      const entryId = typeof entryArg === "string" ? entryArg : targetOf(arg).entryId;
      return transcripts.show(file, entryId);
    },
  };
}

/** `ShowUsage`. */
function showUsageCommand({ panels }: Scope): Command {
  return { id: CommandId.ShowUsage, execute: async () => panels.show({ panel: "usage" }) };
}

/** `ShowSessionUsage`. */
function showSessionUsageCommand({ panels, sessionFile }: Scope): Command {
  return {
    id: CommandId.ShowSessionUsage,
    execute: async (arg?: unknown) => {
      const file = await sessionFile(arg, vscode.l10n.t("Show usage of which session?"));
      return file ? panels.show({ panel: "sessionUsage", file }) : undefined;
    },
  };
}

/** `ShowLineage`. */
function showLineageCommand({ panels, sessionFile }: Scope): Command {
  return {
    id: CommandId.ShowLineage,
    execute: async (arg?: unknown) => {
      const file = await sessionFile(
        arg,
        vscode.l10n.t("Show the fork lineage of which session?"),
        (s) => s.summary.ok && (s.parent !== null || s.children.length > 0 || s.parentState !== "none"),
      );
      return file ? panels.show({ panel: "lineage", file }) : undefined;
    },
  };
}

/** `ShowContext`. */
function showContextCommand({ panels, sessionFile }: Scope): Command {
  return {
    id: CommandId.ShowContext,
    execute: async (arg?: unknown, entryArg?: unknown) => {
      const file = await sessionFile(
        arg,
        vscode.l10n.t("Show the effective context of which session (at its active leaf)?"),
      );
      if (!file) return undefined;
      const entryId = typeof entryArg === "string" ? entryArg : targetOf(arg).entryId;
      return panels.show({ panel: "context", file, ...(entryId ? { entryId } : {}) });
    },
  };
}

/** `InspectCheckpoint`. */
function inspectCheckpointCommand({ panels, lib, sessionFile }: Scope): Command {
  return {
    id: CommandId.InspectCheckpoint,
    execute: async (arg?: unknown, entryArg?: unknown) => {
      const file = await sessionFile(
        arg,
        vscode.l10n.t("Inspect a compaction of which session?"),
        (s) => s.summary.ok && s.summary.compactions > 0,
      );
      if (!file) return undefined;
      let entryId = typeof entryArg === "string" ? entryArg : targetOf(arg).entryId;
      if (!entryId) {
        const r = await lib().open(file);
        if (!r.ok || !r.session.compactions.length)
          throw new Error(vscode.l10n.t("{0} has no compaction", basename(file)));
        const pick = await vscode.window.showQuickPick(
          r.session.compactions.map((c) => ({
            label:
              c.tokensBefore === null
                ? vscode.l10n.t("Compaction · history summarized")
                : vscode.l10n.t("Compaction · {0} tokens before", formatTokens(c.tokensBefore)),
            description:
              formatDateTime(r.session.byId.get(c.id)?.timestamp) +
              ` · ${vscode.l10n.t("line {0}", c.line)}` +
              (c.onActivePath ? ` · ${vscode.l10n.t("active path")}` : ""),
            id: c.id,
          })),
          { title: vscode.l10n.t("Inspect which compaction?") },
        );
        entryId = pick?.id;
      }
      return entryId ? panels.show({ panel: "checkpoint", file, entryId }) : undefined;
    },
  };
}
