/**
 * What each panel shows: plain JSON view models, built by pure functions in `src/node/views` and rendered by the
 * browser bundles in `src/webview`. No `vscode`, no DOM, no Node.
 */

export interface Buckets {
  cost: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  messages: number;
  /** Records whose tokens count but whose cost is unknown (server compactions carry no price). */
  unpriced: number;
}

export interface UsageTableRow extends Buckets {
  key: string;
  label: string;
  activeCost: number;
  inheritedCost?: number;
  file?: string;
  includedInParent?: boolean;
}

/** The Team scope's facts: where the numbers come from, each machine's share, and when they were read. */
export interface TeamFacts {
  /** The database as a person reads it (never its password). */
  database: string;
  machines: (UsageTableRow & { lastSync: string })[];
  /** When these numbers were read from the database. */
  asOf: string;
  /** The database could not be read now: why (the numbers are the last good ones, of `asOf`), or not configured. */
  error?: string;
  /** No team database is set (Set Team Database…). */
  unset?: true;
}

export interface DashboardModel {
  kind: "usage";
  scope: "workspace" | "all" | "team";
  /** The Team scope: what the numbers are of. */
  team?: TeamFacts;
  since: string | null;
  until: string | null;
  /** Workspace folders the workspace scope is about. */
  folders: string[];
  sessions: number;
  totals: Buckets & { activeCost: number; inheritedCost: number };
  /** Days in order; per day, cost by model. */
  days: { day: string; byModel: Record<string, number>; cost: number }[];
  models: UsageTableRow[];
  projects: UsageTableRow[];
  topSessions: UsageTableRow[];
}

export interface SegmentRow extends Buckets {
  /** First entry of the branch segment. */
  startId: string;
  endId: string;
  label: string;
  entries: number;
  depth: number;
  active: boolean;
  activeCost: number;
  /** Inherited from the parent session (a fork's copied entries): counted there. */
  inheritedCost: number;
}

export interface TurnPoint {
  entryId: string;
  time: number;
  cost: number;
  /** input + cacheRead + cacheWrite: the context the model read on this turn. */
  context: number;
  model: string;
}

export interface SessionUsageModel {
  kind: "sessionUsage";
  file: string;
  title: string;
  totals: Buckets & { activeCost: number; inheritedCost: number };
  segments: SegmentRow[];
  /** Assistant turns on the active path, in order. */
  turns: TurnPoint[];
  /** Compactions on the active path: after which turn index the context was replaced. */
  compactions: { entryId: string; afterTurn: number; tokensBefore: number | null; tokensAfter: number | null }[];
  /**
   * Every branch (one per leaf), the active one first, in pi's `/tree` order: "2/2 › 1/3" the branches taken to it,
   * its name (`core/branches.ts`), and its path's turns and compactions.
   */
  branches: {
    leafId: string;
    numbers: string;
    name: string;
    active: boolean;
    turns: TurnPoint[];
    compactions: SessionUsageModel["compactions"];
  }[];
  /** Branches not charted apart (past the first 50). */
  moreBranches: number;
  /** Each assistant turn the session paid for, once (not a fork's copies), in file order;
   * `active`: on the active path. */
  allTurns: (TurnPoint & { active: boolean })[];
}

export interface EncryptedBlob {
  length: number;
  sha256: string;
  prefix: string;
}

/**
 * One compaction entry's facts (`pi-sessions checkpoints --json`, and the checkpoint inspector): the keys up to
 * `modifiedFiles` in this order are the command's documented shape. Null means the file does not say.
 */
export interface CheckpointRecord {
  entryId: string;
  /** Whose format: Blackmagic's schema 1 (Pi Session Explorer writes it too, see `writer`), pi's own, OMP's. */
  producer: "blackmagic" | "pi" | "omp";
  state: string | null;
  failureClass: string | null;
  surface: string | null;
  protocol: string | null;
  model: string | null;
  deployment: string | null;
  endpoint: string | null;
  /** `value` and `length` as written; `valid` recomputed from the artifact (sha256 over its JSON text). */
  integrity: { algorithm: "sha256"; value: string | null; length: number | null; valid: boolean } | null;
  artifactItemCount: number | null;
  compactionItemId: string | null;
  replayNamespace: string | null;
  replacedItemHashCount: number | null;
  /** The server compaction's usage as written (`details.usage`), not the summary call's (`usage` of the entry). */
  usage: Record<string, number> | null;
  latencyMs: number | null;
  onActiveBranch: boolean;
  /** The checkpoint Blackmagic replays next: the latest compaction on the active branch, valid and applied. */
  activeOnActiveBranch: boolean;
  /** The next compaction on the same branch (the active one, or the path to the newest entry below). */
  supersededBy: string | null;
  timelineEntryId: string | null;
  readFiles: string[];
  modifiedFiles: string[];
  line: number;
  timestamp: string | null;
  /** The method the timeline entry (or our writer's `details.producer`) names: `remote_responses_v1`, … */
  method: string | null;
  /** The tool that wrote it when it says (`details.producer.tool`; Pi Session Explorer does), else null. */
  writer: string | null;
}

export interface CheckpointModel {
  kind: "checkpoint";
  file: string;
  entryId: string;
  line: number;
  timestamp: string | null;
  summary: string;
  tokensBefore: number | null;
  tokensAfter: number | null;
  firstKeptEntryId: string | null;
  kept: { id: string; label: string; entries: number } | null;
  /** The messages its summary replaced (`replacedMessages`: one definition with the tree and Effective Context). */
  replaced: { firstId: string | null; throughId: string | null; throughLabel: string | null; messages: number };
  readFiles: string[];
  modifiedFiles: string[];
  onActivePath: boolean;
  /** The active branch's checkpoint (latest compaction on the active path, and valid). */
  activeCheckpoint: boolean;
  /** A later compaction on this compaction's path to the session leaf. */
  supersededBy: string | null;
  fromExtension: boolean;
  omp: { method: string | null; shortSummary: string | null; preserveData: boolean } | null;
  blackmagic: {
    schemaVersion: unknown;
    state: string | null;
    identity: Record<string, string>;
    checkpoint: {
      items: number;
      bytes: number;
      retention: string | null;
      storedHash: string | null;
      storedLength: number | null;
      computedHash: string;
      computedLength: number;
      hashOk: boolean;
      lengthOk: boolean;
      encrypted: EncryptedBlob[];
    } | null;
    usage: Record<string, number> | null;
    latencyMs: number | null;
    lineage: Record<string, string> | null;
    replay: { namespace: string | null; scope: string | null; hashes: number; hashesWellFormed: boolean } | null;
    fallback: { method: string | null; failureClass: string | null } | null;
    /** Why the checkpoint would not replay, or null when it would. */
    invalidReason: string | null;
  } | null;
  /** The facts `pi-sessions checkpoints` reports for this entry. */
  record: CheckpointRecord;
  /** How it was made: "server · Azure", "local fallback (remote_error)", or null for a harness's own. */
  method: string | null;
  /** The artifact's items by type (Codex's untyped user messages count as messages). */
  itemTypes: { type: string; count: number }[];
  /** The harness's own summary call (the entry's `usage`), never added to the server's usage. */
  summaryUsage: { input: number; output: number; totalTokens: number; cost: number } | null;
  /** A fork's copy of its parent's compaction: written, and paid for, in the parent. */
  copiedFromParent: boolean;
  /** The session's title, for the panel's heading (null: not given; the heading names the entry). */
  sessionTitle: string | null;
}

export interface LineageNode {
  key: string;
  file: string | null;
  label: string;
  date: string | null;
  ownCost: number;
  flavor: "pi" | "omp" | null;
  kind: "session" | "orphan" | "external";
  focus: boolean;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface LineageModel {
  kind: "lineage";
  focusFile: string;
  width: number;
  height: number;
  nodes: LineageNode[];
  edges: {
    from: string;
    to: string;
    label: string;
    points: { x: number; y: number }[];
    labelX: number;
    labelY: number;
  }[];
}

export interface ContextRow {
  index: number;
  role: string;
  /** compactionSummary, branchSummary, or the message role. */
  kind: string;
  text: string;
  tokens: number;
  /** The message's images: inline base64, or an OMP blob (its hash; `missing` when the blob is not there). */
  images?: ContextImage[];
  /** The entry the message comes from. */
  entryId: string;
  /**
   * A pi 1.6 `context_edit` on that entry: `replaced` (the row shows the replacement; `original` is what the entry
   * holds) or `omitted` (the row is not in the context and counts no token: `text` is the original).
   */
  edit?: { id: string; state: "replaced" | "omitted"; original?: string };
}

export interface ContextImage {
  mimeType: string;
  /** Size of the image's bytes, when known. */
  bytes: number | null;
  /** The blob's sha256 for an OMP blob reference. */
  blob: string | null;
  missing: boolean;
}

export interface ContextModel {
  kind: "context";
  file: string;
  entryId: string | null;
  /** The entry the context is taken at, in words ("“Fix the parser” · assistant"); null at the start. */
  entryLabel: string | null;
  title: string;
  model: string | null;
  thinkingLevel: string | null;
  rows: ContextRow[];
  totalTokens: number;
  /** Every compaction on the path: what it dropped from the context. */
  compactions: {
    entryId: string;
    /** When it was written (its entry's timestamp) and its line: what names it in the table. */
    time: string | null;
    line: number;
    active: boolean;
    /** The messages its summary replaced (`replacedMessages`). */
    droppedEntries: number;
    droppedTokens: number;
    tokensBefore: number | null;
  }[];
}

/** A compact turn of one side of a branch comparison: a prompt, a final answer, or a tool call. */
export interface CompareTurn {
  kind: "user" | "assistant" | "tool";
  entryId: string;
  /** Clipped text (a tool call: its name and file or command). */
  text: string;
  time: number | null;
}

export interface CompareFile {
  path: string;
  /** Relative to the session's cwd when it is under it. */
  label: string;
  /** The other side touched it too (read or changed). */
  shared: boolean;
}

export interface CompareSide {
  file: string;
  title: string;
  /** The branch this side takes at the fork point, when the fork point is a branch point of its session. */
  branch: { number: number; of: number; name: string } | null;
  /** The side's first prompt after the fork point (clipped), null when it has none. */
  firstPrompt: string | null;
  leafId: string | null;
  /** The side's last entry in words (`entryLabel`), null when it is empty. */
  leafLabel: string | null;
  /** What this side is: the active branch, another branch, a fork, or the fork's parent. */
  role: "active" | "branch" | "fork" | "parent";
  entries: number;
  cost: number;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
  durationMs: number | null;
  filesModified: CompareFile[];
  filesRead: CompareFile[];
  /** Files left out of the two lists (each shows at most 500). */
  moreFiles: number;
  turns: CompareTurn[];
  /** Turns left out (a side shows at most `COMPARE_TURNS`). */
  moreTurns: number;
}

export interface CompareModel {
  kind: "compare";
  forkPointId: string | null;
  /** The prompt at or above the fork point (first lines, clipped), and the fork point's time. */
  forkPrompt: string | null;
  forkTime: number | null;
  sides: [CompareSide, CompareSide];
  /** Files both sides changed: whether their final texts are known on each side (a write, then edits that apply). */
  bothEdited: { path: string; diffable: boolean }[];
}

export type PanelModel =
  DashboardModel | SessionUsageModel | CheckpointModel | LineageModel | ContextModel | CompareModel;
