/**
 * "Compare Branches…" (palette: a session, then two of its leaves or a fork), "Compare with Active Branch" on a
 * branch node, and "Compare with Parent" on a fork: each opens the branch comparison panel.
 */
import * as vscode from "vscode";
import { leavesOf, newestLeafBelow } from "../../core/compare.js";
import { pathTo, type Session } from "../../core/session/index.js";
import { isMetadataEntry } from "../../core/summaryFacts.js";
import { promptBefore } from "../../core/toolFiles.js";
import { entryLabelIn } from "../../core/entryText.js";
import { relativeTime, truncate } from "../../protocol/format.js";
import { lastActivity } from "../../node/store/index.js";
import { targetOf } from "../commands/target.js";
import type { Command } from "../commands/command.js";
import { CommandId } from "../ids.js";
import { pickSession } from "../panelCommands.js";
import type { SessionService } from "../service.js";
import type { PanelManager } from "../webviews/panels.js";
import { displayTitle, leafBranchTitle, pickText } from "../titles.js";
import { branchesOnPath } from "../../core/branches.js";

type Side = { file: string; leafId?: string };
type SideItem = vscode.QuickPickItem & { side: Side };

async function opened(service: SessionService, file: string): Promise<Session> {
  const r = await service.lib.open(file);
  if (!r.ok) throw new Error(vscode.l10n.t("{0} cannot be read: {1}", file, r.rejection.message));
  return r.session;
}

/** The leaves of a session, then its forks, as quick pick items. */
function sideItems(service: SessionService, file: string, session: Session): SideItem[] {
  const items: SideItem[] = leavesOf(session).map((leaf) => ({
    // Named as the tree and the transcript name the branch; without a branch point above, by its last prompt.
    label: `$(git-branch) ${pickText(
      leafBranchTitle(branchesOnPath(session, leaf.id)) ?? truncate(promptBefore(session, leaf.id) || leaf.id, 80),
    )}`,
    description: [
      leaf.id === session.leafId ? vscode.l10n.t("active branch") : "",
      activeAt(session, leaf.id) ? relativeTime(activeAt(session, leaf.id)!) : "",
    ]
      .filter(Boolean)
      .join(" · "),
    detail: vscode.l10n.t("ends at “{0}”", pickText(entryLabelIn(session.byId, leaf, 80))),
    side: { file, leafId: leaf.id },
  }));
  const s = service.lib.get(file);
  for (const child of [...(s?.children ?? [])].sort((x, y) => lastActivity(y) - lastActivity(x)))
    items.push({
      label: `$(repo-forked) ${pickText(truncate(displayTitle(child), 80))}`,
      description: `${vscode.l10n.t("fork")} · ${relativeTime(lastActivity(child))}`,
      side: { file: child.file },
    });
  return items;
}

function scopeOf(service: SessionService, panels: PanelManager): Scope {
  const show = (a: Side, b: Side) =>
    panels.show({
      panel: "compare",
      file: a.file,
      entryId: a.leafId,
      otherFile: b.file === a.file ? undefined : b.file,
      otherEntryId: b.leafId,
    });
  return { service, show };
}

/** What the commands below share. */
interface Scope {
  service: SessionService;
  show: (a: Side, b: Side) => ReturnType<PanelManager["show"]>;
}

export function compareCommands(service: SessionService, panels: PanelManager): Command[] {
  const scope = scopeOf(service, panels);
  return [compareBranchesCommand(scope), compareWithActiveBranchCommand(scope), compareWithParentCommand(scope)];
}

/** `CompareBranches`. */
function compareBranchesCommand({ service, show }: Scope): Command {
  return {
    id: CommandId.CompareBranches,
    execute: async (arg?: unknown) => {
      await service.ensureStarted();
      const file =
        targetOf(arg).file ??
        (await pickSession(service, vscode.l10n.t("Compare the branches of which session?")))?.file;
      if (!file) return undefined;
      const items = sideItems(service, file, await opened(service, file));
      if (items.length < 2)
        throw new Error(vscode.l10n.t("This session has one branch and no fork: nothing to compare"));
      const a = await vscode.window.showQuickPick(items, {
        title: vscode.l10n.t("Compare Branches (1/2): the first side"),
        matchOnDescription: true,
      });
      if (!a) return undefined;
      const b = await vscode.window.showQuickPick(
        items.filter((i) => i !== a),
        { title: vscode.l10n.t("Compare Branches (2/2): the other side"), matchOnDescription: true },
      );
      if (!b) return undefined;
      return show(a.side, b.side).state;
    },
  };
}

/** `CompareWithActiveBranch`. */
function compareWithActiveBranchCommand({ service, show }: Scope): Command {
  return {
    id: CommandId.CompareWithActiveBranch,
    execute: async (arg?: unknown) => {
      await service.ensureStarted();
      const file = targetOf(arg).file;
      const entryId = targetOf(arg).entryId;
      if (!file || !entryId) throw new Error(vscode.l10n.t("Choose a branch in the Sessions view"));
      const session = await opened(service, file);
      // Side A follows the active leaf as the session grows (no leaf given).
      return show({ file }, { file, leafId: newestLeafBelow(session, entryId) }).state;
    },
  };
}

/** `CompareWithParent`. */
function compareWithParentCommand({ service, show }: Scope): Command {
  return {
    id: CommandId.CompareWithParent,
    execute: async (arg?: unknown) => {
      await service.ensureStarted();
      const s = service.lib.get(targetOf(arg).file ?? "");
      if (!s?.parent) throw new Error(vscode.l10n.t("Choose a fork whose parent session is listed"));
      return show({ file: s.parent.file }, { file: s.file }).state;
    },
  };
}

/** The newest activity on the path to `leafId` (a name or label appended later is none), or null. */
function activeAt(session: Session, leafId: string): number | null {
  const path = pathTo(session, leafId);
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i]!;
    const t = isMetadataEntry(e) || !e.timestamp ? Number.NaN : Date.parse(e.timestamp);
    if (Number.isFinite(t)) return t;
  }
  return null;
}
