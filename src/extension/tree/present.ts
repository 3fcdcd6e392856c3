/** Presentation shared by several node kinds: untrusted Markdown, entry icons and tooltips, the open command. */
import { basename } from "node:path";
import * as vscode from "vscode";
import type { Entry, Session } from "../../core/session/index.js";
import type { ParentState } from "../../node/store/index.js";
import { formatCost, formatDateTime, formatTokens, oneLine } from "../../protocol/format.js";
import { messageText } from "../../core/entryText.js";
import { describeSystemMessage } from "../../core/systemMessage.js";
import { CommandId } from "../ids.js";
import { snippetPlainText } from "../../protocol/markdown.js";

/** Written in the last minute. */
export const LIVE_MS = 60_000;

/** Markdown that renders session text as text: no HTML, no command links. */
export function untrustedMarkdown(): vscode.MarkdownString {
  const md = new vscode.MarkdownString("", false);
  md.isTrusted = false;
  md.supportHtml = false;
  return md;
}

export function plainTooltip(text: string): vscode.MarkdownString {
  const md = untrustedMarkdown();
  md.appendText(text);
  return md;
}

/** A diagnostic's click opens the raw line it is about. */
export function rawLineCommand(file: string, line: number): vscode.Command {
  return { command: CommandId.OpenEntry, title: vscode.l10n.t("Open at line"), arguments: [file, line] };
}

/** A click on an entry opens the transcript there; the raw line is "Open Session File at Entry" in the menu. */
export function openCommand(file: string, entryId: string): vscode.Command {
  return { command: CommandId.OpenTranscript, title: vscode.l10n.t("Open Transcript"), arguments: [file, entryId] };
}

export function themeIcon(id: string, color?: string): vscode.ThemeIcon {
  return new vscode.ThemeIcon(id, color ? new vscode.ThemeColor(color) : undefined);
}

const ENTRY_TYPE_ICONS: Record<string, string> = {
  model_change: "symbol-enum",
  thinking_level_change: "lightbulb",
  label: "tag",
  session_info: "edit",
  title_change: "edit",
  custom: "extensions",
  custom_message: "extensions",
  model_usage: "graph",
  usage: "graph",
  context_edit: "diff",
  reset_boundary: "clear-all",
};

/** An entry's icon: by role for messages, by type otherwise; dimmed off the active branch. */
export function entryIcon(entry: Entry, active: boolean): vscode.ThemeIcon {
  const dim = active ? undefined : "disabledForeground";
  const m = entry.message?.record;
  switch (entry.role) {
    case "user":
      return themeIcon("account", active ? "charts.blue" : dim);
    case "assistant":
      return themeIcon(m && (m.stopReason === "error" || m.stopReason === "aborted") ? "warning" : "hubot", dim);
    case "toolResult":
      return themeIcon(m?.isError ? "error" : "tools", dim);
    case "bashExecution":
    case "pythonExecution":
      return themeIcon("terminal", dim);
    case "system":
      return themeIcon("settings-gear", dim);
    default:
      return themeIcon(ENTRY_TYPE_ICONS[entry.type] ?? (entry.known ? "circle-small" : "question"), dim);
  }
}

export function entryTooltip(file: string, entry: Entry, label: string | undefined): vscode.MarkdownString {
  const md = untrustedMarkdown();
  md.appendMarkdown("**");
  md.appendText(entry.type + (entry.role ? ` · ${entry.role}` : ""));
  md.appendMarkdown("**  \n");
  const time = entry.timestamp ? ` · ${formatDateTime(entry.timestamp)}` : "";
  // Line 0: not known (a tail-first preview's entry).
  md.appendText(`id ${entry.id}${entry.line ? ` · line ${entry.line}` : ""}${time}`);
  if (label) {
    md.appendMarkdown("  \n**Label:** ");
    md.appendText(label);
  }
  const m = entry.message;
  const text =
    entry.role === "system" && m
      ? describeSystemMessage(m.record)
      : m
        ? messageText(m)
        : typeof entry.data.summary === "string"
          ? entry.data.summary
          : "";
  if (text) {
    md.appendMarkdown("\n\n---\n\n");
    appendPreview(md, text);
  }
  md.appendMarkdown("\n\n");
  md.appendText(basename(file));
  return md;
}

/** A hover shows this much of a message or summary: its first lines (the transcript has the rest). */
const PREVIEW_LINES = 8;
const PREVIEW_CHARS = 600;

/**
 * The first lines of session Markdown in a hover, read as the transcript renders them but with nothing that could
 * act: a heading becomes a bold line, a list item a bullet, everything else text (`appendText` escapes it; links,
 * images and HTML are words). Then how much more there is.
 */
export function appendPreview(md: vscode.MarkdownString, text: string): void {
  // Only the start is split into lines (a message may be megabytes); the rest is counted, not copied.
  const head = text.slice(0, PREVIEW_CHARS * 4);
  const lines = head.split(/\r?\n/).filter((l, i, all) => l.trim() || (i > 0 && all[i - 1]!.trim()));
  let chars = 0;
  let shown = 0;
  for (const raw of lines) {
    if (shown >= PREVIEW_LINES || chars >= PREVIEW_CHARS) break;
    const line = raw.length > PREVIEW_CHARS - chars ? `${raw.slice(0, PREVIEW_CHARS - chars)}…` : raw;
    chars += line.length;
    shown++;
    const heading = /^\s{0,3}#{1,6}\s+(.*)$/.exec(line);
    const item = /^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[([ xX])\]\s+)?(.*)$/.exec(line);
    const words = hoverText(heading?.[1] ?? item?.[2] ?? line);
    if (!words) continue; // a rule, an empty heading: nothing to read
    if (heading) md.appendMarkdown("**");
    else if (item) md.appendMarkdown(item[1] === undefined ? "- " : item[1] === " " ? "- ☐ " : "- ☑ ");
    md.appendText(words);
    md.appendMarkdown(heading ? "**  \n" : item ? "\n" : "  \n");
  }
  const more = lines.length - shown + (text.length > head.length ? newlines(text, head.length) : 0);
  if (more > 0) md.appendMarkdown(`\n*${vscode.l10n.t("{0} more lines: open the transcript to read them", more)}*\n`);
}

/**
 * A preview line as text `appendText` can take: markup dropped, control and bidi characters as visible escapes, and
 * what `appendText` leaves live escaped too (`<` would start an autolink or HTML, `&` an entity that could decode to
 * a bidi control, a line of `=` or `-` would make the line above a heading).
 */
function hoverText(line: string): string {
  const plain = oneLine(snippetPlainText(line));
  if (/^[\s=\-_*#]*$/.test(plain)) return "";
  return plain.replace(/&/g, "&amp;").replace(/</g, "&lt;");
}

/** Line breaks in `text` from `from` on, counted without copying it. */
function newlines(text: string, from: number): number {
  let n = 0;
  for (let at = text.indexOf("\n", from); at >= 0; at = text.indexOf("\n", at + 1)) n++;
  return n;
}

/** The description of the row that shows the active leaf (it may stand in for a leaf the filter hides). */
export function leafMarker(session: Session, rowId: string): string {
  if (session.leafId === rowId) return `● ${vscode.l10n.t("active leaf")}`;
  const leaf = session.leafId ? session.byId.get(session.leafId) : undefined;
  const hidden = leaf ? leaf.type.replace(/_/g, " ") : "leaf";
  return `● ${vscode.l10n.t("active leaf ({0} hidden by the filter)", hidden)}`;
}

/** `12k ctx · $0.0042` for an assistant message with usage. */
export function assistantUsage(entry: Entry): string | undefined {
  // The reader's usage facts (core/facts.ts), the same figures the usage views count.
  const u = entry.role === "assistant" && !Array.isArray(entry.usage) ? entry.usage : undefined;
  if (!u) return undefined;
  const tokens = u.input + u.cacheRead + u.cacheWrite;
  const cost = u.cost;
  return `${formatTokens(tokens)} ctx · ${formatCost(cost)}`;
}

export function parentStateText(state: ParentState): string {
  switch (state) {
    case "resolved":
      return vscode.l10n.t("parent found");
    case "orphan":
      return vscode.l10n.t("orphan: the parent session is not under the session roots any more");
    case "external":
      return vscode.l10n.t("the parent is outside the configured session roots and is never opened");
    case "ambiguous":
      return vscode.l10n.t("ambiguous: several sessions carry the parent's id; none is chosen");
    default:
      return vscode.l10n.t("not a fork");
  }
}
