/** One-line, plain-text descriptions of entries, shared by the CLI tree and the explorer. */
import { type Entry, isPlainObject } from "./session.js";

const MAX = 80;

export function truncate(text: string, max = MAX): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Concatenated text blocks of a message content (string or block array). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (isPlainObject(block) && block.type === "text" && typeof block.text === "string") parts.push(block.text);
  }
  return parts.join(" ");
}

function toolCalls(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return content
    .filter((b) => isPlainObject(b) && b.type === "toolCall")
    .map((b) => String((b as { name?: unknown }).name));
}

export function describeEntry(entry: Entry): string {
  const d = entry.data;
  switch (entry.type) {
    case "message": {
      const m = isPlainObject(d.message) ? d.message : {};
      const role = entry.role ?? "?";
      if (role === "assistant") {
        const text = contentText(m.content);
        const calls = toolCalls(m.content);
        const parts = [];
        if (text) parts.push(JSON.stringify(truncate(text, 60)));
        if (calls.length) parts.push(`→ ${calls.join(", ")}`);
        if (m.stopReason === "error" || m.stopReason === "aborted") parts.push(`(${String(m.stopReason)})`);
        return `assistant: ${parts.join(" ") || "(empty)"}`;
      }
      if (role === "toolResult")
        return `${m.isError ? "tool error" : "tool result"} ${String(m.toolName ?? "")}`.trim();
      if (role === "bashExecution") return `bash: ${truncate(String(m.command ?? ""), 60)}`;
      return `${role}: ${JSON.stringify(truncate(contentText(m.content), 60))}`;
    }
    case "model_change":
      return `model → ${typeof d.model === "string" ? d.model : `${String(d.provider)}/${String(d.modelId)}`}${typeof d.role === "string" && d.role !== "default" ? ` (${d.role})` : ""}`;
    case "thinking_level_change":
      return `thinking → ${String(d.thinkingLevel ?? d.configured ?? "off")}`;
    case "compaction":
      return `compaction · ${typeof d.tokensBefore === "number" ? `${formatTokens(d.tokensBefore)} tokens summarized` : "summary"}`;
    case "branch_summary":
      return `branch summary: ${JSON.stringify(truncate(String(d.summary ?? ""), 50))}`;
    case "label":
      return typeof d.label === "string" && d.label
        ? `label ${JSON.stringify(d.label)} → ${String(d.targetId)}`
        : `label cleared → ${String(d.targetId)}`;
    case "session_info":
      return typeof d.name === "string" && d.name.trim()
        ? `name: ${JSON.stringify(truncate(d.name, 50))}`
        : "name cleared";
    case "title_change":
      return `title: ${JSON.stringify(truncate(String(d.title ?? ""), 50))}`;
    case "custom":
      return `custom ${String(d.customType)}`;
    case "custom_message":
      return `custom message ${String(d.customType)}: ${JSON.stringify(truncate(contentText(d.content), 40))}`;
    case "model_usage":
      return `model usage (${String(d.purpose ?? "side call")}) ${String(d.model ?? "")}`;
    case "reset_boundary":
      return "reset (/clear)";
    default:
      return entry.known ? entry.type.replace(/_/g, " ") : `${entry.type} (unknown type)`;
  }
}

export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1000) return `${Math.round(n / 1000)}k`;
  return String(n);
}
