/**
 * What each kind of panel shows: its title and its view model (pure functions over the library, in src/node/views),
 * and which changes refresh it. `PanelManager` hosts them all the same way (webviewHost.ts).
 */
import { basename } from "node:path";
import * as vscode from "vscode";
import { describeEntry } from "../../core/entryText.js";
import type { ChangeSet } from "../../node/library.js";
import { agentDirOfRoot, describeBlobImages } from "../../node/blobs.js";
import { ownCost } from "../../node/store/index.js";
import { checkpointModel } from "../../node/views/checkpoint.js";
import { contextModel } from "../../node/views/context.js";
import { dashboardModel } from "../../node/views/dashboard.js";
import { lineageMembers, lineageModel } from "../../node/views/lineage.js";
import { sessionUsageModel } from "../../node/views/sessionUsage.js";
import { truncate } from "../../protocol/format.js";
import { type PanelKind, type PanelStateOf, panelFile } from "../../protocol/messages.js";
import type { PanelModel } from "../../protocol/views.js";
import type { SessionService } from "../service.js";
import type { TeamService } from "../team/teamService.js";
import { displayTitle } from "../titles.js";
import { compareAnswer, compareEnds } from "./compareSides.js";

export interface PanelProvider<K extends PanelKind> {
  title(state: PanelStateOf<K>): string;
  model(state: PanelStateOf<K>): Promise<PanelModel>;
  /** Whether a change of the store refreshes a panel in this state. */
  affectedBy(state: PanelStateOf<K>, set: ChangeSet): boolean;
}

export type PanelProviders = { [K in PanelKind]: PanelProvider<K> };

/** The panels' providers over one service. */
export function panelProviders(service: SessionService, team?: TeamService): PanelProviders {
  const name = (file: string | undefined) => {
    const s = file ? service.lib.get(file) : undefined;
    return s ? truncate(displayTitle(s), 40) : file ? basename(file) : "";
  };
  const opened = async (file: string | undefined) => ({ s: service.resolve(file), session: await service.open(file) });
  /** A panel about one session (or two) is refreshed by a change of its files. */
  const touches = (files: (string | undefined)[], set: ChangeSet) =>
    set.structural || set.changes.some((c) => files.includes(c.file));
  return {
    usage: {
      title: () => vscode.l10n.t("Usage & Cost"),
      model: async (state) => {
        if (state.scope === "team") {
          if (!team) throw new Error(vscode.l10n.t("the team database is not available here"));
          return team.dashboard({ since: state.since ?? null, until: state.until ?? null });
        }
        await service.lib.whenComplete();
        const { folders, host } = service.workspaceScope();
        return dashboardModel(service.lib.sessions, {
          scope: state.scope ?? (folders.length ? "workspace" : "all"),
          since: state.since ?? null,
          until: state.until ?? null,
          folders,
          host,
        });
      },
      // The Team scope reads the database: a local write does not change it (Sync Now refreshes it).
      affectedBy: (state) => state.scope !== "team",
    },
    sessionUsage: {
      title: (state) => vscode.l10n.t("Usage: {0}", name(state.file)),
      model: async (state) => {
        const { s, session } = await opened(state.file);
        return sessionUsageModel(session, s.inherited, displayTitle(s));
      },
      affectedBy: (state, set) => touches([state.file], set),
    },
    checkpoint: {
      title: (state) => vscode.l10n.t("Checkpoint: {0}", name(state.file)),
      model: async (state) => {
        const { s, session } = await opened(state.file);
        if (!state.entryId) throw new Error(vscode.l10n.t("no compaction entry given"));
        // A fork's copy of its parent's compaction has the parent's id: ownership says it was inherited.
        return checkpointModel(session, state.entryId, {
          copiedFromParent: s.inherited.has(state.entryId),
          sessionTitle: displayTitle(s),
        });
      },
      affectedBy: (state, set) => touches([state.file], set),
    },
    context: {
      title: (state) => vscode.l10n.t("Context: {0}", name(state.file)),
      model: async (state) => {
        const { s, session } = await opened(state.file);
        // OMP images stored as blobs: sized from the agent dir of the session's store root, or marked missing.
        const model = contextModel(session, state.entryId ?? null, displayTitle(s));
        return describeBlobImages(model, agentDirOfRoot(s.root.dir));
      },
      affectedBy: (state, set) => touches([state.file], set),
    },
    compare: {
      title: (state) => vscode.l10n.t("Compare: {0}", name(state.file)),
      model: async (state) => {
        const [a, b] = await compareEnds(service, state);
        const answer = await compareAnswer(service, a, b, { kind: "model" });
        if (!("model" in answer)) throw new Error(vscode.l10n.t("the compare worker answered another question"));
        return answer.model;
      },
      affectedBy: (state, set) => touches([state.file, state.otherFile], set),
    },
    lineage: {
      title: (state) => vscode.l10n.t("Lineage: {0}", name(state.file)),
      model: (state) => lineagePanelModel(service, state),
      affectedBy: () => true,
    },
  };
}

async function lineagePanelModel(service: SessionService, state: PanelStateOf<"lineage">): Promise<PanelModel> {
  const lib = service.lib;
  await lib.whenComplete();
  const focus = service.resolve(panelFile(state));
  // Fork points are described from the parents' entries: read the parents in the graph.
  for (const m of lineageMembers(focus)) if (m.children.length) await lib.open(m.file).catch(() => undefined);
  return lineageModel(focus, {
    title: displayTitle,
    ownCost,
    keyOf: (s) => s.file,
    forkLabel: (c) => {
      if (!c.forkPointId)
        return c.summary.ok && c.summary.subagent ? vscode.l10n.t("subagent") : vscode.l10n.t("new conversation");
      const r = c.parent ? lib.peek(c.parent.file) : undefined;
      const e = r?.ok ? r.session.byId.get(c.forkPointId) : undefined;
      return vscode.l10n.t("at {0}", e ? truncate(describeEntry(e), 40) : c.forkPointId);
    },
  });
}
