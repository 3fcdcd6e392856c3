/**
 * A session of the team database (issue #39) as a read-only Markdown transcript, from the text units a machine sent
 * with `sync --content`: one section per entry, in the order written, on every branch (the database holds no tree).
 * The same rules as the branch export (markdown.ts): the messages' own Markdown written again from its parse, code
 * and outputs in fences no text inside can close, fields of ours as inert text.
 */
import { formatCount, formatDateTime } from "../../protocol/format.js";
import { fenced } from "./fence.js";
import { field } from "./markdown.js";
import { messageMarkdown } from "./messageText.js";

/** A session's row in the team database (node/team/read.ts reads it). */
export interface TeamSessionRow {
  machine: string;
  file: string;
  sessionId: string;
  agent: string;
  project: string | null;
  title: string | null;
  firstActivity: string | null;
  lastActivity: string | null;
  parentSessionId: string | null;
  entryCount: number;
}

/** The row a transcript is made of, and whether its parent is on the same machine. */
export interface TeamTranscriptSession extends TeamSessionRow {
  /** The parent session is on the same machine: the fork's copies of its entries were sent with it, not here. */
  parentHere: boolean;
}

/** One text unit as the database holds it (src/core/search/units.ts made it). */
export interface TeamText {
  part: number;
  /** The search's role: user, assistant, thinking, tool, summary, meta, system, custom. */
  role: string;
  tool: string | null;
  text: string;
}

/** An entry's units, in their order. */
export interface TeamTranscriptEntry {
  entryId: string;
  /** A message's role (`user`, `toolResult`, …), else the entry's type; null in rows sent by a tool before it. */
  kind: string | null;
  time: string | null;
  units: TeamText[];
}

/** Tool units are kept to their first 16 KB in the database (units.ts), other text to 256 KB. */
const TOOL_TEXT_MAX = 16 * 1024;

/** The document's title and facts; `texts`: how many text units the database holds of it. */
export function teamTranscriptHead(s: TeamTranscriptSession, texts: number): string {
  const agent = s.agent === "omp" ? "Oh My Pi" : "pi";
  const facts = [
    `${agent} session ${s.sessionId} on ${s.machine}, from the team database`,
    `file ${s.file}`,
    ...(s.project ? [`project ${s.project}`] : []),
    ...(s.firstActivity ? [`first activity ${formatDateTime(s.firstActivity)}`] : []),
    ...(s.lastActivity ? [`last activity ${formatDateTime(s.lastActivity)}`] : []),
    ...(s.parentSessionId
      ? [
          s.parentHere
            ? `forked from session ${s.parentSessionId} (the entries copied from it are in its transcript)`
            : `forked from session ${s.parentSessionId}, which was not on ${s.machine}: its copied entries are here`,
        ]
      : []),
    `${formatCount(s.entryCount)} entries, ${formatCount(texts)} texts; every branch, in the order written; ` +
      "tool calls and output kept to their first 16 KB",
  ];
  return [`# ${field(s.title?.trim() || s.sessionId)}`, "", ...facts.map((f) => `- ${field(f)}`)].join("\n");
}

/** What a section is called, from its entry's kind, else (older rows) from its first unit's role. */
function entryHeading(e: TeamTranscriptEntry): string {
  const tool = e.units.find((u) => u.tool)?.tool;
  switch (e.kind ?? e.units[0]?.role) {
    case "user":
      return "User";
    case "assistant":
    case "thinking":
      return "Assistant";
    case "toolResult":
      return `Tool result${tool ? `: ${tool}` : ""}`;
    case "tool":
      return `Tool${tool ? `: ${tool}` : ""}`;
    case "bashExecution":
      return "Bash";
    case "system":
      return "System prompt";
    case "compaction":
      return "Compaction";
    case "branch_summary":
      return "Branch summary";
    case "summary":
      return "Summary";
    case "context_edit":
      return "Context edit";
    case "custom":
    case "custom_message":
    case undefined:
      return "Custom message";
    default:
      return e.kind ?? "Entry";
  }
}

function details(summary: string, body: string): string {
  return `<details><summary>${field(summary)}</summary>\n\n${body}\n\n</details>`;
}

/** A tool unit's size, and that it was cut where the database keeps it so. */
function toolSize(u: TeamText): string {
  return `${formatCount(u.text.length)} characters${u.text.length >= TOOL_TEXT_MAX ? ", its first 16 KB" : ""}`;
}

/**
 * What a tool unit is: a call (in a reply), an output (a tool result, a bash run), or unknown in rows sent before
 * kinds were kept (a reply with calls and no text, and a result, both hold one tool unit).
 */
function toolUnitKind(e: TeamTranscriptEntry): "call" | "output" | "unknown" {
  if (e.kind !== null) return e.kind === "assistant" ? "call" : "output";
  return e.units.some((x) => x.role === "assistant" || x.role === "thinking") ? "call" : "unknown";
}

/** One unit of an entry as Markdown: a tool call's or output's text fenced, thinking folded, messages as Markdown. */
function unitMarkdown(u: TeamText, e: TeamTranscriptEntry): string {
  switch (u.role) {
    case "thinking":
      return details(`Thinking (${formatCount(u.text.length)} characters)`, fenced(u.text));
    case "tool": {
      const kind = toolUnitKind(e);
      if (kind === "call") return `**Tool call** ${field(`${u.tool ?? ""} (${toolSize(u)})`)}\n\n${fenced(u.text)}`;
      return details(`${kind === "output" ? "Output" : "Call or output"} (${toolSize(u)})`, fenced(u.text));
    }
    case "system":
      return details(`System prompt (${formatCount(u.text.length)} characters)`, fenced(u.text));
    default:
      return messageMarkdown(u.text);
  }
}

/** A reply's units in the order a reply reads: its thinking, its text, then its calls. */
const REPLY_ORDER = new Map([
  ["thinking", 0],
  ["assistant", 1],
  ["tool", 2],
]);

/** Names, labels and titles (entries whose units are all `meta`): one quiet line, not a section. */
const QUIET = new Map([
  ["label", "Label"],
  ["session_info", "Named"],
  ["title_change", "Title"],
]);

function quietName(e: TeamTranscriptEntry): string | undefined {
  if (e.entryId === "") return "Title";
  // A message's role is its kind too: one named `label` is a message (its units are not `meta`), not a label.
  if (!e.units.every((u) => u.role === "meta")) return undefined;
  return (e.kind === null ? undefined : QUIET.get(e.kind)) ?? "Note";
}

/** One entry's section (a name, label or title is one quiet line). */
export function teamEntryMarkdown(e: TeamTranscriptEntry): string {
  const quiet = quietName(e);
  if (quiet) return `*${field(`${quiet}: ${e.units.map((u) => u.text).join(" ")}`)}*`;
  const when = e.time ? ` · ${formatDateTime(e.time)}` : "";
  // A reply's units were made thinking and calls first, its text last: read as a reply reads, calls after the text.
  const order = (role: string) => REPLY_ORDER.get(role) ?? 1;
  const units = e.units.slice().sort((a, b) => order(a.role) - order(b.role));
  const body = units.map((u) => unitMarkdown(u, e)).filter(Boolean);
  return [`## ${field(`${entryHeading(e)}${when}`)}`, `*${field(`entry ${e.entryId}`)}*`, ...body].join("\n\n");
}
