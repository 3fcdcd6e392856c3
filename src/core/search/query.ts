/**
 * A search query as users type it, turned into an FTS5 match expression and filters. Plain words are AND-ed;
 * `"a phrase"`; `prefix*`; `-word` excludes; `role:`, `tool:`, `project:`, `since:`, `until:`, `session:` filter.
 * Every word goes to FTS5 as a quoted string, so nothing a user types (`NOT`, `a:b`, `()`, a stray quote or `*`) is
 * FTS5 syntax: it is searched literally, or, when nothing is left to search, answered with a message. Never throws.
 */
import { UNIT_ROLES, type UnitRole } from "./units.js";

export interface SearchFilters {
  roles: UnitRole[];
  tool: string | null;
  project: string | null;
  /** Inclusive bounds in ms since the epoch (UTC days). */
  since: number | null;
  until: number | null;
  sessionPrefix: string | null;
}

export type ParsedQuery =
  { ok: true; match: string; filters: SearchFilters; terms: string[] } | { ok: false; message: string };

/** `role:` names: `tool` covers tool calls and results; `summary` compaction and branch summaries. */
const ROLE_NAMES = new Set<string>(UNIT_ROLES);
const FILTERS = new Set(["role", "tool", "project", "since", "until", "session"]);
const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** Words and phrases a query may hold (searched for or excluded). */
export const MAX_WORDS = 64;

/** A word as an FTS5 string (quotes doubled): whatever it holds is text, not syntax. */
const quoted = (word: string) => `"${word.replace(/"/g, '""')}"`;
/** Words with something to index (a word of punctuation alone matches nothing and is dropped). */
const searchable = (word: string) => /[\p{L}\p{N}]/u.test(word);

interface Token {
  text: string;
  phrase: boolean;
  negated: boolean;
}

function tokenize(input: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < input.length) {
    while (i < input.length && /\s/.test(input[i]!)) i++;
    if (i >= input.length) break;
    let negated = false;
    if (input[i] === "-" && i + 1 < input.length && !/\s/.test(input[i + 1]!)) {
      negated = true;
      i++;
    }
    if (input[i] === '"') {
      // A phrase runs to the next quote, or to the end when the quote is not closed.
      const end = input.indexOf('"', i + 1);
      const text = input.slice(i + 1, end < 0 ? input.length : end);
      out.push({ text, phrase: true, negated });
      i = end < 0 ? input.length : end + 1;
      continue;
    }
    let j = i;
    while (j < input.length && !/\s/.test(input[j]!)) j++;
    out.push({ text: input.slice(i, j), phrase: false, negated });
    i = j;
  }
  return out;
}

const dayStart = (day: string) => Date.parse(`${day}T00:00:00Z`);

export function parseQuery(input: string, defaults: Partial<SearchFilters> = {}): ParsedQuery {
  const filters: SearchFilters = {
    roles: defaults.roles ?? [],
    tool: defaults.tool ?? null,
    project: defaults.project ?? null,
    since: defaults.since ?? null,
    until: defaults.until ?? null,
    sessionPrefix: defaults.sessionPrefix ?? null,
  };
  const positive: string[] = [];
  const negative: string[] = [];
  const terms: string[] = [];
  // A NUL ends the MATCH string inside SQLite: taken as the space it stands between.
  for (const t of tokenize(input.slice(0, 2000).replace(/\0/g, " "))) {
    const colon = t.phrase ? -1 : t.text.indexOf(":");
    const key = colon > 0 ? t.text.slice(0, colon).toLowerCase() : "";
    const value = colon > 0 ? t.text.slice(colon + 1) : "";
    if (!t.negated && FILTERS.has(key) && value) {
      if (key === "role") {
        const roles = value.toLowerCase().split("|");
        const bad = roles.find((r) => !ROLE_NAMES.has(r));
        if (bad) return { ok: false, message: `role:${bad} is not one of ${UNIT_ROLES.join(", ")}` };
        filters.roles = [...new Set([...filters.roles, ...(roles as UnitRole[])])];
      } else if (key === "since" || key === "until") {
        if (!DAY.test(value) || !Number.isFinite(dayStart(value)))
          return { ok: false, message: `${key}: takes a day as YYYY-MM-DD, not ${JSON.stringify(value)}` };
        if (key === "since") filters.since = dayStart(value);
        else filters.until = dayStart(value) + 86_400_000 - 1;
      } else if (key === "tool") filters.tool = value;
      else if (key === "project") filters.project = value;
      else filters.sessionPrefix = value;
      continue;
    }
    if (t.phrase) {
      if (!searchable(t.text)) continue;
      (t.negated ? negative : positive).push(quoted(t.text));
      if (!t.negated) terms.push(t.text);
      continue;
    }
    // A trailing * is a prefix search; any other * is text.
    const prefix = t.text.length > 1 && t.text.endsWith("*");
    const word = prefix ? t.text.slice(0, -1) : t.text;
    if (!searchable(word)) continue;
    (t.negated ? negative : positive).push(quoted(word) + (prefix ? "*" : ""));
    if (!t.negated) terms.push(word);
  }
  if (!positive.length)
    return {
      ok: false,
      message: negative.length ? "add a word to search for: -word only excludes" : "type a word to search for",
    };
  // FTS5 builds one node of its expression tree per word, and refuses a tree past its depth limit (256).
  const words = positive.length + negative.length;
  if (words > MAX_WORDS)
    return {
      ok: false,
      message: `a search takes at most ${MAX_WORDS} words and phrases; this one has ${words}`,
    };
  const match = `(${positive.join(" ")})${negative.map((n) => ` NOT ${n}`).join("")}`;
  return { ok: true, match, filters, terms };
}

/**
 * What to search for when a query finds nothing: each plain word of six letters or more as a prefix of its first
 * letters (all but the last three, at least four), so "parenthesis" becomes `parenthe*` and finds "parentheses" (Porter
 * stems the two apart). Null when no word can be shortened (phrases, prefixes, exclusions and filters stay as typed).
 */
export function prefixSuggestion(input: string): string | null {
  let changed = false;
  const words = tokenize(input.slice(0, 2000)).map((t) => {
    const raw = t.phrase ? `"${t.text}"` : t.text;
    const typed = t.negated ? `-${raw}` : raw;
    if (t.phrase || t.negated || t.text.endsWith("*") || t.text.includes(":") || !/^\p{L}{6,}$/u.test(t.text))
      return typed;
    changed = true;
    const letters = [...t.text]; // by code point: a letter outside the BMP is not cut in half
    return `${letters.slice(0, Math.max(4, letters.length - 3)).join("")}*`;
  });
  return changed ? words.join(" ") : null;
}
