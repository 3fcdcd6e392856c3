/**
 * The CodeLens at the top of a workspace file that agent turns touched ("✎ 3 agent edits · 👁 5 reads · 2
 * sessions"), and the quick pick of those turns it opens. The lens reads the file history's index only: typing never
 * reads a session.
 */
import * as vscode from "vscode";
import { relativeTime } from "../../protocol/format.js";
import type { FileTouch } from "../../node/touches.js";
import { CommandId } from "../ids.js";
import type { SessionService } from "../service.js";
import type { FileHistory } from "./fileHistory.js";
import { KIND_ICONS, kindLabel, lensTitle, promptsOf, type TurnText } from "./touchTurns.js";
import { displayTitle, pickText } from "../titles.js";

function codeLensEnabled(): boolean {
  return vscode.workspace.getConfiguration("piSessions").get<boolean>("codeLens.enabled", true);
}

export class TouchCodeLens implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.emitter.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly history: FileHistory) {
    this.subscriptions = [
      history.onDidChange(() => this.emitter.fire()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("piSessions.codeLens.enabled")) this.emitter.fire();
      }),
    ];
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (!codeLensEnabled() || document.uri.scheme !== "file") return [];
    if (!vscode.workspace.getWorkspaceFolder(document.uri)) return [];
    const touches = this.history.touchesOf(document.uri.fsPath);
    if (!touches?.length) return [];
    return [
      new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), {
        title: lensTitle(touches),
        tooltip: vscode.l10n.t("The agent turns that read or changed this file"),
        command: CommandId.ShowFileHistory,
        arguments: [document.uri],
      }),
    ];
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.emitter.dispose();
  }
}

type TurnItem = vscode.QuickPickItem & { touch: FileTouch };

/**
 * The quick pick of a file's turns: the prompt's first line, then kind, session and time. Resolves with the chosen
 * touch (undefined when dismissed).
 */
export async function pickTurn(
  service: SessionService,
  history: FileHistory,
  uri: vscode.Uri,
): Promise<FileTouch | undefined> {
  const pick = vscode.window.createQuickPick<TurnItem>();
  pick.title = vscode.l10n.t("Agent turns that touched {0}", vscode.workspace.asRelativePath(uri));
  pick.placeholder = vscode.l10n.t("Open a turn in its transcript");
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  pick.busy = true;
  history.activePick = pick;
  pick.show();
  const chosen = new Promise<FileTouch | undefined>((resolve) => {
    pick.onDidAccept(() => resolve(pick.selectedItems[0]?.touch));
    pick.onDidHide(() => resolve(undefined));
  });
  const textOf = (prompts: Map<string, TurnText> | undefined, t: FileTouch) =>
    prompts?.get(`${t.session.file}\n${t.entryId}`);
  const items = (touches: FileTouch[], prompts?: Map<string, TurnText>): TurnItem[] =>
    touches.map((t) => ({
      touch: t,
      label: `$(${KIND_ICONS[t.kind]}) ${pickText(textOf(prompts, t)?.prompt || displayTitle(t.session))}`,
      description: [kindLabel(t.kind), Number.isFinite(t.time) ? relativeTime(t.time) : ""].filter(Boolean).join(" · "),
      detail: [
        pickText(displayTitle(t.session)),
        t.onActivePath ? "" : pickText(textOf(prompts, t)?.branch ?? vscode.l10n.t("another branch")),
      ]
        .filter(Boolean)
        .join(" · "),
    }));
  void (async () => {
    const touches = await history.touchesWhenReady(uri.fsPath);
    pick.items = items(touches);
    if (!touches.length) pick.placeholder = vscode.l10n.t("No agent turn read or changed this file");
    pick.items = items(touches, await promptsOf(service, touches));
    pick.busy = false;
  })().catch(() => (pick.busy = false));
  const touch = await chosen;
  if (history.activePick === pick) history.activePick = undefined;
  pick.dispose();
  return touch;
}
