/**
 * The statements a sync runs in its transaction (sync.ts): a file's rows removed, a session's row, its usage records
 * and their carriers, its texts. Many rows go in one statement, as arrays `unnest` turns into rows.
 */
import type { TextUnit } from "../../core/search/units.js";
import type { Queryable } from "./connect.js";
import { pgKey, pgText } from "./pgText.js";
import type { TeamSession, TeamUsage } from "./records.js";

/** PostgreSQL's timestamps span the years 1 to 9999 (and more, but not JavaScript's signed six-digit years). */
const FIRST_MS = Date.parse("0001-01-01T00:00:00.000Z");
const LAST_MS = Date.parse("9999-12-31T23:59:59.999Z");
/** A time PostgreSQL takes, else none: one out of its range would refuse the whole batch, for good. */
const time = (ms: number) =>
  Number.isFinite(ms) && ms >= FIRST_MS && ms <= LAST_MS ? new Date(ms).toISOString() : null;

/**
 * Remove what a file of a machine carries: its carriers, and the records no other file carries any more; its texts;
 * and its session row when `session` (the file is gone, not only changed).
 */
export async function deleteFileRows(db: Queryable, machine: string, file: string, session: boolean): Promise<void> {
  const gone = await db.query(
    "DELETE FROM pi_sessions.usage_carriers WHERE machine = $1 AND file = $2 RETURNING entry_id, stamp, seq",
    [machine, pgKey(file)],
  );
  if (gone.rows.length) {
    const keys = [gone.rows.map((r) => r.entry_id), gone.rows.map((r) => r.stamp), gone.rows.map((r) => r.seq)];
    // Lock the records first: another machine adding a carrier of one (its transaction holds the row) is waited for,
    // and the removal below, a statement of its own, then sees that carrier committed and keeps the record.
    await db.query(
      `SELECT 1 FROM pi_sessions.usage u
       JOIN unnest($1::text[], $2::text[], $3::smallint[]) AS g(entry_id, stamp, seq)
         ON u.entry_id = g.entry_id AND u.stamp = g.stamp AND u.seq = g.seq
       ORDER BY u.entry_id, u.stamp, u.seq FOR UPDATE OF u`,
      keys,
    );
    await db.query(
      `DELETE FROM pi_sessions.usage u
       USING unnest($1::text[], $2::text[], $3::smallint[]) AS g(entry_id, stamp, seq)
       WHERE u.entry_id = g.entry_id AND u.stamp = g.stamp AND u.seq = g.seq AND NOT EXISTS (
         SELECT 1 FROM pi_sessions.usage_carriers c
         WHERE c.entry_id = g.entry_id AND c.stamp = g.stamp AND c.seq = g.seq)`,
      keys,
    );
  }
  await db.query("DELETE FROM pi_sessions.texts WHERE machine = $1 AND file = $2", [machine, pgKey(file)]);
  if (session)
    await db.query("DELETE FROM pi_sessions.sessions WHERE machine = $1 AND file = $2", [machine, pgKey(file)]);
}

export async function upsertSession(db: Queryable, machine: string, s: TeamSession): Promise<void> {
  await db.query(
    `INSERT INTO pi_sessions.sessions (machine, file, session_id, agent, project, title, first_activity,
       last_activity, parent_session_id, family_root, entry_count)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (machine, file) DO UPDATE SET session_id = EXCLUDED.session_id, agent = EXCLUDED.agent,
       project = EXCLUDED.project, title = EXCLUDED.title, first_activity = EXCLUDED.first_activity,
       last_activity = EXCLUDED.last_activity, parent_session_id = EXCLUDED.parent_session_id,
       family_root = EXCLUDED.family_root, entry_count = EXCLUDED.entry_count`,
    [
      machine,
      pgKey(s.file),
      pgKey(s.sessionId),
      s.agent,
      pgKey(s.project),
      pgText(s.title),
      time(s.firstActivity),
      time(s.lastActivity),
      pgKey(s.parentSessionId),
      pgKey(s.familyRoot),
      s.entryCount,
    ],
  );
}

/** Records per statement. */
const CHUNK = 2_000;

/**
 * This file as a carrier of each record, then the records upserted on their natural key. A record another file sent
 * first keeps its row, until the session that wrote it sends it (`own`): then the row is that session's, numbers and
 * attribution (machine, session, project, whether on its active branch). The carriers go first, so that the
 * row-level security of docs/team.md can let a machine update only records it carries.
 */
export async function upsertUsage(db: Queryable, machine: string, s: TeamSession, records: TeamUsage[]): Promise<void> {
  for (let i = 0; i < records.length; i += CHUNK) {
    const rs = records.slice(i, i + CHUNK);
    const col = <T>(f: (r: TeamUsage) => T) => rs.map(f);
    const [entryIds, stamps, seqs] = [col((r) => pgKey(r.entryId)), col((r) => pgKey(r.stamp)), col((r) => r.seq)];
    await db.query(
      `INSERT INTO pi_sessions.usage_carriers (entry_id, stamp, seq, machine, file)
       SELECT e, t, q, $4, $5 FROM unnest($1::text[], $2::text[], $3::smallint[]) AS r(e, t, q)
       ON CONFLICT DO NOTHING`,
      [entryIds, stamps, seqs, machine, pgKey(s.file)],
    );
    await db.query(
      `INSERT INTO pi_sessions.usage (entry_id, stamp, seq, time, source, provider, model, input, output,
         cache_read, cache_write, total_tokens, cost, active, own, machine, session_id, project)
       SELECT r.*, $16::text, $17::text, $18::text FROM unnest($1::text[], $2::text[], $3::smallint[],
         $4::timestamptz[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::bigint[],
         $11::bigint[], $12::bigint[], $13::float8[], $14::boolean[], $15::boolean[]) AS r
       ON CONFLICT (entry_id, stamp, seq) DO UPDATE SET machine = EXCLUDED.machine,
         session_id = EXCLUDED.session_id, project = EXCLUDED.project, active = EXCLUDED.active, own = true,
         time = EXCLUDED.time, source = EXCLUDED.source, provider = EXCLUDED.provider, model = EXCLUDED.model,
         input = EXCLUDED.input, output = EXCLUDED.output, cache_read = EXCLUDED.cache_read,
         cache_write = EXCLUDED.cache_write, total_tokens = EXCLUDED.total_tokens, cost = EXCLUDED.cost
       WHERE EXCLUDED.own`,
      [
        entryIds,
        stamps,
        seqs,
        col((r) => time(r.time)),
        col((r) => pgText(r.source)),
        col((r) => pgKey(r.provider)),
        col((r) => pgKey(r.model)),
        col((r) => Math.round(r.input)),
        col((r) => Math.round(r.output)),
        col((r) => Math.round(r.cacheRead)),
        col((r) => Math.round(r.cacheWrite)),
        col((r) => Math.round(r.totalTokens)),
        col((r) => r.cost),
        col((r) => r.active),
        col((r) => r.own),
        machine,
        pgKey(s.sessionId),
        pgKey(s.project),
      ],
    );
  }
}

/** The session's text units (the search index's), replacing none: the caller removed the file's texts first. */
/** A text unit and the kind of its entry: a message's role (`user`, `toolResult`, …), else the entry's type. */
export type TeamTextUnit = TextUnit & { kind: string | null };

export async function insertTexts(
  db: Queryable,
  machine: string,
  s: TeamSession,
  units: TeamTextUnit[],
): Promise<number> {
  for (let i = 0; i < units.length; i += CHUNK) {
    const us = units.slice(i, i + CHUNK);
    await db.query(
      "INSERT INTO pi_sessions.texts (machine, file, entry_id, part, role, tool, time, session_id, text, line, kind) " +
        "SELECT $1, $2, e, p, r, t, w, $3, x, l, k FROM unnest($4::text[], $5::int[], $6::text[], $7::text[], " +
        "$8::timestamptz[], $9::text[], $10::int[], $11::text[]) AS u(e, p, r, t, w, x, l, k) ON CONFLICT DO NOTHING",
      [
        machine,
        pgKey(s.file),
        pgKey(s.sessionId),
        us.map((u) => pgKey(u.entryId)),
        us.map((u) => u.part),
        us.map((u) => u.role),
        us.map((u) => pgText(u.tool)),
        us.map((u) => (u.time === null ? null : time(u.time))),
        us.map((u) => pgText(u.text)),
        us.map((u) => u.line),
        us.map((u) => (u.kind === null ? null : pgKey(u.kind))),
      ],
    );
  }
  return units.length;
}
