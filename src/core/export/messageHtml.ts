/**
 * A message's Markdown as HTML for the HTML export, parsed as the transcript view parses it (markdown-it, `html:
 * false`: raw HTML is text) and rendered by markdown-it's own renderer, which escapes every text and attribute. The
 * rules the transcript view applies, as strings: links only to the web and mail (others stay text), images named
 * but never loaded, headings demoted below the entry's, table alignment as classes (the export's CSP allows no
 * inline style), code highlighted by highlight.js and its output checked to be only its own spans.
 */
import hljs from "highlight.js/lib/common";
import MarkdownIt from "markdown-it";
import { cutByNesting, HIGHLIGHT_MAX, isExportLink } from "../../protocol/markdown.js";

/** highlight.js output: text (escaped) and its own spans, nothing else. Anything else falls back to plain text. */
const HIGHLIGHTED = /^(?:[^<>]|<span class="[\w -]+">|<\/span>)*$/;

function highlight(code: string, lang: string): string {
  const language = lang.split(/\s+/)[0] ?? "";
  if (!language || code.length > HIGHLIGHT_MAX || !hljs.getLanguage(language)) return "";
  const html = hljs.highlight(code, { language, ignoreIllegals: true }).value;
  return HIGHLIGHTED.test(html) ? html : "";
}

export type Token = ReturnType<InstanceType<typeof MarkdownIt>["parse"]>[number];

/** The one parser of session Markdown in exports (the Markdown export re-writes its tokens; exports/messageText.ts). */
export const exportMarkdownIt = new MarkdownIt({ html: false, linkify: true, typographer: false, highlight });
exportMarkdownIt.validateLink = isExportLink;

/**
 * Longer messages are exported as their text in a code block, their Markdown not read: markdown-it's worst inputs
 * (`![` again and again) cost about 5 s per MB. Ordinary messages are far below it.
 */
const MARKDOWN_MAX = 200_000;

/** A message's tokens; null when it is exported as text instead (too long, or too deep to be read whole). */
export function parsedMessage(text: string): Token[] | null {
  if (text.length > MARKDOWN_MAX) return null;
  const tokens = exportMarkdownIt.parse(text, {});
  return cutByNesting(tokens, exportMarkdownIt.options.maxNesting) ? null : tokens;
}

/** An image's alt text as a reader sees it: its words, on one line. */
export function imageAlt(image: Token): string {
  return exportMarkdownIt.renderer
    .renderInlineAsText(image.children ?? [], exportMarkdownIt.options, {})
    .replace(/\s+/g, " ")
    .trim();
}

const rules = exportMarkdownIt.renderer.rules;
const escape = exportMarkdownIt.utils.escapeHtml;

/** `[image: alt]` and its address: what the image is and where it points, never a request for it. */
rules.image = (tokens, i) => {
  const t = tokens[i]!;
  const src = String(t.attrGet("src") ?? "");
  const what = escape(`[image: ${imageAlt(t) || "untitled"}]`);
  return `<span class="image-ref">${what}${src ? ` (<code>${escape(src)}</code>)` : ""}</span>`;
};
// A link markdown-it kept without a destination (`[x]()`, or one whose scheme it refused) is its text.
const linkless = new WeakSet<object>();
rules.link_open = (tokens, i, options, _env, self) => {
  const t = tokens[i]!;
  if (!isExportLink(String(t.attrGet("href") ?? ""))) {
    // Links do not nest: the next close is this link's.
    let close = i + 1;
    while (close < tokens.length && tokens[close]!.type !== "link_close") close++;
    if (close < tokens.length) linkless.add(tokens[close]!);
    return "";
  }
  t.attrSet("rel", "noopener noreferrer");
  return self.renderToken(tokens, i, options);
};
rules.link_close = (tokens, i, options, _env, self) =>
  linkless.has(tokens[i]!) ? "" : self.renderToken(tokens, i, options);
const demoted = (tag: string) => `h${Math.min(6, Number(tag.slice(1)) + 2)}`;
rules.heading_open = (tokens, i) => `<${demoted(tokens[i]!.tag)}>`;
rules.heading_close = (tokens, i) => `</${demoted(tokens[i]!.tag)}>\n`;
for (const cell of ["th_open", "td_open"] as const)
  rules[cell] = (tokens, i) => {
    const t = tokens[i]!;
    const align = /text-align:(left|right|center)/.exec(String(t.attrGet("style") ?? ""))?.[1];
    return `<${t.tag}${align ? ` class="align-${align}"` : ""}>`;
  };
// Never produced with `html: false`; should a plugin ever produce them, they are text too.
rules.html_block = (tokens, i) => `<pre>${escape(tokens[i]!.content)}</pre>\n`;
rules.html_inline = (tokens, i) => escape(tokens[i]!.content);

/** One message's Markdown as an HTML fragment (`div.markdown`). */
export function messageHtml(text: string): string {
  const tokens = parsedMessage(text);
  const html = tokens
    ? exportMarkdownIt.renderer.render(tokens, exportMarkdownIt.options, {})
    : `<pre><code>${escape(text)}</code></pre>\n`;
  return `<div class="markdown">${html}</div>`;
}
