/**
 * Queries of the search index: the matching units ranked by bm25 with a mild boost for recent entries and for the
 * active path, filtered by role, tool, project, days, session and files; snippets cut from the few hits returned
 * (their compressed texts), and the forks that carry each hit from the index's lineage and copies.
 */
import type { ParsedQuery } from "../../core/search/query.js";
import { makeSnippet } from "../../core/search/snippet.js";
import { lineUnits, type UnitRole } from "../../core/search/units.js";
import { readRegularRangeSync } from "../fileAccess.js";
import { DEFAULT_SEARCH_ROLES } from "../../protocol/search.js";
import { type Database, retryBusy } from "./indexFile.js";

export interface SearchHit {
  file: string;
  sessionId: string;
  entryId: string;
  role: UnitRole;
  tool: string | null;
  timestamp: string | null;
  cwd: string;
  /** On the session's active path (the branch the agent would resume). */
  active: boolean;
  /** The session's title when it was indexed (its name, else its first prompt). */
  title: string;
  /** The text around the matched terms, which are between « and ». */
  snippet: string;
  score: number;
  /** Forks that carry this entry as a copy (their files). */
  alsoIn: string[];
}

export interface QueryOptions {
  limit?: number;
  /** Only hits in these files (the scope of a view). */
  files?: readonly string[];
  now?: number;
}

/**
 * A word in most of the store (`the`, `function`) matches hundreds of thousands of units, and ranking them all
 * takes most of a second: such a query ranks only the most recently indexed matches, this many (bench/RESULTS.md).
 */
const RANKED_AT_MOST = 5_000;

/**
 * A hit's line is read back for its snippet up to this size (a unit's text is at most 256 KB, but its line may hold
 * images: a longer line shows no snippet), and one query reads at most `SNIPPET_BYTES` of lines.
 */
const SNIPPET_LINE_MAX = 4 * 1024 * 1024;
const SNIPPET_BYTES = 32 * 1024 * 1024;

interface Row {
  file: string;
  version: number | null;
  at: number;
  len: number;
  part: number;
  session_id: string;
  entry_id: string;
  role: UnitRole;
  tool: string | null;
  time: number | null;
  cwd: string;
  active: number;
  title: string | null;
  rank: number;
}

/** A query's hits without their snippets, and where each snippet is (`withSnippets` reads them). */
interface Found {
  hits: SearchHit[];
  sources: Row[];
}

/** The ranked hits (run inside one read transaction: their forks are looked up too). */
export function queryIndex(db: Database, q: ParsedQuery & { ok: true }, options: QueryOptions = {}): Found {
  const limit = Math.max(1, Math.min(options.limit ?? 50, 500));
  const f = q.filters;
  // The filters, applied both to the matches ranked and to which of them are the newest (the cap counts only
  // matches the filters keep).
  const filters: string[] = [];
  const values: (string | number)[] = [];
  const filter = (sql: string, ...args: (string | number)[]) => {
    filters.push(sql);
    values.push(...args);
  };
  const roles = f.roles.length ? f.roles : DEFAULT_SEARCH_ROLES;
  filter(`u.role IN (${roles.map(() => "?").join(", ")})`, ...roles);
  if (f.tool !== null) filter("u.tool = ?", f.tool);
  if (f.project !== null) filter("instr(lower(f.cwd), lower(?)) > 0", f.project);
  if (f.since !== null) filter("u.time >= ?", f.since);
  if (f.until !== null) filter("u.time <= ?", f.until);
  if (f.sessionPrefix !== null) filter("substr(f.session_id, 1, ?) = ?", f.sessionPrefix.length, f.sessionPrefix);
  if (options.files) filter("f.file IN (SELECT value FROM json_each(?))", JSON.stringify(options.files));
  const from = "FROM fts JOIN units u ON u.id = fts.rowid JOIN files f ON f.id = u.file_id";
  const where = ["fts MATCH ?", ...filters].join(" AND ");
  const newest =
    `SELECT ifnull(min(r), 0) FROM ` + `(SELECT fts.rowid AS r ${from} WHERE ${where} ORDER BY fts.rowid DESC LIMIT ?)`;
  const rows = retryBusy(() =>
    db.all(
      `SELECT f.file, f.version, f.session_id, f.cwd, f.title, u.entry_id, u.role, u.tool, u.time, u.active, u.at,
         u.len, u.part, bm25(fts) AS rank
       ${from} WHERE ${where} AND fts.rowid >= (${newest}) ORDER BY rank LIMIT ?`,
      [q.match, ...values, q.match, ...values, RANKED_AT_MOST, limit * 4],
    ),
  ) as unknown as Row[];
  const now = options.now ?? Date.now();
  const best = rows
    .map((r) => {
      const ageDays = r.time === null ? 365 : Math.max(0, (now - r.time) / 86_400_000);
      return { r, score: -r.rank * (1 + 0.15 * Math.exp(-ageDays / 90) + 0.1 * r.active) };
    })
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
  const hits = best.map(({ r, score }): SearchHit => ({
    file: r.file,
    sessionId: r.session_id,
    entryId: r.entry_id,
    role: r.role,
    tool: r.tool,
    timestamp: r.time === null ? null : new Date(r.time).toISOString(),
    cwd: r.cwd,
    active: r.active === 1,
    title: r.title ?? "",
    snippet: "",
    score,
    alsoIn: r.entry_id ? carriers(db, r.file, r.entry_id) : [],
  }));
  return { hits, sources: best.map((b) => b.r) };
}

/**
 * The hits with their snippets, read from the session files after the index's lock is let go (a reader holds
 * node-sqlite3-wasm's lock against the writer). At most `SNIPPET_BYTES` are read for one query; later hits show
 * none.
 */
export function withSnippets(found: Found, terms: string[]): SearchHit[] {
  let budget = SNIPPET_BYTES;
  return found.hits.map((h, i) => {
    const source = found.sources[i]!;
    if (source.len > budget) return h;
    budget -= Math.max(0, source.len);
    return { ...h, snippet: snippetOf(source, terms) };
  });
}

/**
 * The snippet of a hit, cut from its unit's text read back from its line. Empty when the line is no longer what was
 * indexed (the file was rewritten since; the next update indexes it again) or is too long to read for this.
 */
function snippetOf(r: Row, terms: string[]): string {
  if (r.len <= 0 || r.len > SNIPPET_LINE_MAX) return "";
  let line: string;
  try {
    line = readRegularRangeSync(r.file, [[r.at, r.len]])[0]!.toString("utf8");
  } catch {
    return "";
  }
  if (r.entry_id === "") {
    // The OMP title slot (no entry): its title.
    try {
      const slot = JSON.parse(line) as { title?: unknown };
      return typeof slot.title === "string" ? makeSnippet(slot.title, terms) : "";
    } catch {
      return "";
    }
  }
  const read = lineUnits(line, r.version);
  // A v1 file's ids are its line numbers (synthesized): only later versions can be checked by id.
  if (!read || (r.version !== null && r.version >= 2 && read.entryId !== r.entry_id)) return "";
  const unit = read.units[r.part];
  return unit && unit.role === r.role ? makeSnippet(unit.text, terms) : "";
}

/** The forks (and their forks) that carry entry `id` of `file` as a copy. */
function carriers(db: Database, file: string, id: string, seen = new Set<string>([file])): string[] {
  const out: string[] = [];
  const forks = retryBusy(() =>
    db.all("SELECT l.file FROM lineage l JOIN copies c ON c.file = l.file AND c.entry_id = ? WHERE l.parent = ?", [
      id,
      file,
    ]),
  ) as { file: string }[];
  for (const { file: fork } of forks) {
    if (seen.has(fork)) continue;
    seen.add(fork);
    out.push(fork, ...carriers(db, fork, id, seen));
  }
  return out;
}
