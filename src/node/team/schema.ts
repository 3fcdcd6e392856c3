/**
 * The team database's schema (PostgreSQL 13 or newer), created and migrated by the tool itself: one schema,
 * `pi_sessions`, a version in its `meta` table, one migration per version. A database whose schema is newer than the
 * tool is refused (an older tool would write what a newer one reads otherwise). See docs/team.md for what each table
 * holds and the grants a team admin gives each machine's role.
 */
import type { Queryable } from "./connect.js";

const SCHEMA_VERSION = 3;

/** Migration `n` (0-based) takes the schema from version n to n + 1. */
const MIGRATIONS: string[] = [
  `
  CREATE SCHEMA IF NOT EXISTS pi_sessions;
  CREATE TABLE pi_sessions.meta (key text PRIMARY KEY, value text NOT NULL);
  CREATE TABLE pi_sessions.machines (
    name text PRIMARY KEY,
    first_sync timestamptz NOT NULL,
    last_sync timestamptz NOT NULL,
    tool_version text
  );
  CREATE TABLE pi_sessions.sessions (
    machine text NOT NULL REFERENCES pi_sessions.machines (name) ON DELETE CASCADE,
    file text NOT NULL,
    session_id text NOT NULL,
    agent text NOT NULL,
    project text,
    title text,
    first_activity timestamptz,
    last_activity timestamptz,
    parent_session_id text,
    family_root text,
    entry_count integer NOT NULL,
    PRIMARY KEY (machine, file)
  );
  CREATE INDEX sessions_last_activity ON pi_sessions.sessions (last_activity);
  -- One row per usage record, keyed as it is the same record on every machine and in every file that carries it
  -- (records.ts): its entry id, its time (or its session when it has none), its place among the entry's records.
  -- machine, session_id and project are the writer's once its own session sent it (own).
  CREATE TABLE pi_sessions.usage (
    entry_id text NOT NULL,
    stamp text NOT NULL,
    seq smallint NOT NULL,
    time timestamptz,
    source text NOT NULL,
    provider text NOT NULL,
    model text NOT NULL,
    input bigint NOT NULL,
    output bigint NOT NULL,
    cache_read bigint NOT NULL,
    cache_write bigint NOT NULL,
    total_tokens bigint NOT NULL,
    cost double precision NOT NULL,
    active boolean NOT NULL,
    own boolean NOT NULL,
    machine text NOT NULL,
    session_id text NOT NULL,
    project text,
    PRIMARY KEY (entry_id, stamp, seq)
  );
  CREATE INDEX usage_time ON pi_sessions.usage (time);
  CREATE INDEX usage_model ON pi_sessions.usage (provider, model);
  CREATE INDEX usage_project ON pi_sessions.usage (project);
  CREATE INDEX usage_machine ON pi_sessions.usage (machine, time);
  -- Which machines' files carry each record: a record stays while one does.
  CREATE TABLE pi_sessions.usage_carriers (
    entry_id text NOT NULL,
    stamp text NOT NULL,
    seq smallint NOT NULL,
    machine text NOT NULL,
    file text NOT NULL,
    PRIMARY KEY (machine, file, entry_id, stamp, seq)
  );
  CREATE INDEX usage_carriers_record ON pi_sessions.usage_carriers (entry_id, stamp, seq);
  -- Conversation text, only from machines that sync with --content: the search index's units.
  CREATE TABLE pi_sessions.texts (
    machine text NOT NULL,
    file text NOT NULL,
    entry_id text NOT NULL,
    part integer NOT NULL,
    role text NOT NULL,
    tool text,
    time timestamptz,
    session_id text NOT NULL,
    text text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
    PRIMARY KEY (machine, file, entry_id, part)
  );
  CREATE INDEX texts_tsv ON pi_sessions.texts USING gin (tsv);
  `,
  // Version 2: a session's name found by its id (the report by session names each row).
  `CREATE INDEX sessions_session_id ON pi_sessions.sessions (session_id);`,
  // Version 3: a text's line in its file and its entry's kind (a message's role, else the entry's type), so that a
  // session's texts read back as a transcript in the order written (transcript.ts). Rows sent before have neither.
  `ALTER TABLE pi_sessions.texts ADD COLUMN line integer, ADD COLUMN kind text;`,
];

export class SchemaError extends Error {
  override name = "SchemaError";
}

/** The schema's version in the database, 0 when it has none. */
async function schemaVersion(db: Queryable): Promise<number> {
  const exists = await db.query("SELECT to_regclass('pi_sessions.meta') IS NOT NULL AS ok");
  if (!exists.rows[0]?.ok) return 0;
  const r = await db.query("SELECT value FROM pi_sessions.meta WHERE key = 'schema_version'");
  return Number(r.rows[0]?.value ?? 0);
}

/**
 * Create the schema or bring it to this tool's version, in one transaction under an advisory lock (two machines'
 * first syncs at once create it once). Refused when the database's is newer.
 */
export async function migrate(db: Queryable): Promise<{ from: number; to: number }> {
  await db.query("BEGIN");
  try {
    await db.query("SELECT pg_advisory_xact_lock(hashtextextended('pi-sessions:schema', 0))");
    const from = await schemaVersion(db);
    if (from > SCHEMA_VERSION)
      throw new SchemaError(
        `the team database's schema is version ${from}, newer than this pi-sessions (${SCHEMA_VERSION}): update ` +
          "pi-sessions on this machine",
      );
    for (let v = from; v < SCHEMA_VERSION; v++) await db.query(MIGRATIONS[v]!).catch(notOwner(from));
    if (from < SCHEMA_VERSION)
      await db.query(
        "INSERT INTO pi_sessions.meta (key, value) VALUES ('schema_version', $1) " +
          "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        [String(SCHEMA_VERSION)],
      );
    await db.query("COMMIT");
    return { from, to: SCHEMA_VERSION };
  } catch (err) {
    await db.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}

/** The step to take when a migration is refused for want of rights (a machine's role may not change tables). */
const INIT_AS_OWNER = "run pi-sessions sync --init once as the schema's owner";

/** A migration refused to a role that does not own the tables, said with what to do (docs/team.md). */
const notOwner =
  (from: number) =>
  (err: unknown): never => {
    if ((err as { code?: string }).code === "42501")
      throw new SchemaError(
        `the team database's schema is version ${from} and this pi-sessions needs ${SCHEMA_VERSION}: ` +
          `${INIT_AS_OWNER} (a machine's role cannot change tables)`,
      );
    throw err;
  };

/** Refused unless the database's schema is this tool's (reading a newer or missing one would mislead). */
export async function requireSchema(db: Queryable): Promise<void> {
  const v = await schemaVersion(db);
  if (v === SCHEMA_VERSION) return;
  if (v === 0) throw new SchemaError("the team database has no pi-sessions schema yet: run pi-sessions sync first");
  if (v > SCHEMA_VERSION)
    throw new SchemaError(`the team database's schema is version ${v}, newer than this pi-sessions: update it`);
  throw new SchemaError(
    `the team database's schema is version ${v} and this pi-sessions needs ${SCHEMA_VERSION}: ${INIT_AS_OWNER}`,
  );
}
