/**
 * A branch as Markdown: one section per entry, code and outputs in fenced blocks whose fence is longer than any run of
 * backticks inside them (so session text cannot close a block), tool outputs and thinking in `<details>`.
 */
import type { TranscriptImage, TranscriptItem } from "../transcript.js";
import { assistantFooter, documentFacts, documentTitle, type ExportInput, heading } from "./common.js";

/** A fenced block that no backtick run in `text` can close. */
export function fenced(text: string, lang = "text"): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${text}${text.endsWith("\n") ? "" : "\n"}${fence}`;
}

/** Text placed in Markdown as text: HTML and Markdown syntax that could start a tag or a link is escaped. */
function prose(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function details(summary: string, body: string): string {
  return `<details><summary>${prose(summary)}</summary>\n\n${body}\n\n</details>`;
}

function imageLines(images: TranscriptImage[]): string[] {
  return images.map((i) =>
    i.blob
      ? `*[image ${i.mimeType}, blob sha256:${i.blob}]*`
      : `*[image ${i.mimeType}, ${Math.round(((i.data?.length ?? 0) * 3) / 4 / 1024)} KB]*`,
  );
}

function body(item: TranscriptItem): string[] {
  switch (item.kind) {
    case "user":
      return [prose(item.text), ...imageLines(item.images)];
    case "assistant": {
      const out: string[] = [];
      for (const b of item.blocks) {
        if (b.type === "text") out.push(prose(b.text));
        else if (b.type === "thinking") out.push(details(`Thinking (${b.text.length} characters)`, fenced(b.text)));
        else {
          out.push(`**Tool call** ${prose(b.name)}${b.summary ? `: ${prose(b.summary.replace(/\s+/g, " "))}` : ""}`);
          if (b.edits)
            for (const e of b.edits) out.push(fenced(`--- old\n${e.oldText}\n+++ new\n${e.newText}`, "diff"));
          else if (b.written !== undefined)
            out.push(details(`Written content (${b.written.length} characters)`, fenced(b.written)));
          else if (b.moreArguments || !b.summary) out.push(details("Arguments", fenced(b.arguments, "json")));
        }
      }
      const footer = assistantFooter(item);
      if (footer) out.push(`*${prose(footer)}*`);
      return out;
    }
    case "toolResult":
      return [
        details(`${item.isError ? "Error output" : "Output"} (${item.text.length} characters)`, fenced(item.text)),
        ...imageLines(item.images),
      ];
    case "bash":
      return [
        fenced(`$ ${item.command}`, "sh"),
        details(`Output, exit code ${item.exitCode ?? "?"}`, fenced(item.output)),
      ];
    case "compaction":
      return [
        `*${item.tokensBefore === null ? "" : `${item.tokensBefore} tokens summarized · `}` +
          `${item.replaced} earlier entries replaced*`,
        fenced(item.summary, "markdown"),
      ];
    case "branchSummary":
      return [`*summarizes the branch left at ${item.fromId ?? "?"}*`, fenced(item.summary, "markdown")];
    case "custom":
      return [prose(item.text)];
    case "note":
      return [`*${prose(item.text)}*`];
  }
}

export function exportMarkdown(input: ExportInput): string {
  const parts = [`# ${prose(documentTitle(input))}`, "", ...documentFacts(input).map((f) => `- ${prose(f)}`)];
  for (const item of input.items) {
    // Settings changes, labels and names are one quiet line, not a section.
    if (item.kind === "note") {
      parts.push("", `*${prose(item.text)}*${item.inherited ? " *(inherited)*" : ""}`);
      continue;
    }
    parts.push("", `## ${prose(heading(item))}`, "");
    if (item.inherited) parts.push(`> inherited from ${prose(input.parentName ?? "the parent session")}`, "");
    parts.push(body(item).filter(Boolean).join("\n\n"));
  }
  return `${parts.join("\n")}\n`;
}
