/**
 * Wires the agent history of files: the index, the CodeLens, the Agent History view and their commands (Show Agent
 * History of This File, Show Edit Diff, Compare with Current File).
 */
import * as vscode from "vscode";
import { registerCommand } from "../commands/command.js";
import { AgentHistoryViewId, CommandId } from "../ids.js";
import type { Logger } from "../logging.js";
import type { SessionService } from "../service.js";
import type { TranscriptPanels } from "../webviews/transcriptPanel.js";
import { AgentHistoryProvider, type HistoryElement, TouchItem } from "./agentHistoryView.js";
import { pickTurn, TouchCodeLens } from "./codeLens.js";
import { FileHistory } from "./fileHistory.js";
import { compareWithCurrent, showEditDiff } from "./touchTurns.js";

export interface FileHistoryParts {
  history: FileHistory;
  agentHistory: AgentHistoryProvider;
  agentHistoryView: vscode.TreeView<HistoryElement>;
  disposable: vscode.Disposable;
}

function touchOf(arg: unknown) {
  if (arg instanceof TouchItem) return arg.touch;
  throw new Error(vscode.l10n.t("Choose an edit in the Agent History view"));
}

export function registerFileHistory(
  service: SessionService,
  transcripts: TranscriptPanels,
  logger: Logger,
): FileHistoryParts {
  const history = new FileHistory(service, logger);
  const agentHistory = new AgentHistoryProvider(service, history);
  const agentHistoryView = vscode.window.createTreeView(AgentHistoryViewId, { treeDataProvider: agentHistory });
  agentHistory.view = agentHistoryView;
  const lens = new TouchCodeLens(history);
  const disposable = vscode.Disposable.from(
    history,
    agentHistory,
    agentHistoryView,
    lens,
    vscode.languages.registerCodeLensProvider({ scheme: "file" }, lens),
    registerCommand(
      CommandId.ShowFileHistory,
      async (arg?: unknown) => {
        const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
        if (!uri || uri.scheme !== "file") throw new Error(vscode.l10n.t("Open a file first"));
        const touch = await pickTurn(service, history, uri);
        if (!touch) return undefined;
        transcripts.show(touch.session.file, touch.entryId);
        return { file: touch.session.file, entryId: touch.entryId };
      },
      logger,
    ),
    registerCommand(
      CommandId.ShowEditDiff,
      (arg?: unknown) => showEditDiff(service, transcripts.diffs, touchOf(arg)),
      logger,
    ),
    registerCommand(
      CommandId.CompareWithCurrentFile,
      (arg?: unknown) => compareWithCurrent(service, transcripts.diffs, touchOf(arg)),
      logger,
    ),
  );
  return { history, agentHistory, agentHistoryView, disposable };
}
