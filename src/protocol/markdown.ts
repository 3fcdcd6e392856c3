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
