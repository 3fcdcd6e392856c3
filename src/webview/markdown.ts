/**
 * Session Markdown as DOM, built node by node from markdown-it's tokens (never through innerHTML): raw HTML is shown
 * as text, images are named but not loaded, and links carry no href (a click asks the host, which opens only
 * http(s) after the user confirms). Code blocks are highlighted by highlight.js; its HTML output is parsed in an inert
 * document and copied back as spans with `hljs-` classes and text only, so even a highlighter bug cannot inject markup.
 */
import hljs from "highlight.js/lib/common";
import MarkdownIt from "markdown-it";
import * as l10n from "@vscode/l10n";
import { cutByNesting, HIGHLIGHT_MAX } from "../protocol/markdown.js";
import { h } from "./dom.js";

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });
type Token = ReturnType<typeof md.parse>[number];
const attr = (t: Token, name: string): string => String(t.attrGet(name) ?? "");
// Only http(s) links are links (and even those open through the host, after the user confirms); any other scheme
// (command:, javascript:, file:) stays literal text, so the reader sees what it is.
md.validateLink = (url: string) => /^https?:\/\//i.test(url);

/** Elements a token may create: everything markdown-it emits for CommonMark, GFM tables and strikethrough. */
const BLOCK_TAGS = new Set([
  "p",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "li",
  "blockquote",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "strong",
  "em",
  "s",
]);

export type LinkHandler = (url: string) => void;

const HLJS_CLASS = /^hljs-[\w-]+$/;

/** Copy highlight.js output into `into`: spans with `hljs-*` classes and text, nothing else. */
function copyHighlighted(from: Node, into: Node): void {
  for (const n of Array.from(from.childNodes)) {
    if (n.nodeType === Node.TEXT_NODE) into.appendChild(document.createTextNode(n.textContent ?? ""));
    else if (n instanceof Element) {
      const span = document.createElement("span");
      const cls = (n.getAttribute("class") ?? "").split(/\s+/).filter((c) => HLJS_CLASS.test(c) || /^[\w-]+_$/.test(c));
      if (cls.length) span.className = cls.join(" ");
      copyHighlighted(n, span);
      into.appendChild(span);
    }
  }
}

/** A code block, highlighted when its language is known (or guessed for short blocks). */
export function codeBlock(text: string, lang: string | null): HTMLElement {
  const code = h("code", { class: "hljs" });
  const known = lang && hljs.getLanguage(lang) ? lang : null;
  if (known && text.length <= HIGHLIGHT_MAX) {
    const html = hljs.highlight(text, { language: known, ignoreIllegals: true }).value;
    const inert = new DOMParser().parseFromString(`<body>${html}</body>`, "text/html");
    copyHighlighted(inert.body, code);
  } else code.textContent = text;
  return h("pre", { class: "code", "data-lang": known ?? undefined }, code);
}

/** The language of a file path, for highlighting written content. */
export function languageOfPath(path: string): string | null {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return ext && hljs.getLanguage(ext) ? ext : null;
}

function link(href: string, onLink: LinkHandler): HTMLElement {
  const a = h("a", { role: "link", tabindex: 0, title: href, class: "inert-link" });
  const open = (e: Event) => {
    e.preventDefault();
    onLink(href);
  };
  a.addEventListener("click", open);
  a.addEventListener("keydown", (e) => {
    if (e.key === "Enter") open(e);
  });
  return a;
}

function inline(tokens: Token[], into: HTMLElement, onLink: LinkHandler): void {
  const stack: HTMLElement[] = [into];
  const top = () => stack[stack.length - 1]!;
  for (const t of tokens) {
    switch (t.type) {
      case "text":
      case "html_inline":
        top().append(t.content);
        break;
      case "code_inline":
        top().append(h("code", {}, t.content));
        break;
      case "softbreak":
        top().append("\n");
        break;
      case "hardbreak":
        top().append(h("br"));
        break;
      case "image":
        top().append(`[${l10n.t("image: {0}", t.content || attr(t, "src"))}]`);
        break;
      case "link_open": {
        const a = link(attr(t, "href"), onLink);
        top().append(a);
        stack.push(a);
        break;
      }
      default:
        if (t.nesting === 1 && BLOCK_TAGS.has(t.tag)) {
          const el = document.createElement(t.tag);
          top().append(el);
          stack.push(el);
        } else if (t.nesting === -1 && stack.length > 1) stack.pop();
        else if (t.content) top().append(t.content);
    }
  }
}

/**
 * A GFM task item ("- [x] done") as a checked or open box, not "[x]" in words: the first text of a list item's
 * paragraph (markdown-it parses no task lists), on a copy of its tokens.
 */
function taskMarked(children: Token[], paragraph: Token | undefined, item: Token | undefined): Token[] {
  const first = children[0];
  if (paragraph?.type !== "paragraph_open" || item?.type !== "list_item_open" || first?.type !== "text")
    return children;
  const box = /^\[([ xX])\]\s+/.exec(first.content);
  if (!box) return children;
  const marked = Object.assign(Object.create(Object.getPrototypeOf(first) as object) as Token, first, {
    content: `${box[1] === " " ? "☐" : "☑"} ${first.content.slice(box[0].length)}`,
  });
  return [marked, ...children.slice(1)];
}

/** Markdown `text` as a `div.markdown`. */
export function markdown(text: string, onLink: LinkHandler): HTMLElement {
  const root = h("div", { class: "markdown" });
  const stack: HTMLElement[] = [root];
  const top = () => stack[stack.length - 1]!;
  const tokens = md.parse(text, {});
  if (cutByNesting(tokens, md.options.maxNesting)) {
    root.append(h("pre", { class: "raw-text" }, text));
    return root;
  }
  for (const [i, t] of tokens.entries()) {
    switch (t.type) {
      case "inline":
        inline(taskMarked(t.children ?? [], tokens[i - 1], tokens[i - 2]), top(), onLink);
        break;
      case "fence":
        top().append(codeBlock(t.content, t.info.trim().split(/\s+/)[0] || null));
        break;
      case "code_block":
        top().append(codeBlock(t.content, null));
        break;
      case "html_block":
        top().append(h("pre", { class: "raw-html" }, t.content));
        break;
      case "hr":
        top().append(h("hr"));
        break;
      default:
        // A tight list's paragraphs are hidden: their text goes straight into the item.
        if (t.hidden) break;
        if (t.nesting === 1 && BLOCK_TAGS.has(t.tag)) {
          const attrs: Record<string, string | undefined> = {};
          const start = attr(t, "start");
          if (t.tag === "ol" && start && /^\d{1,9}$/.test(start)) attrs.start = start;
          const align = /text-align:(left|right|center)/.exec(attr(t, "style"))?.[1];
          if (align) attrs.class = `align-${align}`;
          const el = h(t.tag as "p", attrs);
          top().append(el);
          stack.push(el);
        } else if (t.nesting === -1 && stack.length > 1) stack.pop();
    }
  }
  return root;
}
