/**
 * A snippet of an indexed text around the query's terms, with each match between « and ». The index keeps no copy of
 * the text FTS5 could cut snippets from (that copy was most of its size); the text is kept compressed beside it, and
 * the few hits shown get their snippets here. Words are compared the way the index's tokenizer sees them (letters
 * and digits, case and diacritics folded, then the Porter stem of an ASCII word: the `stemmer` package stems as
 * FTS5's `porter` does, which test/node/search checks against SQLite's own index), so the marks fall on what matched.
 */
import { stemmer } from "stemmer";

/** What lies between two words is shown up to this (a run of punctuation or spaces is no reading matter). */
const GAP_MAX = 80;

/** The text between two words, cut in its middle when long. */
function gap(text: string, from: number, to: number): string {
  return to - from <= GAP_MAX
    ? text.slice(from, to)
    : `${text.slice(from, from + GAP_MAX / 2)}…${text.slice(to - GAP_MAX / 2, to)}`;
}

/** Tokens shown around the first match. */
const WINDOW_TOKENS = 24;
/** Tokens shown before it. */
const LEAD_TOKENS = 6;

/** Folded as `unicode61 remove_diacritics 2` compares: lower case, combining marks dropped (ASCII needs neither). */
const fold = (s: string) =>
  /^[\x00-\x7f]*$/.test(s)
    ? s.toLowerCase()
    : s
        .normalize("NFD")
        .replace(/\p{M}+/gu, "")
        .toLowerCase();

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

interface Token {
  start: number;
  end: number;
  folded: string;
  /** What the index keeps of the word: FTS5's porter stems ASCII words and passes the others through. */
  stem: string;
}

const stemOf = (folded: string) => (/^[a-z]+$/.test(folded) ? stemmer(folded) : folded);

function tokens(text: string, max = Infinity): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(WORD)) {
    const folded = fold(m[0]);
    out.push({ start: m.index, end: m.index + m[0].length, folded, stem: stemOf(folded) });
    if (out.length >= max) break;
  }
  return out;
}

/**
 * The snippet of `text` for the query's `terms` (its words and phrases, without the `*` of a prefix). A term
 * matches whole words in a row; one that matches nowhere so is taken as a prefix of its last word.
 */
export function makeSnippet(text: string, terms: readonly string[], maxScan = 200_000): string {
  const words = tokens(text.length > maxScan ? text.slice(0, maxScan) : text);
  const marked = new Set<number>();
  for (const term of terms) {
    const want = tokens(term);
    if (!want.length) continue;
    for (const asPrefix of [false, true]) {
      let found = false;
      for (let i = 0; i + want.length <= words.length; i++) {
        const ok = want.every((w, k) => {
          const got = words[i + k]!;
          return got.stem === w.stem || (asPrefix && k === want.length - 1 && got.folded.startsWith(w.folded));
        });
        if (!ok) continue;
        found = true;
        for (let k = 0; k < want.length; k++) marked.add(i + k);
      }
      if (found) break;
    }
  }
  if (!words.length) return text.slice(0, 200);
  const first = marked.size ? Math.min(...marked) : 0;
  const from = Math.max(0, first - LEAD_TOKENS);
  const to = Math.min(words.length, from + WINDOW_TOKENS);
  let out = from > 0 ? "…" : "";
  let at = from > 0 ? words[from]!.start : 0;
  for (let i = from; i < to; i++) {
    const w = words[i]!;
    out += gap(text, at, w.start);
    out += marked.has(i) ? `«${text.slice(w.start, w.end)}»` : text.slice(w.start, w.end);
    at = w.end;
  }
  const rest = gap(text, at, to < words.length ? words[to]!.start : text.length);
  return out + (to < words.length ? `${rest.trimEnd()}…` : rest);
}
