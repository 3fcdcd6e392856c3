/**
 * Composition root: build the services in order, wire them, and hand every disposable to VS Code. Nothing is
 * read here: the first session file is read when the Sessions view first asks for its children.
 */
import * as vscode from "vscode";
import { cacheDir } from "../node/cacheDir.js";
import { markCommands } from "./markCommands.js";
import { trashCommands } from "./trashCommands.js";
import { MarksState } from "./marksState.js";
import { type FilterMode, isFilterMode } from "../core/outline.js";
import { SessionsViewId } from "./ids.js";
import { OutputLogger } from "./logging.js";
import { readSettings, SessionService } from "./service.js";
import { applyFilterDescription, sessionCommands } from "./sessionCommands.js";
import { compactCommands } from "./compactCommand.js";
import { manageCommands } from "./manageCommands.js";
import { panelCommands } from "./panelCommands.js";
import { exportCommand } from "./exportCommand.js";
import { SessionsTreeProvider, type Element } from "./tree/index.js";
import { PanelManager } from "./webviews/panels.js";
import { TranscriptPanels } from "./webviews/transcriptPanel.js";
import { SearchPanel } from "./webviews/searchPanel.js";
import { searchCommands } from "./search/searchCommands.js";
import { SearchService } from "./search/searchService.js";
import { type FileHistoryParts, registerFileHistory } from "./insight/fileHistoryCommands.js";
import { LiveStatus } from "./insight/liveStatus.js";
import { resumeCommand } from "./insight/resumeTerminal.js";
import { compareCommands } from "./insight/compareCommands.js";
import { entryActionsCommand } from "./entryActions.js";
import { chooseAgentDirCommand } from "./firstRun.js";
import { findInTranscriptCommand } from "./transcriptFind.js";
import { CommandManager } from "./commands/command.js";
import { ExtensionRecallSource } from "./recall/recallSource.js";
import { registerRecallTools } from "./recall/lmTools.js";
import { registerMcpProvider } from "./recall/mcpProvider.js";
import { TeamService } from "./team/teamService.js";
import { TeamSchedule } from "./team/teamSchedule.js";
import { teamCommands } from "./team/teamCommands.js";
import { TeamTranscripts } from "./team/teamTranscripts.js";

/** What tests (and other extensions) can reach. */
export interface PiSessionsApi {
  service: SessionService;
  tree: SessionsTreeProvider;
  view: vscode.TreeView<Element>;
  panels: PanelManager;
  transcripts: TranscriptPanels;
  search: SearchService;
  searchResults: SearchPanel;
  /** The agent history of files: its index, the Agent History view. */
  fileHistory: Omit<FileHistoryParts, "disposable">;
  liveStatus: LiveStatus;
  /** The team database: Sync Now, the Team scope, the status it reports. */
  team: TeamService;
  /** Where this extension host writes its logs (the log channel's file is under its parent). */
  logDir: string;
}

export function activate(context: vscode.ExtensionContext): PiSessionsApi {
  const logger = new OutputLogger();
  context.subscriptions.push(logger);
  try {
    const service = new SessionService(
      logger,
      vscode.Uri.joinPath(context.globalStorageUri, "cache").fsPath,
      readSettings(),
      vscode.Uri.joinPath(context.extensionUri, "dist", "summaryWorker.cjs").fsPath,
    );
    const configured = vscode.workspace.getConfiguration("piSessions").get<string>("defaultFilter");
    const remembered = context.workspaceState.get<string>("piSessions.filter");
    const filter: FilterMode = isFilterMode(remembered)
      ? remembered
      : isFilterMode(configured)
        ? configured
        : "default";
    const marks = new MarksState(service, cacheDir(), context.globalState);
    context.subscriptions.push(marks);
    const tree = new SessionsTreeProvider(service, filter, marks);
    const view = vscode.window.createTreeView<Element>(SessionsViewId, {
      treeDataProvider: tree,
      showCollapseAll: true,
    });
    applyFilterDescription(view, filter, service);
    const transcripts = new TranscriptPanels(context.extensionUri, service, logger);
    const version = String((context.extension.packageJSON as { version?: unknown }).version ?? "");
    const team = new TeamService(context.secrets, context.globalState, service, logger, version);
    const panels = new PanelManager(context.extensionUri, service, logger, transcripts.diffs, team);
    const teamTranscripts = new TeamTranscripts();
    const search = new SearchService(
      service,
      vscode.Uri.joinPath(context.extensionUri, "dist", "searchWorker.cjs").fsPath,
      logger,
    );
    const searchResults = new SearchPanel(context.extensionUri, service, search, transcripts, logger);
    const fileHistory = registerFileHistory(service, transcripts, logger);
    const liveStatus = new LiveStatus(service, team);
    const recall = new ExtensionRecallSource(service, search);
    context.subscriptions.push(
      ...registerRecallTools(recall),
      ...registerMcpProvider(context, logger),
      fileHistory.disposable,
      liveStatus,
      team,
      teamTranscripts,
      new TeamSchedule(team, service, logger),
      panels,
      transcripts,
      searchResults,
      search,
      service,
      tree,
      view,
      new CommandManager(logger).register(
        ...sessionCommands({ service, tree, view, logger, state: context.workspaceState }),
        ...searchCommands({ service, search, transcripts, results: searchResults, logger }),
        ...panelCommands(service, panels, transcripts),
        ...compareCommands(service, panels),
        ...compactCommands(context, service, panels, logger),
        exportCommand(service, logger),
        ...manageCommands(service),
        ...markCommands(service, marks),
        ...trashCommands(service),
        entryActionsCommand(),
        chooseAgentDirCommand(),
        findInTranscriptCommand(transcripts),
        resumeCommand(service),
        ...teamCommands(team, panels, teamTranscripts),
      ),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (
          e.affectsConfiguration("piSessions.agentDirs") ||
          e.affectsConfiguration("piSessions.includePi") ||
          e.affectsConfiguration("piSessions.includeOmp")
        ) {
          logger.info("settings changed: reloading sessions");
          service.reconfigure().catch((err) => logger.error("reloading after a settings change failed", err));
        }
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => tree.refreshAll()),
      service.onDidChangeState(() => applyFilterDescription(view, tree.filter, service)),
    );
    logger.info(`activated (VS Code ${vscode.version}, ${vscode.env.appName})`);
    return {
      service,
      tree,
      view,
      panels,
      transcripts,
      search,
      searchResults,
      fileHistory,
      liveStatus,
      team,
      logDir: vscode.Uri.joinPath(context.logUri, "..").fsPath,
    };
  } catch (err) {
    // VS Code shows nothing when activation fails, so say it ourselves.
    logger.error("activation failed", err);
    const showLog = vscode.l10n.t("Show Log");
    const reason = err instanceof Error ? err.message : String(err);
    void vscode.window
      .showErrorMessage(vscode.l10n.t("Pi Sessions failed to start: {0}", reason), showLog)
      .then((c) => {
        if (c === showLog) logger.show();
      });
    throw err;
  }
}

export function deactivate(): void {}
