/**
 * The transcript of one branch: every entry on the path from the root to a leaf, in order, as what a reader needs to
 * see (messages with their text, thinking, tool calls and results, bash runs, images, compaction and branch-summary
 * cards, and one-line notes for settings changes). Pure: the exporters and the transcript view render it; blobs are
 * resolved by the caller.
 */
import { contentText, describeEntry } from "../protocol/format.js";
import { type Entry, isPlainObject, pathTo, type Session } from "./session.js";

/** An image: inline base64 data, or an OMP blob reference (`blob:sha256:<hex>`) for the caller to resolve. */
export interface TranscriptImage {
  mimeType: string;
  data: string | null;
  blob: string | null;
}

export type ToolCallBlock = {
  type: "toolCall";
  id: string | null;
  name: string;
  /** One line: the path for file tools, the command for bash, else the arguments in short. */
  summary: string;
  /** The arguments as pretty JSON. */
  arguments: string;
  /** Whether the arguments say more than the summary (so they are worth showing). */
  moreArguments: boolean;
  /** `edit` calls: each replacement. */
  edits?: { oldText: string; newText: string }[];
  /** `write` calls: the content written. */
  written?: string;
  path?: string;
};

export type AssistantBlock = { type: "text"; text: string } | { type: "thinking"; text: string } | ToolCallBlock;

interface Common {
  entryId: string;
  line: number;
  timestamp: string | null;
  /** Copied from the parent session when this fork was made. */
  inherited: boolean;
}

export type TranscriptItem = Common &
  (
    | { kind: "user"; text: string; images: TranscriptImage[] }
    | {
        kind: "assistant";
        blocks: AssistantBlock[];
        model: string | null;
        usage: { input: number; output: number; cacheRead: number; cacheWrite: number; cost: number } | null;
        stopReason: string | null;
        error: string | null;
      }
    | {
        kind: "toolResult";
        toolCallId: string | null;
        toolName: string;
        text: string;
        isError: boolean;
        images: TranscriptImage[];
      }
    | { kind: "bash"; command: string; output: string; exitCode: number | null }
    | { kind: "compaction"; summary: string; tokensBefore: number | null; replaced: number }
    | { kind: "branchSummary"; summary: string; fromId: string | null }
    | { kind: "custom"; customType: string; text: string }
    | { kind: "note"; text: string }
  );

export interface TranscriptOptions {
  /** The branch's leaf (default: the active leaf). */
  leafId?: string | null;
  /** Entry ids copied from the parent (a fork's `inherited` set). */
  inherited?: ReadonlySet<string>;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

function images(content: unknown): TranscriptImage[] {
  if (!Array.isArray(content)) return [];
  return content
    .filter((b): b is Record<string, unknown> => isPlainObject(b) && b.type === "image")
    .map((b) => {
      const data = str(b.data);
      const blob = /^blob:sha256:([0-9a-f]{64})$/.exec(data)?.[1] ?? null;
      return { mimeType: str(b.mimeType) || "image/png", data: blob || !data ? null : data, blob };
    });
}

function toolCall(b: Record<string, unknown>): ToolCallBlock {
  const name = str(b.name) || "tool";
  const args = isPlainObject(b.arguments) ? b.arguments : {};
  const path = str(args.path) || str(args.file_path) || str(args.filePath);
  const command = str(args.command);
  const json = JSON.stringify(args, null, 2) ?? "{}";
  const block: ToolCallBlock = {
    type: "toolCall",
    id: str(b.id) || null,
    name,
    summary: path || command || (json.length > 2 ? JSON.stringify(args).slice(0, 120) : ""),
    arguments: json,
    moreArguments: Object.keys(args).some((k) => !["path", "file_path", "filePath", "command"].includes(k)),
  };
  if (path) block.path = path;
  if (name === "edit") {
    const list = Array.isArray(args.edits) ? args.edits.filter(isPlainObject) : [args];
    const edits = list
      .map((e) => ({ oldText: str(e.oldText ?? e.old_string), newText: str(e.newText ?? e.new_string) }))
      .filter((e) => e.oldText || e.newText);
    if (edits.length) block.edits = edits;
  }
  if (name === "write" && typeof args.content === "string") block.written = args.content;
  return block;
}

function assistantBlocks(content: unknown): AssistantBlock[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) return [];
  const blocks: AssistantBlock[] = [];
  for (const b of content) {
    if (!isPlainObject(b)) continue;
    if (b.type === "text" && str(b.text)) blocks.push({ type: "text", text: str(b.text) });
    else if (b.type === "thinking" && str(b.thinking)) blocks.push({ type: "thinking", text: str(b.thinking) });
    else if (b.type === "toolCall") blocks.push(toolCall(b));
  }
  return blocks;
}

function usageOf(m: Record<string, unknown>) {
  const u = isPlainObject(m.usage) ? m.usage : null;
  if (!u) return null;
  const cost = isPlainObject(u.cost) ? (num(u.cost.total) ?? 0) : 0;
  return {
    input: num(u.input) ?? 0,
    output: num(u.output) ?? 0,
    cacheRead: num(u.cacheRead) ?? 0,
    cacheWrite: num(u.cacheWrite) ?? 0,
    cost,
  };
}

function messageItem(entry: Entry, common: Common): TranscriptItem {
  const m = isPlainObject(entry.data.message) ? entry.data.message : {};
  switch (entry.role) {
    case "user":
      return { ...common, kind: "user", text: contentText(m.content), images: images(m.content) };
    case "assistant": {
      const model = str(m.responseModel) || str(m.model);
      return {
        ...common,
        kind: "assistant",
        blocks: assistantBlocks(m.content),
        model: model ? `${str(m.provider) ? `${str(m.provider)}/` : ""}${model}` : null,
        usage: usageOf(m),
        stopReason: str(m.stopReason) || null,
        error: str(m.errorMessage) || null,
      };
    }
    case "toolResult":
      return {
        ...common,
        kind: "toolResult",
        toolCallId: str(m.toolCallId) || null,
        toolName: str(m.toolName) || "tool",
        text: contentText(m.content),
        isError: m.isError === true,
        images: images(m.content),
      };
    case "bashExecution":
      return { ...common, kind: "bash", command: str(m.command), output: str(m.output), exitCode: num(m.exitCode) };
    default:
      return {
        ...common,
        kind: "custom",
        customType: str(m.customType) || entry.role || "custom",
        text: contentText(m.content),
      };
  }
}

/** The branch ending at the leaf, root first, as transcript items (`custom` entries carry no text: left out). */
export function transcript(session: Session, options: TranscriptOptions = {}): TranscriptItem[] {
  const leafId = options.leafId === undefined ? session.leafId : options.leafId;
  const path = pathTo(session, leafId);
  const items: TranscriptItem[] = [];
  path.forEach((entry, index) => {
    const common: Common = {
      entryId: entry.id,
      line: entry.line,
      timestamp: entry.timestamp ?? null,
      inherited: options.inherited?.has(entry.id) ?? false,
    };
    const d = entry.data;
    switch (entry.type) {
      case "message":
        items.push(messageItem(entry, common));
        return;
      case "compaction": {
        const info = session.compactions.find((c) => c.id === entry.id);
        const kept = info?.keptFromId ? path.findIndex((e) => e.id === info.keptFromId) : -1;
        items.push({
          ...common,
          kind: "compaction",
          summary: str(d.summary),
          tokensBefore: num(d.tokensBefore),
          replaced: kept >= 0 ? kept : index,
        });
        return;
      }
      case "branch_summary":
        items.push({ ...common, kind: "branchSummary", summary: str(d.summary), fromId: str(d.fromId) || null });
        return;
      case "custom_message":
        items.push({
          ...common,
          kind: "custom",
          customType: str(d.customType) || "custom",
          text: contentText(d.content),
        });
        return;
      // Extension state and OMP's bookkeeping carry nothing to read.
      case "custom":
      case "model_usage":
        return;
      default:
        items.push({ ...common, kind: "note", text: describeEntry(entry) });
    }
  });
  return items;
}
