/**
 * An entry in words: a message's text, an entry's one-line label and description. Read from the typed views the
 * reader narrows (`Entry.message`), shared by the tree, the transcript, search, the CLI and the panels.
 */
import { formatTokens, truncate } from "../protocol/format.js";
import { plainLabel } from "../protocol/markdown.js";
import type { Entry } from "./session/entry.js";
import { describeCustomEntry, describeUsageEntry } from "./entryKinds.js";
import { describeSystemMessage } from "./systemMessage.js";
import { type ContentBlock, type MessageView, narrowContent } from "./session/message.js";

/** What the entry labels need of an entry (the core's `Entry` has it). */
export type EntryLike = Pick<Entry, "type" | "role" | "known" | "data" | "message">;

/** Shown for a user message without text (an image only, or nothing). */
const EMPTY_PROMPT = "(empty prompt)";

/** The text blocks of typed content, joined by a space (blocks whose text is not a string are none). */
function blocksText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const b of blocks) if (b.type === "text" && typeof b.record.text === "string") parts.push(b.text);
  return parts.join(" ");
}

/** Concatenated text blocks of a message content as written (a string or an array of blocks). */
export function contentText(content: unknown): string {
  return typeof content === "string" ? content : blocksText(narrowContent(content));
}

/** A message's text: its string content, or its text blocks joined. "" without a message. */
export function messageText(m: MessageView | undefined): string {
  if (!m) return "";
  return typeof m.content === "string" ? m.content : blocksText(m.blocks);
}

/** An entry's one-line label: the prompt itself for a user message, else what the entry is (`describeEntry`). */
export function entryLabel(entry: EntryLike, max = 100): string {
  const m = entry.role === "user" ? entry.message : undefined;
  if (m) return truncate(plainLabel(messageText(m)) || EMPTY_PROMPT, max);
  return describeEntry(entry);
}

/** `entryLabel`, with the entry a label or context edit points at named by its words (a view's "ends at …"). */
export function entryLabelIn(byId: { get(id: string): EntryLike | undefined }, entry: EntryLike, max = 100): string {
  if (entry.role === "user") return entryLabel(entry, max);
  return describeEntry(entry, (id) => {
    const target = byId.get(id);
    return target ? `“${entryLabel(target, 40)}”` : id;
  });
}

/** What an entry is, on one line: `assistant: "…" → read, edit`, `model → anthropic/claude`, `label "x" → id`. */
export function describeEntry(entry: EntryLike, nameOf: (id: string) => string = (id) => id): string {
  if (entry.type === "message") return describeMessage(entry.role, entry.message);
  const d = entry.data;
  switch (entry.type) {
    case "model_change": {
      const model = typeof d.model === "string" ? d.model : `${String(d.provider)}/${String(d.modelId)}`;
      return `model → ${model}${typeof d.role === "string" && d.role !== "default" ? ` (${d.role})` : ""}`;
    }
    case "thinking_level_change":
      return `thinking → ${String(d.thinkingLevel ?? d.configured ?? "off")}`;
    case "compaction":
      return typeof d.tokensBefore === "number"
        ? `compaction · ${formatTokens(d.tokensBefore)} tokens before`
        : "compaction · summary";
    case "branch_summary":
      return `branch summary: ${JSON.stringify(truncate(String(d.summary ?? ""), 50))}`;
    case "label":
      return typeof d.label === "string" && d.label
        ? `label ${JSON.stringify(d.label)} → ${nameOf(String(d.targetId))}`
        : `label cleared → ${nameOf(String(d.targetId))}`;
    case "session_info":
      return typeof d.name === "string" && d.name.trim()
        ? `name: ${JSON.stringify(truncate(d.name, 50))}`
        : "name cleared";
    case "title_change":
      return `title: ${JSON.stringify(truncate(String(d.title ?? ""), 50))}`;
    case "custom":
      return describeCustomEntry(d);
    case "custom_message":
      return `custom message ${String(d.customType)}: ${JSON.stringify(truncate(contentText(d.content), 40))}`;
    case "model_usage":
      return `model usage (${String(d.purpose ?? "side call")}) ${String(d.model ?? "")}`;
    case "reset_boundary":
      return "reset (/clear)";
    case "usage":
      return describeUsageEntry(entry);
    case "context_edit":
      return d.replacement === null
        ? `context edit: ${nameOf(String(d.targetId))} left out of context`
        : `context edit: ${nameOf(String(d.targetId))} replaced in context`;
    default:
      return entry.known ? entry.type.replace(/_/g, " ") : `${entry.type} (unknown type)`;
  }
}

function describeMessage(role: string | undefined, m: MessageView | undefined): string {
  const r = m?.record ?? {};
  const shown = role ?? "?";
  if (shown === "assistant") {
    const text = messageText(m);
    const calls = (m?.blocks ?? []).filter((b) => b.type === "toolCall").map((b) => String(b.record.name));
    const parts = [];
    if (text) parts.push(JSON.stringify(truncate(plainLabel(text), 60)));
    if (calls.length) parts.push(`→ ${calls.join(", ")}`);
    if (r.stopReason === "error" || r.stopReason === "aborted") parts.push(`(${String(r.stopReason)})`);
    return `assistant: ${parts.join(" ") || "(empty)"}`;
  }
  if (shown === "toolResult") return `${r.isError ? "tool error" : "tool result"} ${String(r.toolName ?? "")}`.trim();
  if (shown === "system") return describeSystemMessage(r);
  if (shown === "bashExecution") return `bash: ${truncate(String(r.command ?? ""), 60)}`;
  return `${shown}: ${JSON.stringify(truncate(plainLabel(messageText(m)), 60))}`;
}
