/**
 * The transcript of one branch: every entry on the path from the root to a leaf, in order, as what a reader needs to
 * see (messages with their text, thinking, tool calls and results, bash runs, images, compaction and branch-summary
 * cards, and one-line notes for settings changes). Pure: the exporters and the transcript view render it; blobs are
 * resolved by the caller.
 */
import { replacedMessages } from "./compactionReach.js";
import { contentText, describeEntry, entryLabel, messageText } from "./entryText.js";
import type { MessageView, ToolCallBlock as ToolCallBlockView } from "./session/message.js";
import { type Entry, pathTo, type Session } from "./session/index.js";
import { editTextsOf, toolPathOf } from "./toolFiles.js";
import { contextEditsOn, nestedCalls, replyFacts, systemItem } from "./transcriptPi16.js";
import type {
  AssistantBlock,
  ToolCallBlock,
  TranscriptCommon,
  TranscriptImage,
  TranscriptItem,
} from "../protocol/transcript.js";
export type { AssistantBlock, ToolCallBlock, TranscriptImage, TranscriptItem } from "../protocol/transcript.js";

export interface TranscriptOptions {
  /** The branch's leaf (default: the active leaf). */
  leafId?: string | null;
  /** Entry ids copied from the parent (a fork's `inherited` set). */
  inherited?: ReadonlySet<string>;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

function images(m: MessageView | undefined): TranscriptImage[] {
  const out: TranscriptImage[] = [];
  for (const b of m?.blocks ?? []) {
    if (b.type !== "image") continue;
    const blob = /^blob:sha256:([0-9a-f]{64})$/.exec(b.data)?.[1] ?? null;
    out.push({ mimeType: b.mimeType || "image/png", data: blob || !b.data ? null : b.data, blob });
  }
  return out;
}

function toolCall(b: ToolCallBlockView): ToolCallBlock {
  const name = b.name || "tool";
  const args = b.arguments ?? {};
  const path = toolPathOf(args);
  const command = str(args.command);
  const json = JSON.stringify(args, null, 2) ?? "{}";
  const block: ToolCallBlock = {
    type: "toolCall",
    id: b.id || null,
    name,
    summary: path || command || (json.length > 2 ? JSON.stringify(args).slice(0, 120) : ""),
    arguments: json,
    moreArguments: Object.keys(args).some((k) => !["path", "file_path", "filePath", "command"].includes(k)),
  };
  if (path) block.path = path;
  if (name === "edit") {
    const edits = editTextsOf(args);
    if (edits.length) block.edits = edits;
  }
  if (name === "write" && typeof args.content === "string") block.written = args.content;
  return block;
}

function assistantBlocks(m: MessageView | undefined): AssistantBlock[] {
  if (typeof m?.content === "string") return m.content ? [{ type: "text", text: m.content }] : [];
  const blocks: AssistantBlock[] = [];
  for (const b of m?.blocks ?? []) {
    if (b.type === "text" && b.text) blocks.push({ type: "text", text: b.text });
    else if (b.type === "thinking" && b.thinking) blocks.push({ type: "thinking", text: b.thinking });
    else if (b.type === "toolCall") blocks.push(toolCall(b));
  }
  return blocks;
}

function usageOf(m: MessageView | undefined) {
  const u = m?.usage;
  if (!u) return null;
  const cost = m.cost ? (num(m.cost.total) ?? 0) : 0;
  const parts = m.cost
    ? ["input", "output", "cacheRead", "cacheWrite"].reduce((n, k) => n + (num(m.cost![k]) ?? 0), 0)
    : 0;
  return {
    input: num(u.input) ?? 0,
    output: num(u.output) ?? 0,
    cacheRead: num(u.cacheRead) ?? 0,
    cacheWrite: num(u.cacheWrite) ?? 0,
    cost,
    ...(m.cost?.totalFromProvider === true ? { billed: { estimate: parts } } : {}),
  };
}

function messageItem(entry: Entry, common: TranscriptCommon): TranscriptItem {
  const view = entry.message;
  const m = view?.record ?? {};
  switch (entry.role) {
    case "user":
      return { ...common, kind: "user", text: messageText(view), images: images(view) };
    case "assistant": {
      const model = str(m.responseModel) || str(m.model);
      const reply = replyFacts(m);
      return {
        ...common,
        kind: "assistant",
        blocks: assistantBlocks(view),
        model: model ? `${str(m.provider) ? `${str(m.provider)}/` : ""}${model}` : null,
        usage: usageOf(view),
        stopReason: str(m.stopReason) || null,
        error: str(m.errorMessage) || null,
        ...(reply ? { reply } : {}),
      };
    }
    case "toolResult": {
      const nested = nestedCalls(m);
      const durationMs = num(m.durationMs);
      return {
        ...common,
        kind: "toolResult",
        toolCallId: str(m.toolCallId) || null,
        toolName: str(m.toolName) || "tool",
        text: messageText(view),
        isError: m.isError === true,
        images: images(view),
        ...(nested.length ? { nested } : {}),
        ...(durationMs !== null ? { durationMs } : {}),
      };
    }
    case "system":
      return systemItem(common, m);
    case "bashExecution":
      return { ...common, kind: "bash", command: str(m.command), output: str(m.output), exitCode: num(m.exitCode) };
    default:
      return {
        ...common,
        kind: "custom",
        customType: str(m.customType) || entry.role || "custom",
        text: messageText(view),
      };
  }
}

/** One branch, root first, with each entry's position on it (found without reading any entry's body). */
export interface BranchPath {
  session: Session;
  entries: Entry[];
  position: Map<string, number>;
  /** Entry ids copied from the parent (a fork's `inherited` set). */
  inherited: ReadonlySet<string> | undefined;
  /** pi 1.6: the last context edit of each target on the branch. */
  edits: ReturnType<typeof contextEditsOn>;
}

export function branchPath(session: Session, options: TranscriptOptions = {}): BranchPath {
  const leafId = options.leafId === undefined ? session.leafId : options.leafId;
  const entries = pathTo(session, leafId);
  const position = new Map<string, number>();
  entries.forEach((e, i) => position.set(e.id, i));
  return { session, entries, position, inherited: options.inherited, edits: contextEditsOn(entries) };
}

/** The custom entries pi itself writes that mean something to a reader (`describeCustomEntry`). */
const DESCRIBED_CUSTOM = new Set(["pi.virtual-model-state", "pi.bug-report"]);

/**
 * Whether an entry shows in a transcript: extension state and OMP's bookkeeping carry nothing to read (pi's own
 * virtual-model and bug-report entries do).
 */
export const hasTranscriptItem = (entry: Entry): boolean =>
  entry.type === "custom" ? DESCRIBED_CUSTOM.has(String(entry.data.customType)) : entry.type !== "model_usage";

/** The transcript item of the entry at `index` on the path, or null when it has nothing to read. */
export function transcriptItem(path: BranchPath, index: number): TranscriptItem | null {
  const entry = path.entries[index];
  if (!entry || !hasTranscriptItem(entry)) return null;
  const common: TranscriptCommon = {
    entryId: entry.id,
    line: entry.line,
    timestamp: entry.timestamp ?? null,
    inherited: path.inherited?.has(entry.id) ?? false,
  };
  const edit = path.edits.get(entry.id);
  if (edit) common.contextEdit = edit;
  const label = path.session.labels.get(entry.id)?.label;
  if (label) common.label = label;
  const d = entry.data;
  switch (entry.type) {
    case "message":
      return messageItem(entry, common);
    case "compaction": {
      const info = path.session.compactions.find((c) => c.id === entry.id);
      const kept = info?.keptFromId ? (path.position.get(info.keptFromId) ?? -1) : -1;
      return {
        ...common,
        kind: "compaction",
        summary: str(d.summary),
        tokensBefore: num(d.tokensBefore),
        replaced: kept >= 0 && kept < index ? kept : index,
        messagesReplaced: info ? replacedMessages(path.session, info, path.entries).length : 0,
      };
    }
    case "branch_summary":
      return { ...common, kind: "branchSummary", summary: str(d.summary), fromId: str(d.fromId) || null };
    case "custom_message":
      return { ...common, kind: "custom", customType: str(d.customType) || "custom", text: contentText(d.content) };
    default:
      return { ...common, kind: "note", text: describeEntry(entry, (id) => targetName(path, id)) };
  }
}

/** The branch ending at the leaf, root first, as transcript items (`custom` entries carry no text: left out). */
export function transcript(session: Session, options: TranscriptOptions = {}): TranscriptItem[] {
  const path = branchPath(session, options);
  const items: TranscriptItem[] = [];
  for (let i = 0; i < path.entries.length; i++) {
    const item = transcriptItem(path, i);
    if (item) items.push(item);
  }
  return items;
}

/** An entry a note points at: by its words when it is on this branch; else by its id (another branch's text stays out
 * of this branch's transcript and exports). */
function targetName(path: { session: Session; position: ReadonlyMap<string, number> }, id: string): string {
  const target = path.position.has(id) ? path.session.byId.get(id) : undefined;
  if (target) return `“${entryLabel(target, 40)}”`;
  return path.session.byId.has(id) ? `an entry on another branch (${id})` : `${id} (not in this file)`;
}
