/** What both exporters say the same way: the document's heading facts and an assistant message's footer. */
import { formatCost, formatDateTime, formatDuration, formatTokens, truncate } from "../../protocol/format.js";
import type { NestedCall, ReplyFacts } from "../../protocol/transcript.js";
import { pathTo, type Session } from "../session/index.js";
import { entryLabelIn } from "../entryText.js";
import type { TranscriptItem } from "../transcript.js";

export interface ExportInput {
  session: Session;
  items: TranscriptItem[];
  /** The leaf the branch ends at. */
  leafId: string | null;
  /** The parent session's name or file, for a fork's inherited entries. */
  parentName?: string | null;
}

/** The session's name, else its first prompt (cut to one line), else its id. */
export function documentTitle(input: Pick<ExportInput, "session" | "items">): string {
  const first = input.items
    .find((i) => i.kind === "user")
    ?.text.replace(/\s+/g, " ")
    .trim();
  const prompt = first && truncate(first, 80);
  return input.session.name?.trim() || prompt || input.session.header.id || "Session";
}

export function documentFacts(input: ExportInput): string[] {
  const s = input.session;
  const agent = s.flavor === "omp" ? "Oh My Pi" : "pi";
  return [
    `${agent} session ${s.header.id ?? ""} (v${s.version} file)`.trim(),
    `working directory ${String(s.header.cwd ?? "(none)")}`,
    input.leafId === null ? "an empty branch" : branchFact(s, input.leafId),
    ...(input.parentName ? [`forked from ${input.parentName}`] : []),
  ];
}

function branchFact(s: Session, leafId: string): string {
  const path = pathTo(s, leafId);
  const onPath = new Set(path.map((e) => e.id));
  return `branch ending at ${entryNamed(s, leafId, onPath)} · ${path.length} entries on this branch`;
}

/**
 * An entry as a reader knows it: its words, then its id to find it by (“Fix the parser” (entry 3a09a93f)). An entry
 * it points at (a label's) is named by its words too when it is on `path`; another branch's text stays out.
 */
export function entryNamed(session: Session, id: string | null, path?: ReadonlySet<string>): string {
  const entry = id === null ? undefined : session.byId.get(id);
  if (!entry) return `entry ${id ?? "?"} (not in this file)`;
  const onPath = { get: (target: string) => (path?.has(target) ? session.byId.get(target) : undefined) };
  return `“${entryLabelIn(onPath, entry, 60)}” (entry ${entry.id})`;
}

/** `model · 1.2k in · 300 out · cache 4k read / 0 write · $0.0042`, for an assistant message. */
export function assistantFooter(item: Extract<TranscriptItem, { kind: "assistant" }>): string {
  const parts: string[] = [];
  if (item.model) parts.push(item.model);
  if (item.usage) {
    const u = item.usage;
    parts.push(`${formatTokens(u.input)} in`, `${formatTokens(u.output)} out`);
    if (u.cacheRead || u.cacheWrite)
      parts.push(`cache ${formatTokens(u.cacheRead)} read / ${formatTokens(u.cacheWrite)} write`);
    parts.push(
      u.billed ? `${formatCost(u.cost)} billed (estimate ${formatCost(u.billed.estimate)})` : formatCost(u.cost),
    );
  }
  parts.push(...replyFooter(item.reply));
  if (item.stopReason === "error" || item.stopReason === "aborted") parts.push(item.error ?? item.stopReason);
  return parts.join(" · ");
}

/** A reply's pi 1.6 facts for its footer: "thinking high (provider: max)", "12.3 s", "end of turn". */
function replyFooter(reply: ReplyFacts | undefined): string[] {
  if (!reply) return [];
  const parts: string[] = [];
  const provider = reply.providerThinkingLevel ? ` (provider: ${reply.providerThinkingLevel})` : "";
  if (reply.thinkingLevel) parts.push(`thinking ${reply.thinkingLevel}${provider}`);
  else if (reply.providerThinkingLevel) parts.push(`provider thinking ${reply.providerThinkingLevel}`);
  if (reply.durationMs !== null) parts.push(formatDuration(reply.durationMs));
  if (reply.endTurn) parts.push("end of turn");
  return parts;
}

/** A nested call on one line: "read docs/rules.md · ok · 0 ms". */
export function nestedCallLine(call: NestedCall): string {
  const parts = [call.path ? `${call.name} ${call.path}` : call.name, call.status];
  if (call.durationMs !== null) parts.push(formatDuration(call.durationMs));
  if (call.error) parts.push(call.error);
  return parts.join(" · ");
}

/** What a pi 1.6 context edit did to an entry, on one line. */
export function contextEditLine(edit: NonNullable<TranscriptItem["contextEdit"]>): string {
  return edit.state === "omitted"
    ? `left out of the model's context (context edit ${edit.id})`
    : `replaced in the model's context (context edit ${edit.id})`;
}

export function heading(item: TranscriptItem): string {
  const when = item.timestamp ? ` · ${formatDateTime(item.timestamp)}` : "";
  const what =
    item.kind === "user"
      ? "User"
      : item.kind === "assistant"
        ? "Assistant"
        : item.kind === "toolResult"
          ? `${item.isError ? "Tool error" : "Tool result"}: ${item.toolName}`
          : item.kind === "bash"
            ? "Bash"
            : item.kind === "compaction"
              ? "Compaction"
              : item.kind === "branchSummary"
                ? "Branch summary"
                : item.kind === "custom"
                  ? `Custom message: ${item.customType}`
                  : item.kind === "system"
                    ? "System prompt"
                    : "Note";
  return `${what}${when}`;
}
