/**
 * A message's Markdown for the Markdown export, written again from its parse (the same markdown-it parse as the HTML
 * export and the transcript view): what it shows is kept (code with its language, lists, tables, emphasis, quotes,
 * web and mail links), and nothing it contains can become markup of the document, in any viewer, however much raw
 * HTML that viewer allows. Every text is written with its Markdown punctuation escaped, so only the structure this
 * module writes is structure: raw HTML is text, a link to another scheme is the text it was written as, an image
 * is named and never loaded, headings are demoted below the entry's, and each block ends where the message does
 * (an unclosed fence ends with its message; every fence is longer than any backtick run inside it).
 */
import { fenced, longestBacktickRun } from "./fence.js";
import { exportMarkdownIt, imageAlt, parsedMessage, type Token } from "./messageHtml.js";
import { isExportLink } from "../../protocol/markdown.js";

/**
 * Punctuation that could start markup anywhere in a line: escaped wherever it is text. `!` too: before a link this
 * module writes, it would make the link an image. Every `*` and `_` of text is escaped, so that emphasis is only the
 * delimiters written here.
 */
const MARKUP = /[\\`*_[\]<>#|~&!]/g;

/**
 * Text as Markdown that shows exactly it. A slash before a slash too: a viewer that links bare addresses would link
 * `ftp://…` and `//host/…` (which a local file resolves to `file://host/…`), schemes an export does not link.
 */
function escapeText(text: string): string {
  return text.replace(MARKUP, "\\$&").replace(/\/(?=\/)/g, "\\/");
}

/**
 * Inline text (a text token, an entity's character): its line breaks as spaces, as a viewer shows them. A
 * line break only comes from a break this module writes (an entity's `&#10;` would otherwise start a line of its own,
 * where it could be a heading's underline or a fence).
 */
const inlineText = (text: string) => escapeText(text.replace(/[\n\v\f\r]/g, " "));

/**
 * What could start a block at a line's start once the markup above is escaped: indentation (a viewer drops it; kept,
 * it could make code or a list's continuation), a list item (`-`, `+`, `1.`, `1)`), a thematic break or a setext
 * underline (`-`, `=`). Lines end at `\n` only: this module writes no other break.
 */
function escapeLineStarts(text: string): string {
  return text
    .replace(/(^|\n)[ \t]+/g, "$1")
    .replace(/(^|\n)([-+=])/g, "$1\\$2")
    .replace(/(^|\n)(\d{1,9})([.)])/g, "$1$2\\$3");
}

/** A code span that shows `code` exactly: its fence longer than any backtick run inside, padded where needed. */
function codeSpan(code: string, inCell: boolean): string {
  if (!code) return "";
  const body = inCell ? code.replace(/\|/g, "\\|") : code;
  const fence = "`".repeat(longestBacktickRun(body) + 1);
  const pad = /^`|`$/.test(body) || (/^ /.test(body) && / $/.test(body) && body.trim() !== "") ? " " : "";
  return `${fence}${pad}${body}${pad}${fence}`;
}

interface InlineContext {
  /** A heading or a table cell: one line. */
  oneLine: boolean;
  inCell: boolean;
}

/** A link's destination and title, or null when it is not one an export keeps. */
function linkTail(open: Token): string | null {
  const href = String(open.attrGet("href") ?? "");
  if (!isExportLink(href)) return null;
  const destination = href.replace(/[<>\s]/g, encodeURIComponent);
  // Every mark escaped (a title's escapes are read back): a link a viewer cannot read leaves its title as text.
  const title = String(open.attrGet("title") ?? "");
  const quoted = title ? ` "${escapeText(title.replace(/\s+/g, " ")).replace(/"/g, '\\"')}"` : "";
  return `](<${destination}>${quoted})`;
}

/** Whether `out` ends with `~~` that only spaces or tabs separate from its line's start (walked back, not searched). */
function endsWithLineStartStrike(out: string): boolean {
  if (!out.endsWith("~~")) return false;
  let i = out.length - 3;
  while (i >= 0 && (out[i] === " " || out[i] === "\t")) i--;
  return i < 0 || out[i] === "\n";
}

function inline(tokens: Token[], ctx: InlineContext): string {
  let out = "";
  const strikes: boolean[] = []; // for each open strikethrough, whether its marks were written
  const links: (string | null)[] = [];
  for (const t of tokens) {
    switch (t.type) {
      case "text":
      case "html_inline":
        out += inlineText(t.content);
        break;
      case "code_inline":
        out += codeSpan(t.content, ctx.inCell);
        break;
      case "softbreak":
        out += ctx.oneLine ? " " : "\n";
        break;
      case "hardbreak":
        out += ctx.oneLine ? " " : "\\\n";
        break;
      case "em_open":
      case "em_close":
      case "strong_open":
      case "strong_close":
        // The mark the message used: two runs it wrote side by side (`**a**__b__`) differ, so they stay two.
        out += t.markup;
        break;
      case "s_open":
      case "s_close":
        // Struck text inside struck text shows the same; at a line's start, written twice (`~~~~`) it opens a fence.
        if (t.nesting === 1) {
          const written = !(strikes.length && endsWithLineStartStrike(out));
          strikes.push(written);
          if (written) out += "~~";
        } else if (strikes.pop() ?? true) out += "~~";
        break;
      case "link_open": {
        // Anchors do not nest: a link in a link's text (markdown-it lets an autolink in) is written as its text.
        const tail = links.some((l) => l !== null) ? null : linkTail(t);
        links.push(tail);
        if (tail) out += "[";
        break;
      }
      case "link_close":
        out += links.pop() ?? "";
        break;
      case "image": {
        // The address as code: a viewer that links bare URLs (GitHub does) leaves code alone.
        const src = String(t.attrGet("src") ?? "");
        // In parentheses: a code span of the message right after it would otherwise join its backticks.
        out += escapeText(`[image: ${imageAlt(t) || "untitled"}]`);
        if (src) out += ` \\(${codeSpan(src, ctx.inCell)}\\)`;
        break;
      }
      default:
        out += inlineText(t.content);
    }
  }
  return escapeLineStarts(out);
}

/** The index of the token that closes the container opened at `open`. */
function closing(tokens: Token[], open: number): number {
  const level = tokens[open]!.level;
  let i = open + 1;
  while (i < tokens.length && !(tokens[i]!.nesting === -1 && tokens[i]!.level === level)) i++;
  return i;
}

const indent = (text: string, first: string, rest: string) =>
  text
    .split("\n")
    .map((line, i) => (i === 0 ? first + line : line ? rest + line : line))
    .join("\n");

/** A message's code block: its language kept when it is a name (the info string as the renderer reads it). */
function fencedBlock(code: string, info: string): string {
  return fenced(code, /^[\w+#.-]{1,40}/.exec(exportMarkdownIt.utils.unescapeAll(info).trim())?.[0] ?? "");
}

function table(tokens: Token[], from: number, to: number): string {
  const rows: string[][] = [];
  const aligns: string[] = [];
  let row: string[] | null = null;
  for (let i = from; i < to; i++) {
    const t = tokens[i]!;
    if (t.type === "tr_open") rows.push((row = []));
    else if ((t.type === "th_open" || t.type === "td_open") && row) {
      if (t.type === "th_open") aligns.push(/text-align:(\w+)/.exec(String(t.attrGet("style") ?? ""))?.[1] ?? "");
      const content = tokens[i + 1]?.type === "inline" ? (tokens[i + 1]!.children ?? []) : [];
      row.push(inline(content, { oneLine: true, inCell: true }).trim());
    }
  }
  const delimiter = aligns.map((a) => (a === "left" ? ":--" : a === "right" ? "--:" : a === "center" ? ":-:" : "---"));
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(rows[0] ?? []), line(delimiter), ...rows.slice(1).map(line)].join("\n");
}

function list(tokens: Token[], from: number, to: number): string {
  const open = tokens[from]!;
  const ordered = open.type === "ordered_list_open";
  const start = Number(open.attrGet("start") ?? 1);
  const items: string[] = [];
  // markdown-it hides the paragraphs of a tight list's items.
  let tight = true;
  for (let i = from + 1; i < to && tight; i++)
    if (tokens[i]!.type === "paragraph_open" && tokens[i]!.level === open.level + 2) tight = tokens[i]!.hidden;
  for (let i = from + 1; i < to; i++) {
    const t = tokens[i]!;
    if (t.type !== "list_item_open" || t.level !== open.level + 1) continue;
    const end = closing(tokens, i);
    const marker = ordered ? `${/^\d{1,9}$/.test(t.info) ? t.info : start + items.length}${t.markup}` : t.markup;
    const body = blocks(tokens, i + 1, end, tight);
    items.push(body ? indent(body, `${marker} `, " ".repeat(marker.length + 1)) : marker);
    i = end;
  }
  return items.join(tight ? "\n" : "\n\n");
}

/** One block starting at `i`: its Markdown and the index after it. */
function block(tokens: Token[], i: number): [string, number] {
  const t = tokens[i]!;
  switch (t.type) {
    case "paragraph_open":
    case "heading_open": {
      const end = closing(tokens, i);
      const children = tokens[i + 1]?.type === "inline" ? (tokens[i + 1]!.children ?? []) : [];
      if (t.type === "paragraph_open") return [inline(children, { oneLine: false, inCell: false }), end + 1];
      const level = Math.min(6, Number(t.tag.slice(1)) + 2);
      return [`${"#".repeat(level)} ${inline(children, { oneLine: true, inCell: false })}`.trimEnd(), end + 1];
    }
    case "blockquote_open": {
      const end = closing(tokens, i);
      const body = blocks(tokens, i + 1, end, false);
      return [body ? indent(body, "> ", "> ").replace(/^$/gm, ">") : ">", end + 1];
    }
    case "bullet_list_open":
    case "ordered_list_open": {
      const end = closing(tokens, i);
      return [list(tokens, i, end), end + 1];
    }
    case "table_open": {
      const end = closing(tokens, i);
      return [table(tokens, i, end), end + 1];
    }
    case "fence":
      return [fencedBlock(t.content, t.info), i + 1];
    case "code_block":
      return [fencedBlock(t.content, ""), i + 1];
    case "hr":
      // Underscores: after a list marker (`- ___`, `* ___`) they cannot be read as one break with it.
      return ["___", i + 1];
    default:
      return [t.content ? escapeLineStarts(escapeText(t.content)) : "", i + 1];
  }
}

/** The blocks from `from` to `to`, one after another (a tight list item's on consecutive lines). */
function blocks(tokens: Token[], from: number, to: number, tight: boolean): string {
  const out: string[] = [];
  for (let i = from; i < to;) {
    const [text, next] = block(tokens, i);
    // A table cannot start inside a paragraph: it is always set off by a blank line.
    if (text) out.push(out.length && (!tight || tokens[i]!.type === "table_open") ? `\n${text}` : text);
    i = next;
  }
  return out.join("\n");
}

/** A message's Markdown, safe to place in a Markdown document as it is. */
export function messageMarkdown(text: string): string {
  const tokens = parsedMessage(text);
  return tokens ? blocks(tokens, 0, tokens.length, false) : fenced(text, "");
}
