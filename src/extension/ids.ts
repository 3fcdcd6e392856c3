/**
 * The names the extension shares with package.json: command ids, the view, panel view types and context keys. No
 * `vscode` import, so the manifest test imports these instead of searching source text.
 */
import type { PanelKind } from "../protocol/messages.js";

export const CommandId = {
  Refresh: "piSessions.refresh",
  SetFilter: "piSessions.setFilter",
  Search: "piSessions.search",
  ShowLog: "piSessions.showLog",
  OpenEntry: "piSessions.openEntry",
  OpenEntryEditable: "piSessions.openEntryEditable",
  EntryActions: "piSessions.entryActions",
  CopyEntryId: "piSessions.copyEntryId",
  CopyResumeCommand: "piSessions.copyResumeCommand",
  RevealParent: "piSessions.revealParent",
  RevealSession: "piSessions.revealSession",
  RevealEntry: "piSessions.revealEntry",
  ShowUsage: "piSessions.showUsage",
  ShowSessionUsage: "piSessions.showSessionUsage",
  InspectCheckpoint: "piSessions.inspectCheckpoint",
  ShowLineage: "piSessions.showLineage",
  ShowContext: "piSessions.showContext",
  CompactBranch: "piSessions.compactBranch",
  RenameSession: "piSessions.renameSession",
  LabelEntry: "piSessions.labelEntry",
  PinSession: "piSessions.pinSession",
  UnpinSession: "piSessions.unpinSession",
  ArchiveSession: "piSessions.archiveSession",
  UnarchiveSession: "piSessions.unarchiveSession",
  ShowArchived: "piSessions.showArchived",
  HideArchived: "piSessions.hideArchived",
  DeleteSession: "piSessions.deleteSession",
  RestoreSession: "piSessions.restoreSession",
  SetApiKey: "piSessions.setApiKey",
  RepairTail: "piSessions.repairTail",
  ExportBranch: "piSessions.exportBranch",
  OpenTranscript: "piSessions.openTranscript",
  SearchContent: "piSessions.searchContent",
  ShowSearchResults: "piSessions.showSearchResults",
  ShowFileHistory: "piSessions.showFileHistory",
  ShowEditDiff: "piSessions.showEditDiff",
  CompareWithCurrentFile: "piSessions.compareWithCurrentFile",
  ResumeInTerminal: "piSessions.resumeInTerminal",
  CompareBranches: "piSessions.compareBranches",
  CompareWithActiveBranch: "piSessions.compareWithActiveBranch",
  CompareWithParent: "piSessions.compareWithParent",
  ChooseAgentDir: "piSessions.chooseAgentDir",
  FindInTranscript: "piSessions.findInTranscript",
  SetTeamDatabase: "piSessions.setTeamDatabase",
  ClearTeamDatabase: "piSessions.clearTeamDatabase",
  SyncTeam: "piSessions.syncTeam",
  OpenTeamSession: "piSessions.openTeamSession",
  ShowTeamUsage: "piSessions.showTeamUsage",
} as const;
export type CommandId = (typeof CommandId)[keyof typeof CommandId];

/** The Agent History view's rows: a session, and a turn's tool call by kind (the diff actions are shown by it). */
export const TouchContextValue = {
  Session: "piSessions:touchSession",
  read: "piSessions:touch:read",
  edit: "piSessions:touch:edit",
  write: "piSessions:touch:write",
} as const;

/** The activity-bar container and its Sessions view. */
export const ContainerId = "piSessions";
export const SessionsViewId = "piSessions.sessions";
/** The view of the turns that touched the active editor's file. */
export const AgentHistoryViewId = "piSessions.agentHistory";

/** The webview panels' view types (one per panel kind; each is revived by its serializer). */
export const PanelViewType: Record<PanelKind, string> = {
  usage: "piSessions.usage",
  sessionUsage: "piSessions.sessionUsage",
  checkpoint: "piSessions.checkpoint",
  lineage: "piSessions.lineage",
  context: "piSessions.context",
  compare: "piSessions.compare",
};

/** The transcript editor's view type (revived by its own serializer). */
export const TranscriptViewType = "piSessions.transcript";

/** The search results panel's view type. */
export const SearchResultsViewType = "piSessions.searchResults";

/** Context keys set with `setContext`, used by `when` clauses. */
export const ContextKey = {
  State: "piSessions.state",
  Filter: "piSessions.filter",
  /** Archived sessions are listed in place (Show Archived Sessions). */
  ShowArchived: "piSessions.showArchived",
} as const;

/** The id under which `pi-sessions mcp` is offered to VS Code (`contributes.mcpServerDefinitionProviders`). */
export const McpProviderId = "piSessions.recall";
