/**
 * A branch as one self-contained HTML file: inline CSS allowed by a nonce in its own Content-Security-Policy (no
 * script, nothing loaded from anywhere, images only as data: URIs), light and dark through `prefers-color-scheme`,
 * tool output and thinking collapsible with `<details>`. Every piece of session text is escaped.
 */
import type { TranscriptImage, TranscriptItem } from "../transcript.js";
import {
  assistantFooter,
  contextEditLine,
  documentFacts,
  documentTitle,
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

const CSS = `
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --card: #f6f8fa; --line: #d1d9e0;
  --user: #0969da; --error: #cf222e; --inherited: #8250df; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --card: #151b23;
  --line: #3d444d; --user: #4493f8; --error: #f85149; --inherited: #ab7df8; } }
body { font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); max-width: 60rem;
  margin: 2rem auto; padding: 0 1rem; }
header p { color: var(--muted); margin: 0.2rem 0; }
article { border-left: 3px solid var(--line); padding: 0.2rem 0 0.2rem 1rem; margin: 1.2rem 0; }
article.user { border-color: var(--user); }
article.error { border-color: var(--error); }
article.inherited { opacity: 0.75; }
article.note { border: none; padding-left: 0; color: var(--muted); font-size: 0.9em; }
h2 { font-size: 0.95rem; margin: 0 0 0.4rem; color: var(--muted); }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--card); border: 1px solid var(--line);
  border-radius: 6px; padding: 0.6rem; font: 13px/1.45 ui-monospace, monospace; }
details { margin: 0.4rem 0; } summary { cursor: pointer; color: var(--muted); }
.tool { font-family: ui-monospace, monospace; }
.footer, .inherited-mark { color: var(--muted); font-size: 0.85em; }
.inherited-mark { color: var(--inherited); }
.del { color: var(--error); } .card { background: var(--card); border-radius: 6px; padding: 0.6rem; }
img { max-width: 100%; border: 1px solid var(--line); }
`;

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

function body(item: TranscriptItem): string {
  switch (item.kind) {
    case "user":
      return `<div class="text">${esc(item.text)}</div>${imageHtml(item.images)}`;
    case "assistant": {
      const out = item.blocks.map((b) => {
        if (b.type === "text") return `<div class="text">${esc(b.text)}</div>`;
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
        `<p class="footer">${item.tokensBefore === null ? "" : `${item.tokensBefore} tokens summarized · `}` +
        `${item.replaced} earlier entries replaced</p><div class="card text">${esc(item.summary)}</div>`
      );
    case "branchSummary":
      return (
        `<p class="footer">summarizes the branch left at ${esc(item.fromId ?? "?")}</p>` +
        `<div class="card text">${esc(item.summary)}</div>`
      );
    case "custom":
      return `<div class="text">${esc(item.text)}</div>`;
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
    if (item.kind === "note") return `<article class="${cls}">${body(item)}</article>`;
    const inherited = item.inherited
      ? `<p class="inherited-mark">inherited from ${esc(input.parentName ?? "the parent session")}</p>`
      : "";
    const h2 = `<h2>${esc(heading(item))}</h2>`;
    const edit = item.contextEdit ? `<p class="inherited-mark">${esc(contextEditLine(item.contextEdit))}</p>` : "";
    return `<article class="${cls}" id="entry-${esc(item.entryId)}">${h2}${inherited}${edit}${body(item)}</article>`;
  });
  const csp = `default-src 'none'; style-src 'nonce-${nonce}'; img-src data:`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style nonce="${esc(nonce)}">${CSS}</style>
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
