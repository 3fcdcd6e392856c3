/**
 * A session of the team database read back as a transcript (`pi-sessions export --database`, issue #39): found by
 * its id, the start of its id, or its file as the database names it; its texts (sent by `sync --content`) streamed
 * through a cursor a few hundred rows at a time, so that the database's side never holds a long session whole.
 */
import type { TeamTranscriptEntry, TeamTranscriptSession } from "../../core/export/teamMarkdown.js";
import type { Queryable } from "./connect.js";
import { pgKey, pgText } from "./pgText.js";
import { SESSION_COLUMNS, sessionRow, type TeamSessionRow } from "./read.js";
import { requireSchema } from "./schema.js";

/** Rows fetched at a time: a text is at most 256 KB, most are far smaller. */
const FETCH_ROWS = 200;
/** Sessions a reference may name before it is called ambiguous (the command lists them). */
const NAMED_MAX = 20;

const escapeLike = (text: string) => text.replace(/[%_\\]/g, "\\$&");

/** A key's characters that are the value's own (pgText.ts keeps a long value's start, then a digest). */
const KEPT_CHARS = 360;

/**
 * The sessions `ref` names, on `machine` when given: those whose id or file is `ref` exactly, else those whose id
 * starts with it (a start longer than a key keeps: by the part it keeps); the most recently active first, at most
 * 21 (more than one is for the caller to tell apart). Each says whether its parent is on its machine (then the
 * fork's copies of the parent's entries were sent with the parent, not with it).
 */
export async function teamSessionsNamed(
  db: Queryable,
  ref: string,
  machine?: string,
): Promise<TeamTranscriptSession[]> {
  await requireSchema(db);
  const key = pgKey(ref);
  const start = pgText(ref).slice(0, KEPT_CHARS);
  const r = await db.query(
    `SELECT ${SESSION_COLUMNS}, (session_id = $1 OR file = $1) AS exact, EXISTS (SELECT 1 FROM ` +
      "pi_sessions.sessions p WHERE p.machine = s.machine AND p.session_id = s.parent_session_id) AS parent_here " +
      "FROM pi_sessions.sessions s " +
      "WHERE (session_id = $1 OR file = $1 OR session_id LIKE $2) AND ($3::text IS NULL OR machine = $3) " +
      "ORDER BY (session_id = $1 OR file = $1) DESC, last_activity DESC NULLS LAST, machine, file LIMIT $4",
    [key, `${escapeLike(start)}%`, machine ?? null, NAMED_MAX + 1],
  );
  const exact = r.rows.filter((x) => x.exact === true);
  return (exact.length ? exact : r.rows).map((x) => ({ ...sessionRow(x), parentHere: x.parent_here === true }));
}

/**
 * Run `fn` in one read-only snapshot of the database: the session found, its texts counted and read as of one
 * moment, whatever a sync commits meanwhile.
 */
export async function inTeamSnapshot<T>(db: Queryable, fn: () => Promise<T>): Promise<T> {
  await db.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  try {
    const out = await fn();
    await db.query("COMMIT");
    return out;
  } catch (err) {
    await db.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}

/** How many texts the database holds of a session (none when its machine syncs without --content). */
export async function teamTextCount(db: Queryable, s: Pick<TeamSessionRow, "machine" | "file">): Promise<number> {
  const r = await db.query("SELECT count(*) AS n FROM pi_sessions.texts WHERE machine = $1 AND file = $2", [
    s.machine,
    s.file,
  ]);
  return Number(r.rows[0]?.n ?? 0);
}

/**
 * A session's texts as entries, in the order written (rows sent before schema 3 have no line: by time), handed to
 * `onEntries` a fetch at a time, each entry whole, until it answers false. Inside `inTeamSnapshot` (a cursor lives in a
 * transaction).
 */
export async function streamTeamTranscript(
  db: Queryable,
  s: Pick<TeamSessionRow, "machine" | "file">,
  /** False: read no more. */
  onEntries: (entries: TeamTranscriptEntry[]) => boolean | void | Promise<boolean | void>,
): Promise<void> {
  await db.query(
    "DECLARE team_transcript NO SCROLL CURSOR FOR SELECT entry_id, part, role, tool, time, kind, text " +
      "FROM pi_sessions.texts WHERE machine = $1 AND file = $2 " +
      "ORDER BY line NULLS LAST, time NULLS FIRST, entry_id, part",
    [s.machine, s.file],
  );
  let pending = null as TeamTranscriptEntry | null;
  for (;;) {
    const { rows } = await db.query(`FETCH ${FETCH_ROWS} FROM team_transcript`);
    const done: TeamTranscriptEntry[] = [];
    for (const x of rows) {
      const entryId = String(x.entry_id);
      if (pending?.entryId !== entryId) {
        if (pending) done.push(pending);
        const time = x.time === null ? null : new Date(x.time as string).toISOString();
        pending = { entryId, kind: (x.kind as string | null) ?? null, time, units: [] };
      }
      pending.units.push({
        part: Number(x.part),
        role: String(x.role),
        tool: (x.tool as string | null) ?? null,
        text: String(x.text),
      });
    }
    const last = rows.length < FETCH_ROWS;
    if (last && pending) done.push(pending);
    const more = done.length ? await onEntries(done) : true;
    if (last || more === false) break;
  }
  await db.query("CLOSE team_transcript");
}
