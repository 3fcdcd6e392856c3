/**
 * One transcript item as the recall tools' `read_session` gives it to an agent: the export's Markdown (the messages'
 * own Markdown written again inert, fields of ours as text), but short. Tool calls are one line each, tool and bash
 * output a bounded preview, thinking left out unless asked for, and every long text cut before it is rendered, so
 * that a 10 MB message costs what its preview costs.
 */
import type { TranscriptItem } from "../transcript.js";
import type { Session } from "../session/index.js";
import { summaryMarkdown } from "../../protocol/markdown.js";
import { formatCount, truncate } from "../../protocol/format.js";
import { codeSpan, fenced } from "./fence.js";
import { messageMarkdown } from "./messageText.js";
import { assistantFooter, contextEditLine, entryNamed, heading, nestedCallLine } from "./common.js";
import { field } from "./markdown.js";

export interface RecallRenderOptions {
  /** Include the model's thinking (cut like a message). */
  thinking: boolean;
  /** The most characters of one text (a prompt, a reply, a summary) before it is rendered. */
  textMax: number;
  /** The most characters of a tool's or a bash run's output. */
  outputMax: number;
}

/** A text cut to `max` characters (never inside a surrogate pair), and how many were left out. */
function cut(text: string, max: number): { text: string; left: number } {
  if (text.length <= max) return { text, left: 0 };
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return { text: text.slice(0, end), left: text.length - end };
}

/** Tool calls of one message listed at most (a message can hold thousands). */
const MAX_CALL_LINES = 50;

const moreLine = (left: number) => (left ? `\n\n*${field(`… ${formatCount(left)} more characters`)}*` : "");

function message(text: string, max: number): string {
  const c = cut(text, max);
  return messageMarkdown(c.text) + moreLine(c.left);
}

function preview(text: string, max: number, lang = "text"): string {
  const c = cut(text, max);
  return fenced(c.text, lang) + moreLine(c.left);
}

/** A tool call on one line: its name, what it acts on, and how much it sends. */
function toolCallLine(
  b: Extract<Extract<TranscriptItem, { kind: "assistant" }>["blocks"][number], { type: "toolCall" }>,
) {
  const what = b.summary ? ` ${codeSpan(truncate(b.summary, 200))}` : "";
  const size = b.edits
    ? `(${b.edits.length === 1 ? "1 edit" : `${b.edits.length} edits`})`
    : b.written !== undefined
      ? `(writes ${formatCount(b.written.length)} characters)`
      : "";
  return `- tool call ${field(b.name)}${what}${size ? ` ${field(size)}` : ""}`;
}

function body(item: TranscriptItem, session: Session, o: RecallRenderOptions): string[] {
  switch (item.kind) {
    case "user":
      return [
        message(item.text, o.textMax),
        ...(item.images.length ? [`*${field(`${item.images.length} image(s)`)}*`] : []),
      ];
    case "assistant": {
      const out: string[] = [];
      const calls: string[] = [];
      // One budget for the message's texts together: a message of many blocks costs what one preview costs.
      let room = o.textMax;
      let left = 0;
      for (const b of item.blocks) {
        if (b.type === "toolCall") {
          if (calls.length < MAX_CALL_LINES) calls.push(toolCallLine(b));
          else left++;
        } else if (b.type === "text" || o.thinking) {
          if (room <= 0) {
            left++;
            continue;
          }
          const text = message(b.text, room);
          room -= Math.min(b.text.length, room);
          out.push(b.type === "thinking" ? `*Thinking:*\n\n${text}` : text);
        }
      }
      if (calls.length) out.push(calls.join("\n"));
      if (left) out.push(`*${field(`… ${formatCount(left)} more blocks`)}*`);
      const footer = assistantFooter(item);
      if (footer) out.push(`*${field(footer)}*`);
      return out;
    }
    case "toolResult":
      return [
        ...(item.nested?.length
          ? [
              item.nested
                .slice(0, MAX_CALL_LINES)
                .map((c) => `- nested ${field(nestedCallLine(c))}`)
                .join("\n"),
            ]
          : []),
        ...(item.nested && item.nested.length > MAX_CALL_LINES
          ? [`*${field(`… ${formatCount(item.nested.length - MAX_CALL_LINES)} more nested calls`)}*`]
          : []),
        item.text ? preview(item.text, o.outputMax) : "*(no output)*",
      ];
    case "system":
      return [`*${field(item.summary)}*`];
    case "bash":
      return [
        fenced(`$ ${cut(item.command, o.outputMax).text}`, "sh"),
        `*${field(`exit code ${item.exitCode ?? "?"}`)}*`,
        ...(item.output ? [preview(item.output, o.outputMax)] : []),
      ];
    case "compaction":
      return [
        `*${item.tokensBefore === null ? "" : `${formatCount(item.tokensBefore)} tokens before · `}` +
          `${item.messagesReplaced} ${item.messagesReplaced === 1 ? "message" : "messages"} summarized*`,
        message(summaryMarkdown(item.summary), o.textMax),
      ];
    case "branchSummary":
      return [
        `*summarizes the branch left at ${field(entryNamed(session, item.fromId))}*`,
        message(summaryMarkdown(item.summary), o.textMax),
      ];
    case "custom":
      return [message(item.text, o.textMax)];
    case "note":
      return [];
  }
}

/** The heading of an item: what it is, when, and its entry id (to cite it or read around it). */
function itemHeading(item: TranscriptItem): string {
  const label = item.label ? ` · label “${item.label}”` : "";
  return `## ${field(`${heading(item)} · entry ${item.entryId}${label}`)}`;
}

/** One item as Markdown for `read_session` (a note is one quiet line). */
export function recallMarkdown(item: TranscriptItem, session: Session, options: RecallRenderOptions): string {
  if (item.kind === "note") return `*${field(item.text)}* *(entry ${field(item.entryId)})*`;
  const parts = [itemHeading(item)];
  if (item.inherited) parts.push("> *inherited from the parent session*");
  if (item.contextEdit) parts.push(`> *${field(contextEditLine(item.contextEdit))}*`);
  parts.push(...body(item, session, options).filter(Boolean));
  return parts.join("\n\n");
}
