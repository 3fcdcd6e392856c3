/**
 * Our port of pi's `prepareCompaction` (pi-coding-agent 1.6 `core/compaction/compaction.js`, over the projected
 * context): where to cut (never at a tool result; `keepRecentTokens` of recent context kept), split turns,
 * `tokensBefore`, the previous summary, and the read and modified file lists (cumulative across earlier pi
 * compactions). Tests compare it with the real function (pi 1.6.0, in test/core/compact/prepare.pi16.test.ts).
 */
import {
  buildContext,
  type ContextMessage,
  entryMessages,
  type ProjectedEntry,
  type SessionContext,
} from "../context/index.js";
import { type Entry, isPlainObject, narrowContent, pathTo, type Session } from "../session/index.js";
import { currentSystemMessage, systemSections } from "../systemMessage.js";

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
    case "system": {
      // pi 1.6: the prompt, every section it sets, and the tools it declares, as JSON.
      chars = text(message.content, true);
      for (const { text: section } of systemSections(message)) chars += section?.length ?? 0;
      if (message.toolsAdded) chars += JSON.stringify(message.toolsAdded).length;
      return Math.ceil(chars / 4);
    }
    case "user":
      return Math.ceil(text(message.content, true) / 4);
    case "assistant":
      for (const { type, record: b } of narrowContent(message.content)) {
        if (type === "text") chars += String(b.text ?? "").length;
        else if (type === "thinking") chars += String(b.thinking ?? "").length;
        else if (type === "toolCall") chars += String(b.name ?? "").length + (JSON.stringify(b.arguments) ?? "").length;
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

/** The usage of an assistant reply that can anchor an estimate (not an error or abort, not all zero). */
function assistantUsage(m: ContextMessage): Record<string, number> | undefined {
  if (m.role !== "assistant" || !isPlainObject(m.usage) || m.stopReason === "aborted" || m.stopReason === "error")
    return undefined;
  const usage = m.usage as Record<string, number>;
  return contextTokensOf(usage) > 0 ? usage : undefined;
}

function contextTokensOf(usage: Record<string, number>): number {
  return (
    usage.totalTokens || (usage.input ?? 0) + (usage.output ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0)
  );
}

/**
 * pi 1.6's `estimateProjectedContextTokens`: the last assistant usage plus estimates of the messages after it, unless
 * a context edit or compaction came after that reply (its usage no longer describes the context); then every
 * message is estimated, the system messages as the one system prompt in effect.
 */
function estimateProjectedTokens(ctx: SessionContext, path: readonly Entry[]): number {
  const messages = ctx.messages;
  for (let i = messages.length - 1; i >= 0; i--) {
    const usage = assistantUsage(messages[i]!);
    if (!usage) continue;
    let at = 0;
    const owner = ctx.entries.find((e) => (at += e.messages.length) > i)?.entryId;
    const ownerIndex = owner === undefined ? -1 : path.findIndex((e) => e.id === owner);
    let invalidating = -1;
    for (let j = path.length - 1; j >= 0; j--)
      if (path[j]!.type === "context_edit" || path[j]!.type === "compaction") {
        invalidating = j;
        break;
      }
    if (ownerIndex <= invalidating) break;
    let tokens = contextTokensOf(usage);
    for (let j = i + 1; j < messages.length; j++) tokens += estimateTokens(messages[j]!);
    return tokens;
  }
  const system = currentSystemMessage(messages) as ContextMessage | undefined;
  let tokens = system ? estimateTokens(system) : 0;
  for (const m of messages) if (m.role !== "system") tokens += estimateTokens(m);
  return tokens;
}

const CUT_ROLES = new Set(["bashExecution", "custom", "branchSummary", "compactionSummary", "user", "assistant"]);
const TURN_START_ROLES = new Set(["bashExecution", "custom", "branchSummary", "compactionSummary", "user"]);

const isTurnStart = (e: ProjectedEntry) =>
  e.type !== "compaction" && e.messages.some((m) => TURN_START_ROLES.has(m.role));

/** The messages of a selected entry that a summary covers: no compaction's, no system message (prompt state). */
const summarized = (e: ProjectedEntry) =>
  e.type === "compaction" ? [] : e.messages.filter((m) => m.role !== "system");

interface CutPoint {
  firstKept: number;
  turnStart: number;
  isSplitTurn: boolean;
}

/**
 * pi 1.6's `findProjectedCutPoint` over the selected entries: the first cut point (a user-like or assistant message,
 * never a tool result) within `keepRecentTokens` of the end; past a trailing failed attempt that a context edit left
 * out (pi's retry); back over entries that give no message (settings, bookkeeping).
 */
function findCutPoint(
  session: Session,
  entries: ProjectedEntry[],
  start: number,
  end: number,
  keepRecentTokens: number,
): CutPoint {
  const cutPoints: number[] = [];
  for (let i = start; i < end; i++)
    if (entries[i]!.type !== "compaction" && entries[i]!.messages.some((m) => CUT_ROLES.has(m.role))) cutPoints.push(i);
  if (cutPoints.length === 0) return { firstKept: start, turnStart: -1, isSplitTurn: false };
  let accumulated = 0;
  let exceeded = false;
  let cut = cutPoints[0]!;
  for (let i = end - 1; i >= start; i--) {
    const tokens = entries[i]!.messages.reduce((n, m) => n + estimateTokens(m), 0);
    if (tokens === 0) continue;
    accumulated += tokens;
    if (accumulated >= keepRecentTokens) {
      exceeded = true;
      cut = cutPoints.find((c) => c >= i) ?? cutPoints[cutPoints.length - 1]!;
      break;
    }
  }
  if (exceeded && isRecoveryOmissionSuffix(session, entries.slice(cut + 1, end))) cut++;
  while (cut > start) {
    const previous = entries[cut - 1]!;
    if (previous.type === "compaction" || previous.messages.length > 0) break;
    cut--;
  }
  const startsTurn = isTurnStart(entries[cut]!);
  let turnStart = -1;
  if (!startsTurn)
    for (let i = cut; i >= start; i--)
      if (isTurnStart(entries[i]!)) {
        turnStart = i;
        break;
      }
  return { firstKept: cut, turnStart, isSplitTurn: !startsTurn && turnStart !== -1 };
}

/**
 * Whether what follows the cut is only a failed attempt that pi left out of context (and its edits): pi keeps the
 * cut after it then. Not when an edit replaces something that is still in context.
 */
function isRecoveryOmissionSuffix(session: Session, suffix: ProjectedEntry[]): boolean {
  const visible = (e: ProjectedEntry) => {
    const entry = session.byId.get(e.entryId);
    return e.type !== "context_edit" && !!entry && entryMessages(entry).length > 0;
  };
  const omitted = (e: ProjectedEntry) => visible(e) && e.messages.length === 0;
  const omittedIds = new Set(suffix.filter(omitted).map((e) => e.entryId));
  const replacesVisible = suffix.some((e) => {
    const edit = e.type === "context_edit" ? session.byId.get(e.entryId) : undefined;
    return !!edit && edit.data.replacement !== null && !omittedIds.has(String(edit.data.targetId));
  });
  return (
    !replacesVisible &&
    suffix.some((e) => e.type === "message" && session.byId.get(e.entryId)?.role === "assistant" && omitted(e)) &&
    suffix.every((e) => e.type !== "compaction" && (!visible(e) || omitted(e)))
  );
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

/** The files a message's calls read, wrote or edited (pi 1.6: a tool result's nested calls too). */
function addFileOps(m: ContextMessage, ops: { read: Set<string>; written: Set<string>; edited: Set<string> }): void {
  const add = (name: unknown, args: unknown) => {
    const path = isPlainObject(args) ? args.path : undefined;
    if (typeof path !== "string" || !path) return;
    if (name === "read") ops.read.add(path);
    else if (name === "write") ops.written.add(path);
    else if (name === "edit") ops.edited.add(path);
  };
  if (m.role === "toolResult") {
    const calls = isPlainObject(m.nestedCalls) ? m.nestedCalls.calls : undefined;
    for (const call of Array.isArray(calls) ? calls : []) if (isPlainObject(call)) add(call.name, call.arguments);
    return;
  }
  if (m.role !== "assistant" || !Array.isArray(m.content)) return;
  for (const b of m.content) if (isPlainObject(b) && b.type === "toolCall") add(b.name, b.arguments);
}

/** File lists carry over from a pi-made previous compaction (not from an extension's). */
function previousFileOps(previous: Entry | undefined) {
  const ops = { read: new Set<string>(), written: new Set<string>(), edited: new Set<string>() };
  const d = previous?.data;
  if (d && !d.fromHook && isPlainObject(d.details)) {
    for (const f of Array.isArray(d.details.readFiles) ? d.details.readFiles : [])
      if (typeof f === "string") ops.read.add(f);
    for (const f of Array.isArray(d.details.modifiedFiles) ? d.details.modifiedFiles : [])
      if (typeof f === "string") ops.edited.add(f);
  }
  return ops;
}

/**
 * Prepare the compaction of the branch ending at `leafId`, or say why there is nothing to do: pi 1.6's
 * `prepareCompaction`, over the context pi builds (context edits applied, the previous compaction's kept range
 * already selected).
 */
export function prepareCompaction(
  session: Session,
  leafId: string,
  keepRecentTokens = DEFAULT_KEEP_RECENT_TOKENS,
): Preparation | PrepareRefusal {
  const path = pathTo(session, leafId);
  if (path.length === 0) return "empty_branch";
  if (path[path.length - 1]!.type === "compaction") return "already_compacted";
  const ctx = buildContext(session, leafId);
  const entries = ctx.entries;
  const prevIndex = entries.findIndex((e) => e.type === "compaction" && e.messages.length > 0);
  const previous = prevIndex >= 0 ? session.byId.get(entries[prevIndex]!.entryId) : undefined;
  const boundaryStart = prevIndex + 1;
  const tokensBefore = estimateProjectedTokens(ctx, path);
  const cut = findCutPoint(session, entries, boundaryStart, entries.length, keepRecentTokens);
  const firstKept = entries[cut.firstKept];
  if (!firstKept) return "nothing_to_compact";
  const historyEnd = cut.isSplitTurn ? cut.turnStart : cut.firstKept;
  const messagesToSummarize = entries.slice(boundaryStart, historyEnd).flatMap(summarized);
  const turnPrefixMessages = cut.isSplitTurn ? entries.slice(cut.turnStart, cut.firstKept).flatMap(summarized) : [];
  if (messagesToSummarize.length === 0 && turnPrefixMessages.length === 0) return "nothing_to_compact";
  const ops = previousFileOps(previous);
  for (const m of [...messagesToSummarize, ...turnPrefixMessages]) addFileOps(m, ops);
  const modified = new Set([...ops.edited, ...ops.written]);
  return {
    leafId,
    path,
    firstKeptEntryId: firstKept.entryId,
    messagesToSummarize,
    turnPrefixMessages,
    isSplitTurn: cut.isSplitTurn,
    tokensBefore,
    previousSummary: previous?.data.summary as string | undefined,
    readFiles: [...ops.read].filter((f) => !modified.has(f)).sort(),
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
