/**
 * A branch as Markdown: one section per entry. The messages' own Markdown is kept, written again from its parse so
 * that nothing in it becomes markup of the document (export/messageText.ts); code and outputs are in fenced blocks
 * whose fence is longer than any run of backticks inside them (so session text cannot close a block), tool outputs
 * and thinking in `<details>`. Fields of ours (headings, facts, footers) are text with every markup character an
 * entity.
 */
import type { TranscriptImage, TranscriptItem } from "../transcript.js";
import { fenced } from "./fence.js";
import { messageMarkdown } from "./messageText.js";
import { summaryMarkdown } from "../../protocol/markdown.js";
import { formatCount } from "../../protocol/format.js";
import type { Session } from "../session/index.js";
import {
  assistantFooter,
  contextEditLine,
  documentFacts,
  documentTitle,
  entryNamed,
  type ExportInput,
  heading,
  nestedCallLine,
} from "./common.js";

/**
 * Text placed in Markdown as text. Everything that could start markup is an entity: a tag (`<`), a link or image
 * (`[`, `]`), a code span or a fence that would swallow what follows (`` ` ``, `~`), and a heading at a line's start
 * (which would forge a section of the transcript), whether ATX (`#`) or setext (a line of `=` or `-` under a line),
 * a list marker (inside which a heading starts again), a table's `|`, a star, and a backslash that would escape what
 * follows it (a field sits inside our own `*…*`), and an underscore at a word's edge.
 */
function prose(text: string): string {
  return (
    text
      .replace(/&/g, "&amp;")
      // A star would start or end emphasis, and a backslash before punctuation or at the end escapes what follows
      // (`*label \*` never closes): entities, as everything else here (they also hold in a `<summary>`, where a
      // backslash escape would show). A Windows path's backslashes stay as they are.
      .replace(/\*/g, "&#42;")
      // An underscore can open or close emphasis only at a word's edge: `project_context` stays as it is.
      .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, "&#95;")
      .replace(/\\(?=[!-/:-@[-`{-~\n]|$)/g, "&#92;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/`/g, "&#96;")
      .replace(/~/g, "&#126;")
      .replace(/\[/g, "&#91;")
      .replace(/\]/g, "&#93;")
      .replace(/\|/g, "&#124;")
      // `ftp://…` and `//host/…`: a viewer that links bare addresses would link a scheme an export does not.
      .replace(/\/(?=\/)/g, "&#47;")
      // Line-leading marks: spaces and tabs only (`\s` would run across newlines: quadratic on blank lines).
      .replace(/^([ \t]*)#/gm, "$1&#35;")
      .replace(/^([ \t]*)([-*+])(?=[ \t]|$)/gm, (_, i: string, c: string) => `${i}&#${c.charCodeAt(0)};`)
      .replace(/^([ \t]*\d{1,9})([.)])(?=[ \t]|$)/gm, (_, n: string, c: string) => `${n}&#${c.charCodeAt(0)};`)
      .replace(
        /^( {0,3})([=-])(?=[=\- \t]*$)/gm,
        (_, indent: string, c: string) => `${indent}${c === "=" ? "&#61;" : "&#45;"}`,
      )
  );
}

/** A field on one line (a heading, a fact): whitespace collapsed, then `prose`. */
export const field = (text: string) => prose(text.replace(/\s+/g, " ").trim());

function details(summary: string, body: string): string {
  return `<details><summary>${prose(summary)}</summary>\n\n${body}\n\n</details>`;
}

function imageLines(images: TranscriptImage[]): string[] {
  return images.map((i) => {
    const size = `${Math.round(((i.data?.length ?? 0) * 3) / 4 / 1024)} KB`;
    return `*${field(`[image ${i.mimeType}, ${i.blob ? `blob sha256:${i.blob}` : size}]`)}*`;
  });
}

function body(item: TranscriptItem, session: Session): string[] {
  switch (item.kind) {
    case "user":
      return [messageMarkdown(item.text), ...imageLines(item.images)];
    case "assistant": {
      const out: string[] = [];
      for (const b of item.blocks) {
        if (b.type === "text") out.push(messageMarkdown(b.text));
        else if (b.type === "thinking") out.push(details(`Thinking (${b.text.length} characters)`, fenced(b.text)));
        else {
          out.push(`**Tool call** ${field(b.name)}${b.summary ? `: ${field(b.summary)}` : ""}`);
          if (b.edits)
            for (const e of b.edits) out.push(fenced(`--- old\n${e.oldText}\n+++ new\n${e.newText}`, "diff"));
          else if (b.written !== undefined)
            out.push(details(`Written content (${b.written.length} characters)`, fenced(b.written)));
          else if (b.moreArguments || !b.summary) out.push(details("Arguments", fenced(b.arguments, "json")));
        }
      }
      const footer = assistantFooter(item);
      if (footer) out.push(`*${field(footer)}*`);
      return out;
    }
    case "toolResult":
      return [
        ...(item.nested?.length
          ? [`**Nested calls**\n\n${item.nested.map((c) => `- ${field(nestedCallLine(c))}`).join("\n")}`]
          : []),
        details(`${item.isError ? "Error output" : "Output"} (${item.text.length} characters)`, fenced(item.text)),
        ...imageLines(item.images),
      ];
    case "system":
      return [
        `*${field(item.summary)}*`,
        ...item.sections.map((sec) =>
          sec.text === null
            ? `*${field(`${sec.name}: removed`)}*`
            : details(sec.name.replace(/\s+/g, " "), fenced(sec.text)),
        ),
      ];
    case "bash":
      return [
        fenced(`$ ${item.command}`, "sh"),
        details(`Output, exit code ${item.exitCode ?? "?"}`, fenced(item.output)),
      ];
    case "compaction":
      return [
        `*${item.tokensBefore === null ? "" : `${formatCount(item.tokensBefore)} tokens before · `}` +
          `${item.messagesReplaced} ${item.messagesReplaced === 1 ? "message" : "messages"} summarized*`,
        messageMarkdown(summaryMarkdown(item.summary)),
      ];
    case "branchSummary":
      return [
        `*summarizes the branch left at ${field(entryNamed(session, item.fromId))}*`,
        messageMarkdown(summaryMarkdown(item.summary)),
      ];
    case "custom":
      return [messageMarkdown(item.text)];
    case "note":
      return [`*${field(item.text)}*`];
  }
}

export function exportMarkdown(input: ExportInput): string {
  const parts = [`# ${field(documentTitle(input))}`, "", ...documentFacts(input).map((f) => `- ${field(f)}`)];
  for (const item of input.items) {
    // Settings changes, labels and names are one quiet line, not a section.
    if (item.kind === "note") {
      parts.push("", `*${field(item.text)}*${item.inherited ? " *(inherited)*" : ""}`);
      continue;
    }
    parts.push("", `## ${field(heading(item))}`, "");
    if (item.inherited) parts.push(`> inherited from ${field(input.parentName ?? "the parent session")}`, "");
    if (item.contextEdit) parts.push(`> *${field(contextEditLine(item.contextEdit))}*`, "");
    parts.push(body(item, input.session).filter(Boolean).join("\n\n"));
  }
  return `${parts.join("\n")}\n`;
}
