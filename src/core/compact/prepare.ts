/**
 * Our port of pi's `prepareCompaction` (pi-coding-agent 0.73 `core/compaction/compaction.ts`): where to cut (never at a
 * tool result; `keepRecentTokens` of recent context kept), split turns, `tokensBefore`, the previous summary, and the
 * read and modified file lists (cumulative across earlier pi compactions). Tests compare it with the real function.
 */
import { buildContext, type ContextMessage } from "../context/index.js";
import { type Entry, isPlainObject, narrowContent, pathTo, type Session } from "../session/index.js";

export const DEFAULT_KEEP_RECENT_TOKENS = 20000;

/** pi's chars/4 estimate of one message. */
export function estimateTokens(message: ContextMessage): number {
  let chars = 0;
  const text = (content: unknown, images: boolean) => {
    if (typeof content === "string") return content.length;
    let n = 0;
    for (const b of narrowContent(content)) {
      if (b.type === "text") n += b.text.length;
      if (images && b.type === "image") n += 4800;
    }
    return n;
  };
  switch (message.role) {
    case "user":
      return Math.ceil(text(message.content, false) / 4);
    case "assistant":
      for (const { type, record: b } of narrowContent(message.content)) {
        if (type === "text") chars += String(b.text ?? "").length;
        else if (type === "thinking") chars += String(b.thinking ?? "").length;
        else if (type === "toolCall") chars += String(b.name ?? "").length + JSON.stringify(b.arguments).length;
      }
      return Math.ceil(chars / 4);
    case "custom":
    case "toolResult":
      return Math.ceil(text(message.content, true) / 4);
    case "bashExecution":
      return Math.ceil((String(message.command ?? "").length + String(message.output ?? "").length) / 4);
    case "branchSummary":
    case "compactionSummary":
      return Math.ceil(String(message.summary ?? "").length / 4);
    default:
      return 0;
  }
}

function assistantUsage(m: ContextMessage): Record<string, number> | undefined {
  if (m.role !== "assistant" || !isPlainObject(m.usage) || m.stopReason === "aborted" || m.stopReason === "error")
    return undefined;
  return m.usage as Record<string, number>;
}

/** pi's `estimateContextTokens`: the last assistant usage, plus estimates of the messages after it. */
function estimateContextTokens(messages: ContextMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const usage = assistantUsage(messages[i]!);
    if (!usage) continue;
    let tokens =
      usage.totalTokens || (usage.input ?? 0) + (usage.output ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);
    for (let j = i + 1; j < messages.length; j++) tokens += estimateTokens(messages[j]!);
    return tokens;
  }
  return messages.reduce((n, m) => n + estimateTokens(m), 0);
}

const CUT_ROLES = new Set(["bashExecution", "custom", "branchSummary", "compactionSummary", "user", "assistant"]);

function messageOf(e: Entry): ContextMessage | undefined {
  const d = e.data;
  const ms = (t: unknown) => new Date(t as string).getTime();
  switch (e.type) {
    case "message":
      return d.message as ContextMessage;
    case "custom_message":
      return {
        role: "custom",
        customType: d.customType,
        content: d.content,
        display: d.display,
        details: d.details,
        timestamp: ms(d.timestamp),
      };
    case "branch_summary":
      return { role: "branchSummary", summary: d.summary, fromId: d.fromId, timestamp: ms(d.timestamp) };
    default:
      return undefined;
  }
}

function findCutPoint(
  path: Entry[],
  start: number,
  end: number,
  keepRecentTokens: number,
): { firstKept: number; turnStart: number; isSplitTurn: boolean } {
  const cutPoints: number[] = [];
  for (let i = start; i < end; i++) {
    const e = path[i]!;
    if (
      (e.type === "message" && e.role !== undefined && CUT_ROLES.has(e.role)) ||
      e.type === "branch_summary" ||
      e.type === "custom_message"
    )
      cutPoints.push(i);
  }
  if (cutPoints.length === 0) return { firstKept: start, turnStart: -1, isSplitTurn: false };
  let accumulated = 0;
  let cut = cutPoints[0]!;
  for (let i = end - 1; i >= start; i--) {
    const e = path[i]!;
    if (e.type !== "message") continue;
    accumulated += estimateTokens(e.data.message as ContextMessage);
    if (accumulated >= keepRecentTokens) {
      const at = cutPoints.find((c) => c >= i);
      if (at !== undefined) cut = at;
      break;
    }
  }
  // Keep the settings and bookkeeping entries just before the cut.
  while (cut > start) {
    const prev = path[cut - 1]!;
    if (prev.type === "compaction" || prev.type === "message") break;
    cut--;
  }
  const cutEntry = path[cut]!;
  const isUser = cutEntry.type === "message" && cutEntry.role === "user";
  let turnStart = -1;
  if (!isUser) {
    for (let i = cut; i >= start; i--) {
      const e = path[i]!;
      if (
        e.type === "branch_summary" ||
        e.type === "custom_message" ||
        (e.type === "message" && (e.role === "user" || e.role === "bashExecution"))
      ) {
        turnStart = i;
        break;
      }
    }
  }
  return { firstKept: cut, turnStart, isSplitTurn: !isUser && turnStart !== -1 };
}

export interface Preparation {
  leafId: string;
  path: Entry[];
  firstKeptEntryId: string;
  messagesToSummarize: ContextMessage[];
  turnPrefixMessages: ContextMessage[];
  isSplitTurn: boolean;
  tokensBefore: number;
  previousSummary: string | undefined;
  readFiles: string[];
  modifiedFiles: string[];
  keepRecentTokens: number;
}

export type PrepareRefusal = "already_compacted" | "nothing_to_compact" | "empty_branch";

function addFileOps(m: ContextMessage, read: Set<string>, written: Set<string>, edited: Set<string>): void {
  if (m.role !== "assistant") return;
  for (const b of narrowContent(m.content)) {
    if (b.type !== "toolCall" || !b.arguments) continue;
    const path = b.arguments.path;
    if (typeof path !== "string" || !path) continue;
    if (b.record.name === "read") read.add(path);
    else if (b.record.name === "write") written.add(path);
    else if (b.record.name === "edit") edited.add(path);
  }
}

/** Prepare the compaction of the branch ending at `leafId`, or say why there is nothing to do. */
export function prepareCompaction(
  session: Session,
  leafId: string,
  keepRecentTokens = DEFAULT_KEEP_RECENT_TOKENS,
): Preparation | PrepareRefusal {
  const path = pathTo(session, leafId);
  if (path.length === 0) return "empty_branch";
  if (path[path.length - 1]!.type === "compaction") return "already_compacted";
  let prevIndex = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i]!.type === "compaction") {
      prevIndex = i;
      break;
    }
  }
  let previousSummary: string | undefined;
  let boundaryStart = 0;
  if (prevIndex >= 0) {
    const prev = path[prevIndex]!.data;
    previousSummary = prev.summary as string | undefined;
    const kept = path.findIndex((e) => e.id === prev.firstKeptEntryId);
    boundaryStart = kept >= 0 ? kept : prevIndex + 1;
  }
  const tokensBefore = estimateContextTokens(buildContext(session, leafId).messages);
  const cut = findCutPoint(path, boundaryStart, path.length, keepRecentTokens);
  const firstKept = path[cut.firstKept];
  if (!firstKept) return "nothing_to_compact";
  const historyEnd = cut.isSplitTurn ? cut.turnStart : cut.firstKept;
  const messagesToSummarize: ContextMessage[] = [];
  for (let i = boundaryStart; i < historyEnd; i++) {
    const m = messageOf(path[i]!);
    if (m) messagesToSummarize.push(m);
  }
  const turnPrefixMessages: ContextMessage[] = [];
  if (cut.isSplitTurn) {
    for (let i = cut.turnStart; i < cut.firstKept; i++) {
      const m = messageOf(path[i]!);
      if (m) turnPrefixMessages.push(m);
    }
  }
  const read = new Set<string>();
  const written = new Set<string>();
  const edited = new Set<string>();
  if (prevIndex >= 0) {
    const prev = path[prevIndex]!.data;
    // Like pi: file lists carry over from pi-made compactions only (not from extension-made ones).
    if (!prev.fromHook && isPlainObject(prev.details)) {
      for (const f of Array.isArray(prev.details.readFiles) ? prev.details.readFiles : [])
        if (typeof f === "string") read.add(f);
      for (const f of Array.isArray(prev.details.modifiedFiles) ? prev.details.modifiedFiles : [])
        if (typeof f === "string") edited.add(f);
    }
  }
  for (const m of [...messagesToSummarize, ...turnPrefixMessages]) addFileOps(m, read, written, edited);
  const modified = new Set([...edited, ...written]);
  return {
    leafId,
    path,
    firstKeptEntryId: firstKept.id,
    messagesToSummarize,
    turnPrefixMessages,
    isSplitTurn: cut.isSplitTurn,
    tokensBefore,
    previousSummary,
    readFiles: [...read].filter((f) => !modified.has(f)).sort(),
    modifiedFiles: [...modified].sort(),
    keepRecentTokens,
  };
}

/** pi's `<read-files>` / `<modified-files>` block appended to a summary. */
export function formatFileOperations(readFiles: string[], modifiedFiles: string[]): string {
  const sections: string[] = [];
  if (readFiles.length) sections.push(`<read-files>\n${readFiles.join("\n")}\n</read-files>`);
  if (modifiedFiles.length) sections.push(`<modified-files>\n${modifiedFiles.join("\n")}\n</modified-files>`);
  return sections.length ? `\n\n${sections.join("\n\n")}` : "";
}
