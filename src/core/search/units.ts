/**
 * What full-text search indexes of a session: one text unit per readable part of an entry, on every branch (prompts,
 * replies, thinking, tool calls with their arguments verbatim, tool output up to its first 16 KB, bash runs,
 * compaction and branch summaries, labels, names and titles, custom messages). Never indexed: signatures, encrypted
 * reasoning, and image data (only text blocks are read). Pure: the index (src/node/search) stores what this returns.
 */
import { contentText, messageText } from "../entryText.js";
import { SEARCH_ROLES, type SearchRole } from "../../protocol/search.js";
import { systemSections } from "../systemMessage.js";
import { type Entry, isPlainObject, parseSession, type Session } from "../session/index.js";

export type UnitRole = SearchRole;
export const UNIT_ROLES: readonly UnitRole[] = SEARCH_ROLES;

export interface TextUnit {
  entryId: string;
  /** The entry's physical line (1-based); 0 for the OMP title slot. */
  line: number;
  /** The unit's number among its entry's units (an assistant reply has its text, thinking and calls). */
  part: number;
  role: UnitRole;
  /** Tool units: the tool's name. */
  tool: string | null;
  text: string;
  /** Milliseconds since the epoch, or null. */
  time: number | null;
}

/** Tool output and arguments beyond this are rarely searched and cost most of the index. */
const TOOL_TEXT_MAX = 16 * 1024;
/** Any other text unit is cut here (a runaway message must not bloat the index). */
const TEXT_MAX = 256 * 1024;

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** The string leaves of a tool call's arguments, verbatim, space-separated (paths and commands as written). */
function argumentText(args: unknown, depth = 0, out: string[] = []): string[] {
  if (depth > 6 || out.length > 200) return out;
  if (typeof args === "string") out.push(args);
  else if (typeof args === "number" || typeof args === "boolean") out.push(String(args));
  else if (Array.isArray(args)) for (const v of args) argumentText(v, depth + 1, out);
  else if (isPlainObject(args)) for (const v of Object.values(args)) argumentText(v, depth + 1, out);
  return out;
}

/** A system message's text: its prompt, its sections (name and text) and its tools' names. */
function systemText(m: Record<string, unknown>): string {
  const parts = [str(m.content)];
  for (const { name, text } of systemSections(m)) parts.push(name, text ?? "");
  for (const key of ["toolsAdded", "toolsRemoved"])
    if (Array.isArray(m[key])) for (const t of m[key]) if (isPlainObject(t)) parts.push(str(t.name));
  return parts.filter(Boolean).join("\n");
}

type UnitBody = Omit<TextUnit, "entryId" | "time" | "line" | "part">;

function messageUnits(e: Entry, push: (u: UnitBody) => void): void {
  const view = e.message;
  const m = view?.record ?? {};
  switch (e.role) {
    case "user":
      push({ role: "user", tool: null, text: messageText(view) });
      return;
    case "assistant": {
      const content = Array.isArray(m.content) ? m.content : typeof m.content === "string" ? [m.content] : [];
      const blocks = view?.blocks ?? [];
      const text: string[] = [];
      // Strings in the content are text too; the view's blocks are the object ones, in content order.
      for (let i = 0, k = 0; i < content.length; i++) {
        const raw: unknown = content[i];
        if (typeof raw === "string") text.push(raw);
        if (blocks[k]?.index !== i) continue;
        const b = blocks[k++]!;
        if (b.type === "text") text.push(b.text);
        else if (b.type === "thinking") push({ role: "thinking", tool: null, text: b.thinking });
        else if (b.type === "toolCall") {
          push({ role: "tool", tool: b.name || null, text: `${b.name} ${argumentText(b.record.arguments).join(" ")}` });
        }
      }
      push({ role: "assistant", tool: null, text: text.join("\n") });
      return;
    }
    case "toolResult":
      push({ role: "tool", tool: str(m.toolName) || null, text: messageText(view) });
      return;
    case "bashExecution":
      push({ role: "tool", tool: "bash", text: `${str(m.command)}\n${str(m.output)}` });
      return;
    case "system":
      // pi 1.6: the prompt's sections and the tools a system message sets (searched only when asked for).
      push({ role: "system", tool: null, text: systemText(m) });
      return;
    default:
      push({ role: "custom", tool: null, text: messageText(view) });
  }
}

/** The units of one entry. */
export function entryUnits(e: Entry): TextUnit[] {
  const t = Date.parse(e.timestamp ?? "");
  const time = Number.isFinite(t) ? t : null;
  const out: TextUnit[] = [];
  const push = (u: UnitBody) => {
    const max = u.role === "tool" ? TOOL_TEXT_MAX : TEXT_MAX;
    const text = u.text.length > max ? u.text.slice(0, max) : u.text;
    if (text.trim()) out.push({ ...u, text, entryId: e.id, time, line: e.line, part: out.length });
  };
  const d = e.data;
  switch (e.type) {
    case "message":
      messageUnits(e, push);
      break;
    case "compaction":
    case "branch_summary":
      push({ role: "summary", tool: null, text: str(d.summary) });
      break;
    case "label":
      push({ role: "meta", tool: null, text: str(d.label) });
      break;
    case "session_info":
      push({ role: "meta", tool: null, text: str(d.name) });
      break;
    case "title_change":
      push({ role: "meta", tool: null, text: str(d.title) });
      break;
    case "custom_message":
      push({ role: "custom", tool: null, text: `${str(d.customType)} ${contentText(d.content)}` });
      break;
    case "context_edit":
      // pi 1.6: what the model saw instead of the target (an extension's trimmed output, say) is searchable too.
      if (isPlainObject(d.replacement)) push({ role: "custom", tool: null, text: contentText(d.replacement.content) });
      break;
  }
  return out;
}

/**
 * Every unit of a session, in file order, on every branch; entries in `skip` (a fork's copies of its parent's) are
 * left to the session that wrote them. The OMP title slot, which is no entry, is a `meta` unit of the header.
 */
export function sessionUnits(session: Session, skip?: ReadonlySet<string>): TextUnit[] {
  const out: TextUnit[] = [];
  if (session.titleSlot?.title) {
    const t = Date.parse(String(session.header.timestamp ?? ""));
    out.push({
      entryId: "",
      line: 0,
      part: 0,
      role: "meta",
      tool: null,
      text: session.titleSlot.title,
      time: Number.isFinite(t) ? t : null,
    });
  }
  for (const e of session.entries) if (!e.shadowed && !skip?.has(e.id)) out.push(...entryUnits(e));
  return out;
}

/**
 * The units of one session line read back from its file (a hit's snippet is cut from its unit's text), given the
 * session's header version (null for a v1 header, which has none): the same units indexing the file gave it.
 */
export function lineUnits(line: string, version: number | null): { entryId: string; units: TextUnit[] } | null {
  const header = { type: "session", ...(version === null ? {} : { version }), id: "s", timestamp: "", cwd: "" };
  const parsed = parseSession("", `${JSON.stringify(header)}\n${line}\n`, { validate: false });
  const entry = parsed.ok ? parsed.session.entries[0] : undefined;
  return entry ? { entryId: entry.id, units: entryUnits(entry) } : null;
}
