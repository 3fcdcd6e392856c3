/**
 * A session of the team database read back as a transcript (`pi-sessions export --database`, issue #39): found by
 * its id, the start of its id, or its file as the database names it; its texts (sent by `sync --content`) streamed
 * through a cursor a few hundred rows at a time, so that a long session is never held whole.
 */
import type { TeamTranscriptEntry } from "../../core/export/teamMarkdown.js";
import type { Queryable } from "./connect.js";
import { pgKey } from "./pgText.js";
import { SESSION_COLUMNS, sessionRow, type TeamSessionRow } from "./read.js";
import { requireSchema } from "./schema.js";

/** Rows fetched at a time: a text is at most 256 KB, most are far smaller. */
const FETCH_ROWS = 200;
/** Sessions a reference may name before it is called ambiguous (the command lists them). */
const NAMED_MAX = 20;

const escapeLike = (text: string) => text.replace(/[%_\\]/g, "\\$&");

/**
 * The sessions `ref` names, on `machine` when given: those whose id or file is `ref` exactly, else those whose id
 * starts with it; the most recently active first, at most 21 (more than one is for the caller to tell apart).
 */
export async function teamSessionsNamed(db: Queryable, ref: string, machine?: string): Promise<TeamSessionRow[]> {
  await requireSchema(db);
  const key = pgKey(ref);
  const r = await db.query(
    `SELECT ${SESSION_COLUMNS}, (session_id = $1 OR file = $1) AS exact FROM pi_sessions.sessions ` +
      "WHERE (session_id = $1 OR file = $1 OR session_id LIKE $2) AND ($3::text IS NULL OR machine = $3) " +
      "ORDER BY (session_id = $1 OR file = $1) DESC, last_activity DESC NULLS LAST, machine, file LIMIT $4",
    [key, `${escapeLike(key)}%`, machine ?? null, NAMED_MAX + 1],
  );
  const exact = r.rows.filter((x) => x.exact === true);
  return (exact.length ? exact : r.rows).map(sessionRow);
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
 * `onEntries` a fetch at a time, each entry whole. In one read-only transaction, so that a sync committing meanwhile
 * is seen entirely or not at all.
 */
export async function streamTeamTranscript(
  db: Queryable,
  s: Pick<TeamSessionRow, "machine" | "file">,
  onEntries: (entries: TeamTranscriptEntry[]) => void | Promise<void>,
): Promise<void> {
  await db.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  try {
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
      if (rows.length < FETCH_ROWS) {
        if (pending) done.push(pending);
        if (done.length) await onEntries(done);
        break;
      }
      if (done.length) await onEntries(done);
    }
    await db.query("COMMIT");
  } catch (err) {
    await db.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}
