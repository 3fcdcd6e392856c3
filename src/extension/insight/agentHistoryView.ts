/**
 * The "Agent History" view: the turns that touched the active editor's file, grouped by session (newest session
 * first), following the editor like GitLens' File History. An edit or write has "Show Edit Diff" inline; a write
 * also "Compare with Current File" (an edit's full text is not known, and the view says so).
 */
import { basename } from "node:path";
import * as vscode from "vscode";
import { relativeTime } from "../../protocol/format.js";
import { type StoreSession } from "../../node/store/index.js";
import type { FileTouch } from "../../node/touches.js";
import { CommandId, TouchContextValue } from "../ids.js";
import type { SessionService } from "../service.js";
import type { FileHistory } from "./fileHistory.js";
import { KIND_ICONS, promptsOf, sessionsSummary, touchTooltip, touchWhen } from "./touchTurns.js";
import { displayTitle } from "../titles.js";

export class SessionTouches {
  constructor(
    readonly session: StoreSession,
    readonly touches: FileTouch[],
    /** The newest sessions open expanded; the others wait for a click (their prompts are read then). */
    readonly expanded: boolean,
  ) {}
}

/** Session groups shown expanded. */
const EXPANDED_GROUPS = 3;

export class TouchItem {
  constructor(
    readonly touch: FileTouch,
    readonly prompt: string | undefined,
  ) {}
}

export type HistoryElement = SessionTouches | TouchItem;

export class AgentHistoryProvider implements vscode.TreeDataProvider<HistoryElement>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<HistoryElement | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly subscriptions: vscode.Disposable[];
  /** The file the view follows (the active editor's, kept while focus is elsewhere, e.g. in a diff or a panel). */
  file: vscode.Uri | undefined;
  view: vscode.TreeView<HistoryElement> | undefined;

  constructor(
    private readonly service: SessionService,
    private readonly history: FileHistory,
  ) {
    this.subscriptions = [
      vscode.window.onDidChangeActiveTextEditor((e) => this.follow(e)),
      history.onDidChange(() => this.emitter.fire(undefined)),
    ];
    this.follow(vscode.window.activeTextEditor);
  }

  private follow(editor: vscode.TextEditor | undefined): void {
    const uri = editor?.document.uri;
    if (!uri || uri.scheme !== "file" || uri.toString() === this.file?.toString()) return;
    this.file = uri;
    this.emitter.fire(undefined);
  }

  async getChildren(element?: HistoryElement): Promise<HistoryElement[]> {
    if (element instanceof TouchItem) return [];
    if (element instanceof SessionTouches) {
      const prompts = await promptsOf(this.service, element.touches);
      return element.touches.map((t) => new TouchItem(t, prompts.get(`${t.session.file}\n${t.entryId}`)?.prompt));
    }
    const file = this.file;
    this.describe(file, null);
    if (!file) return [];
    const touches = await this.history.touchesWhenReady(file.fsPath);
    if (file !== this.file) return [];
    this.describe(file, touches);
    const bySession = new Map<string, FileTouch[]>();
    for (const t of touches) {
      let list = bySession.get(t.session.file);
      if (!list) bySession.set(t.session.file, (list = []));
      list.push(t);
    }
    // Touches are newest first, so sessions come in the order of their latest touch.
    return [...bySession.values()].map((list, i) => new SessionTouches(list[0]!.session, list, i < EXPANDED_GROUPS));
  }

  private describe(file: vscode.Uri | undefined, touches: FileTouch[] | null): void {
    if (!this.view) return;
    this.view.description = file ? vscode.workspace.asRelativePath(file) : undefined;
    this.view.message = !file
      ? vscode.l10n.t("Open a file to see the agent turns that read or changed it.")
      : touches?.length === 0
        ? vscode.l10n.t("No agent turn read or changed {0}.", basename(file.fsPath))
        : undefined;
  }

  getTreeItem(element: HistoryElement): vscode.TreeItem {
    if (element instanceof SessionTouches) {
      const item = new vscode.TreeItem(
        displayTitle(element.session),
        element.expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
      );
      const latest = element.touches[0]!;
      item.id = `history:${element.session.file}`;
      item.description = `${sessionsSummary(element.touches)}${
        Number.isFinite(latest.time) ? ` · ${relativeTime(latest.time)}` : ""
      }`;
      item.iconPath = new vscode.ThemeIcon("comment-discussion");
      item.contextValue = TouchContextValue.Session;
      item.tooltip = element.session.file;
      return item;
    }
    const t = element.touch;
    const item = new vscode.TreeItem(element.prompt || touchWhen(t), vscode.TreeItemCollapsibleState.None);
    item.id = `history:${t.session.file}:${t.entryId}:${t.index}`;
    item.description = element.prompt ? touchWhen(t) : undefined;
    item.iconPath = new vscode.ThemeIcon(KIND_ICONS[t.kind]);
    item.contextValue = TouchContextValue[t.kind];
    item.tooltip = touchTooltip(t, element.prompt);
    item.command = {
      command: CommandId.OpenTranscript,
      title: vscode.l10n.t("Open Turn in Transcript"),
      arguments: [t.session.file, t.entryId],
    };
    return item;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.emitter.dispose();
  }
}
