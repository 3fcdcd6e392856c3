/**
 * pi 1.6's system messages in words (docs/session-format.md#system-messages). pi persists one at the first request of
 * a branch (every section of the prompt and every tool) and one whenever the prompt or the tool loadout changes: a
 * patch, whose `sections` set (text) or remove (`null`) sections and whose `toolsAdded` / `toolsRemoved` change the
 * tools. Replaying a path's system messages in order gives the prompt and tools in effect.
 */
import { formatCount, truncate } from "../protocol/format.js";
import { isPlainObject } from "./jsonShape.js";

export interface SystemChanges {
  /** Sections the message sets (the whole prompt's, in the first one; patched ones later). */
  setSections: string[];
  removedSections: string[];
  toolsAdded: string[];
  toolsRemoved: string[];
  /** The prompt as one text (`content`), when the message carries it that way. */
  content: string;
}

function toolNames(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((t) => (isPlainObject(t) && typeof t.name === "string" ? [t.name] : []));
}

/** The sections a system message sets (their text) or removes (`null`), in order; other values are none. */
export function systemSections(message: Record<string, unknown>): { name: string; text: string | null }[] {
  if (!isPlainObject(message.sections)) return [];
  return Object.entries(message.sections).flatMap(([name, text]) =>
    typeof text === "string" || text === null ? [{ name, text }] : [],
  );
}

export function systemChanges(message: Record<string, unknown>): SystemChanges {
  const setSections: string[] = [];
  const removedSections: string[] = [];
  for (const { name, text } of systemSections(message)) (text === null ? removedSections : setSections).push(name);
  return {
    setSections,
    removedSections,
    toolsAdded: toolNames(message.toolsAdded),
    toolsRemoved: toolNames(message.toolsRemoved),
    content: typeof message.content === "string" ? message.content : "",
  };
}

/** Sections named on one line (more are counted); tools have short names, so more of them are named. */
const SHOWN_SECTIONS = 4;
const SHOWN_TOOLS = 10;

/** "a, b, c, d +2 more" (`separator` between names). */
function nameList(list: string[], shown: number, separator = ", "): string {
  const named = list
    .slice(0, shown)
    .map((n) => truncate(n, 60))
    .join(separator);
  return list.length > shown ? `${named} +${list.length - shown} more` : named;
}

/**
 * One line of what the message sets or changes: "system prompt: preamble, tools, rules, docs +2 more · tools: +read
 * +bash +edit +write", "system prompt: cwd; project_context removed", "tools: +codemode −bash".
 */
export function describeSystemMessage(message: Record<string, unknown>): string {
  const c = systemChanges(message);
  const prompt: string[] = [];
  if (c.setSections.length) prompt.push(nameList(c.setSections, SHOWN_SECTIONS));
  if (c.removedSections.length) prompt.push(`${nameList(c.removedSections, SHOWN_SECTIONS)} removed`);
  if (prompt.length === 0 && c.content) prompt.push(`${formatCount(c.content.length)} characters`);
  const tools = [...c.toolsAdded.map((n) => `+${n}`), ...c.toolsRemoved.map((n) => `−${n}`)];
  const parts: string[] = [];
  if (prompt.length) parts.push(`system prompt: ${prompt.join("; ")}`);
  if (tools.length) parts.push(`tools: ${nameList(tools, SHOWN_TOOLS, " ")}`);
  return parts.join(" · ") || "system prompt (unchanged)";
}

/**
 * The prompt and tools in effect after `messages` (pi-ai 1.6's `getCurrentSystemMessage`): every system message
 * replayed in order, later `content` appended, sections patched by name (`null` removes one), tools added and
 * removed; undefined when there is no system message. pi stores it as a compaction's `systemMessage`.
 */
export function currentSystemMessage(
  messages: readonly Record<string, unknown>[],
): Record<string, unknown> | undefined {
  const content: string[] = [];
  const sections = new Map<string, unknown>();
  const tools = new Map<string, unknown>();
  let timestamp: unknown;
  for (const m of messages) {
    if (m.role !== "system") continue;
    timestamp ??= m.timestamp;
    const text = typeof m.content === "string" ? m.content : contentBlocksText(m.content);
    if (text.length > 0) content.push(text);
    if (isPlainObject(m.sections))
      for (const [name, value] of Object.entries(m.sections)) {
        if (value === null) sections.delete(name);
        else sections.set(name, value);
      }
    for (const t of Array.isArray(m.toolsRemoved) ? m.toolsRemoved : [])
      if (isPlainObject(t)) tools.delete(t.name as string);
    for (const t of Array.isArray(m.toolsAdded) ? m.toolsAdded : [])
      if (isPlainObject(t)) tools.set(t.name as string, t);
  }
  if (timestamp === undefined && tools.size === 0) return undefined;
  return {
    role: "system",
    content: content.join("\n\n"),
    ...(sections.size > 0 ? { sections: Object.fromEntries(sections) } : {}),
    ...(tools.size > 0 ? { toolsAdded: [...tools.values()] } : {}),
    timestamp: timestamp ?? 0,
  };
}

/** pi-ai's `contentText` of a block list: its text blocks joined by newlines. */
function contentBlocksText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .filter((b): b is Record<string, unknown> => isPlainObject(b) && b.type === "text")
    .map((b) => b.text)
    .join("\n");
}
