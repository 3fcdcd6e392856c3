/** What every rendering of session Markdown shares: the transcript view and both exports. */

/** Code longer than this is shown plain: highlighting it would stall the page, or an export of a large session. */
export const HIGHLIGHT_MAX = 20_000;

/**
 * The links an export keeps as links: the web and mail. Any other scheme (javascript:, command:, file:, data:) stays
 * the text it was written as, so a reader sees what it is and nothing runs when it is clicked.
 */
export function isExportLink(url: string): boolean {
  return /^(https?:\/\/|mailto:)/i.test(url);
}

/** What `cutByNesting` needs of a markdown-it token. */
interface NestedToken {
  level: number;
  children: readonly { level: number }[] | null;
}

/**
 * Whether markdown-it cut a message short: past `maxNesting` levels it stops reading and drops the rest, so such a
 * message is shown as its text instead (nothing it says is lost).
 */
export function cutByNesting(tokens: readonly NestedToken[], maxNesting: number): boolean {
  const deepest = maxNesting - 2;
  return tokens.some((t) => t.level >= deepest || t.children?.some((c) => c.level >= deepest));
}

/** A snippet longer than this is cut before its markup is dropped (snippets are cut to a few lines: a longer one is
 * hostile). */
const SNIPPET_PLAIN_MAX = 4000;

/**
 * A search snippet (a piece of a message, cut anywhere) as the text it reads as: Markdown's markup dropped (heading
 * and quote marks, list bullets, `*` and `~~` emphasis and code marks, a link's or image's URL) and whitespace
 * collapsed; underscores stay (identifiers hold them far more often than emphasis does). The « » match marks stay.
 * Not a parse: a snippet is a fragment, whose markup may open before it or close after it.
 */
export function snippetPlainText(snippet: string): string {
  // Bounded: a snippet is a few lines; the patterns' runs are capped too, so no input makes them backtrack far.
  const text = snippet.length > SNIPPET_PLAIN_MAX ? `${snippet.slice(0, SNIPPET_PLAIN_MAX)}…` : snippet;
  return text
    .replace(/!?\[([^\]\n]{0,200})\]\([^)\s]{0,2000}(?:\s+"[^"\n]{0,200}")?\)/g, "$1")
    .replace(/(^|\n)[ \t]*(?:#{1,6}|>+|[-*+]|\d{1,9}[.)])[ \t]+/g, "$1")
    .replace(/(^|\s)\[[xX]\][ \t]/g, "$1☑ ")
    .replace(/(^|\s)\[ \][ \t]/g, "$1☐ ")
    .replace(/(^|\s)#{1,6}[ \t]+/g, "$1")
    .replace(/`+|\*{1,3}|~~/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** Of a longer text a label reads only the start (labels are cut to a line). */
const LABEL_READ_MAX = 4000;

/**
 * A prompt, a reply or a name as a one-line label (a tree row, a picker, a heading): the marks Markdown draws dropped
 * (code spans' backticks, a fence's line, paired `**` and `*` emphasis, a heading's or quote's leading marks, a
 * link's URL), so a row reads "Fix parse.ts", not "Fix `parse.ts`". Marks that pair with nothing stay: a glob's
 * double star and `__init__` are no emphasis. Not a parse: a label is a line, cut anywhere.
 */
export function plainLabel(text: string): string {
  const t = text.length > LABEL_READ_MAX ? text.slice(0, LABEL_READ_MAX) : text;
  return t
    .replace(/(^|\n)[ \t]*(?:```|~~~)[^\n]{0,200}/g, "$1")
    .replace(/`{1,3}([^`\n]{1,500}?)`{1,3}/g, "$1")
    .replace(/!?\[([^\]\n]{0,200})\]\([^)\s]{0,2000}(?:\s+"[^"\n]{0,200}")?\)/g, "$1")
    .replace(/(^|[\s(])\*\*(?=[^\s*])([^\n]{0,500}?[^\s*])\*\*(?=$|[\s).,!?:;])/g, "$1$2")
    .replace(/(^|[\s(])\*(?=[^\s*])([^*\n]{0,500}?[^\s*])\*(?=$|[\s).,!?:;])/g, "$1$2")
    .replace(/(^|\n)[ \t]*(?:#{1,6}|>+)[ \t]+/g, "$1");
}

const FILE_LISTS: Record<string, string> = { "read-files": "Files read", "modified-files": "Files modified" };

/**
 * A compaction's or branch summary's text with pi's file lists (`<read-files>` and `<modified-files>` blocks, one
 * path a line, that pi appends for the model) written as Markdown lists, so a reader sees lists and not tags. Each
 * block is looked for once, from where the last ended: no input makes this quadratic.
 */
export function summaryMarkdown(summary: string): string {
  const out: string[] = [];
  let at = 0;
  for (;;) {
    const open = /<(read-files|modified-files)>/g;
    open.lastIndex = at;
    const m = open.exec(summary);
    if (!m) break;
    const close = summary.indexOf(`</${m[1]}>`, open.lastIndex);
    if (close < 0) break;
    const files = summary
      .slice(open.lastIndex, close)
      .split("\n")
      .map((f) => f.trim())
      .filter(Boolean);
    out.push(summary.slice(at, m.index), `**${FILE_LISTS[m[1]!]}**\n\n${files.map(codeItem).join("\n")}\n`);
    // Past the closing tag (one longer than the opening one) and the line break after it.
    at = close + m[0].length + 1;
    if (summary[at] === "\n") at++;
  }
  out.push(summary.slice(at));
  return out.join("");
}

/** A path as a list item in a code span long enough for the backticks the path holds. */
function codeItem(path: string): string {
  const longest = Math.max(0, ...(path.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(longest + 1);
  return `- ${fence} ${path} ${fence}`;
}
