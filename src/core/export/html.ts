/**
 * A branch as one self-contained HTML file: inline CSS allowed by a nonce in its own Content-Security-Policy (no
 * script, nothing loaded from anywhere, images only as data: URIs), light and dark through `prefers-color-scheme`,
 * tool output and thinking collapsible with `<details>`. Messages are their Markdown rendered as the transcript view
 * renders it (export/messageHtml.ts), code highlighted; every other piece of session text is escaped. Each entry is
 * an `#entry-<id>` anchor, linked from its heading.
 */
import type { TranscriptImage, TranscriptItem } from "../transcript.js";
import { CSS, HIGHLIGHT_CSS, MARKDOWN_CSS } from "./htmlStyle.js";
import { summaryMarkdown } from "../../protocol/markdown.js";
import { formatCount } from "../../protocol/format.js";
import type { Session } from "../session/index.js";
import { messageHtml } from "./messageHtml.js";
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

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

const esc = escapeHtml;
const pre = (text: string, cls = "") => `<pre${cls ? ` class="${cls}"` : ""}>${esc(text)}</pre>`;
const details = (summary: string, inner: string) => `<details><summary>${esc(summary)}</summary>${inner}</details>`;

/** Only the image types a browser shows; anything else is named, not embedded. */
function imageHtml(images: TranscriptImage[]): string {
  return images
    .map((i) =>
      i.data && /^image\/(png|jpeg|gif|webp)$/.test(i.mimeType) && /^[A-Za-z0-9+/=]+$/.test(i.data)
        ? `<img alt="${esc(i.mimeType)}" src="data:${i.mimeType};base64,${i.data}">`
        : `<p class="footer">[image ${esc(i.mimeType)}${i.blob ? `, blob sha256:${esc(i.blob)} not found` : ""}]</p>`,
    )
    .join("");
}

function body(item: TranscriptItem, session: Session): string {
  switch (item.kind) {
    case "user":
      return `${messageHtml(item.text)}${imageHtml(item.images)}`;
    case "assistant": {
      const out = item.blocks.map((b) => {
        if (b.type === "text") return messageHtml(b.text);
        if (b.type === "thinking") return details(`Thinking (${b.text.length} characters)`, pre(b.text));
        const summary = b.summary ? ` <span class="footer">${esc(b.summary)}</span>` : "";
        const head = `<p class="tool">→ ${esc(b.name)}${summary}</p>`;
        if (b.edits)
          return (
            head +
            b.edits.map((e) => `<pre><span class="del">${esc(e.oldText)}</span>\n${esc(e.newText)}</pre>`).join("")
          );
        if (b.written !== undefined)
          return head + details(`Written content (${b.written.length} characters)`, pre(b.written));
        return b.moreArguments || !b.summary ? head + details("Arguments", pre(b.arguments)) : head;
      });
      const footer = assistantFooter(item);
      return out.join("") + (footer ? `<p class="footer">${esc(footer)}</p>` : "");
    }
    case "system":
      return (
        `<p class="footer">${esc(item.summary)}</p>` +
        item.sections
          .map((sec) =>
            sec.text === null ? `<p class="footer">${esc(sec.name)}: removed</p>` : details(sec.name, pre(sec.text)),
          )
          .join("")
      );
    case "toolResult":
      return (
        (item.nested?.length
          ? `<ul class="footer">${item.nested.map((c) => `<li>${esc(nestedCallLine(c))}</li>`).join("")}</ul>`
          : "") +
        details(`${item.isError ? "Error output" : "Output"} (${item.text.length} characters)`, pre(item.text)) +
        imageHtml(item.images)
      );
    case "bash":
      return pre(`$ ${item.command}`) + details(`Output, exit code ${item.exitCode ?? "?"}`, pre(item.output));
    case "compaction":
      return (
        `<p class="footer">${item.tokensBefore === null ? "" : `${formatCount(item.tokensBefore)} tokens before · `}` +
        `${item.messagesReplaced} ${item.messagesReplaced === 1 ? "message" : "messages"} summarized</p>` +
        `<div class="card">${messageHtml(summaryMarkdown(item.summary))}</div>`
      );
    case "branchSummary":
      return (
        `<p class="footer">summarizes the branch left at ${esc(entryNamed(session, item.fromId))}</p>` +
        `<div class="card">${messageHtml(summaryMarkdown(item.summary))}</div>`
      );
    case "custom":
      return messageHtml(item.text);
    case "note":
      return esc(item.text);
  }
}

/** `nonce`: a fresh random value (base64) for the inline style, from the caller. */
export function exportHtml(input: ExportInput, nonce: string): string {
  const title = documentTitle(input);
  const articles = input.items.map((item) => {
    const cls = [item.kind === "toolResult" && item.isError ? "error" : item.kind, item.inherited ? "inherited" : ""]
      .filter(Boolean)
      .join(" ");
    if (item.kind === "note") return `<article class="${cls}">${body(item, input.session)}</article>`;
    const inherited = item.inherited
      ? `<p class="inherited-mark">inherited from ${esc(input.parentName ?? "the parent session")}</p>`
      : "";
    const anchor = `entry-${esc(item.entryId)}`;
    const h2 = `<h2><a class="anchor" href="#${anchor}">${esc(heading(item))}</a></h2>`;
    const edit = item.contextEdit ? `<p class="inherited-mark">${esc(contextEditLine(item.contextEdit))}</p>` : "";
    return `<article class="${cls}" id="${anchor}">${h2}${inherited}${edit}${body(item, input.session)}</article>`;
  });
  const csp = `default-src 'none'; style-src 'nonce-${nonce}'; img-src data:`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style nonce="${esc(nonce)}">${CSS}${MARKDOWN_CSS}${HIGHLIGHT_CSS}</style>
</head>
<body>
<header><h1>${esc(title)}</h1>${documentFacts(input)
    .map((f) => `<p>${esc(f)}</p>`)
    .join("")}</header>
<main>
${articles.join("\n")}
</main>
</body>
</html>
`;
}
