/**
 * `pi-sessions sync`: push what this machine's store knows to the team database, incrementally and idempotently.
 * A local state file (per database and machine, in the cache dir) remembers what each session file was when it was
 * sent and how many of its records went: an unchanged file sends nothing, a file that only grew sends its new
 * records, any other change sends the file's rows again (its old carriers removed first), and so does a change of
 * which of its records are its own (a parent deleted or restored here) or of which are on its active branch; a file
 * deleted from this machine takes its rows with it (one merely not listed, under a root not read this time, stays).
 * Files go in batches, each one transaction under the machine's advisory lock, the state saved after each commit:
 * a sync stopped at any point (a kill, a network cut) leaves the database as it was after the last whole batch, and
 * the next sync goes on from there. Records are upserted on their natural key
 * (records.ts), so syncs from many machines at once never conflict, and a record two machines carry is one row.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, linkSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { sessionUnits } from "../../core/search/units.js";
import { ensurePrivateDir } from "../cacheDir.js";
import type { Session } from "../../core/session/index.js";
import { readSessionFile } from "../readSession.js";
import { dirname, join } from "node:path";
import type { StoreSession } from "../store/index.js";
import type { TeamConnection } from "./connect.js";
import { recordKey, redactedFile, type TeamSession, teamSessions } from "./records.js";
import { pgKey } from "./pgText.js";
import { migrate } from "./schema.js";
import { deleteFileRows, insertTexts, upsertSession, upsertUsage } from "./writes.js";

export interface SyncOptions {
  machine: string;
  /** Send the conversation's text too (docs/team.md). */
  content: boolean;
  redactPaths: boolean;
  /** The cache dir, where the state file lives. */
  cacheDir: string;
  toolVersion: string;
  /** Forget the state: send everything again. */
  full?: boolean;
  onProgress?: (done: number, total: number) => void;
}

export interface SyncResult {
  sessions: number;
  /** Sessions whose rows were sent (whole or their new records). */
  sent: number;
  records: number;
  texts: number;
  removed: number;
  batches: number;
}

interface FileState {
  size: number;
  mtimeMs: number;
  /** Records sent of this file, and the last one's key (an append goes on from it). */
  records: number;
  lastKey: string;
  /** The texts' format when sent with them (`TEXTS_FORMAT`; `true` from a tool before it), else false. */
  content: boolean | number;
  /** Sent under a digest of its path (`--redact-paths`). */
  redacted: boolean;
  /** A digest of the entries it copied from a parent listed here (they are the parent's, not sent with it). */
  inheritedKey: string;
  /** A digest of which of the records sent are on the active branch. */
  activeKey: string;
}

interface State {
  database: string;
  machine: string;
  files: Record<string, FileState>;
}

/**
 * What a text row holds: 2 since rows carry their line and entry kind (schema 3). A file sent with texts of an older
 * format is sent again, so that every session's transcript reads in the order written.
 */
const TEXTS_FORMAT = 2;
const contentState = (o: SyncOptions) => (o.content ? TEXTS_FORMAT : false);

/** Files per batch, and records per batch at most (whichever comes first). */
const BATCH_FILES = 200;
const BATCH_RECORDS = 20_000;

function stateFileOf(o: SyncOptions, database: string): string {
  const key = createHash("sha256").update(`${database}\n${o.machine}`).digest("hex").slice(0, 16);
  return join(o.cacheDir, `team-${key}.json`);
}

function readState(file: string, database: string, machine: string): State {
  try {
    const s = JSON.parse(readFileSync(file, "utf8")) as State;
    if (s.database === database && s.machine === machine && s.files && typeof s.files === "object") return s;
  } catch {
    /* none yet, or unreadable: everything is sent */
  }
  return { database, machine, files: {} };
}

/**
 * The machine's own key for redacted file names (`team-redaction.key` in the cache dir, made once, private): a plain
 * digest of a path would let anyone who guesses the path confirm it.
 */
function redactionKey(cacheDir: string): string {
  const file = join(cacheDir, "team-redaction.key");
  const read = () => {
    try {
      const key = readFileSync(file, "utf8").trim();
      return /^[0-9a-f]{64}$/.test(key) ? key : null;
    } catch {
      return null;
    }
  };
  const known = read();
  if (known) return known;
  const key = randomBytes(32).toString("hex");
  // Made once: a second process making it at the same moment takes the first one's (a damaged one is replaced).
  if (writePrivate(file, key, false)) return key;
  const theirs = read();
  if (theirs) return theirs;
  writePrivate(file, key, true);
  return key;
}

/**
 * `text` into a new private file beside `file`, then put in its place: over what is there (`replace`), else only
 * where there is nothing yet (false when there was).
 */
function writePrivate(file: string, text: string, replace: boolean): boolean {
  ensurePrivateDir(dirname(file));
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600, flag: "wx" });
  try {
    if (replace) renameSync(tmp, file);
    else linkSync(tmp, file);
    return true;
  } catch (err) {
    if (!replace && (err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

const digestOf = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);
const inheritedKeyOf = (s: TeamSession) => `${s.copies.size}:${digestOf([...s.copies].sort().join("\n"))}`;
const activeKeyOf = (s: TeamSession, n: number) =>
  digestOf(
    s.records
      .slice(0, n)
      .map((r) => (r.active ? "1" : "0"))
      .join(""),
  );

function saveState(file: string, state: State): void {
  writePrivate(file, JSON.stringify(state), true);
}

/** The database's own id (made with its schema): a state of another database, or of one made anew, is not used. */
async function databaseId(db: TeamConnection): Promise<string> {
  await db.query(
    "INSERT INTO pi_sessions.meta (key, value) " +
      "VALUES ('database_id', md5(random()::text || clock_timestamp()::text)) ON CONFLICT (key) DO NOTHING",
  );
  const r = await db.query("SELECT value FROM pi_sessions.meta WHERE key = 'database_id'");
  return String(r.rows[0]!.value);
}

export async function syncStore(db: TeamConnection, result: StoreSession[], o: SyncOptions): Promise<SyncResult> {
  await migrate(db);
  const database = await databaseId(db);
  const stateFile = stateFileOf(o, database);
  const state = o.full ? { database, machine: o.machine, files: {} } : readState(stateFile, database, o.machine);
  const key = redactionKey(o.cacheDir);
  const named = (file: string, redacted: boolean) => (redacted ? redactedFile(file, key) : file);
  const sessions = teamSessions(result, { redactPaths: o.redactPaths, content: o.content, redactionKey: key });
  const listed = new Set(sessions.map((s) => s.localFile));
  const changed = sessions.filter((s) => {
    const k = state.files[s.localFile];
    return (
      !k ||
      k.size !== s.sizeBytes ||
      k.mtimeMs !== s.mtimeMs ||
      k.content !== contentState(o) ||
      k.redacted !== o.redactPaths ||
      k.inheritedKey !== inheritedKeyOf(s) ||
      k.activeKey !== activeKeyOf(s, k.records)
    );
  });
  const out: SyncResult = { sessions: sessions.length, sent: 0, records: 0, texts: 0, removed: 0, batches: 0 };
  await addMachine(db, o);
  // What the database holds of this machine, whatever the state says (it may be lost, stale or --full).
  const held = await machineFiles(db, o.machine);
  const gone = goneFiles(held, sessions, state, o.redactPaths, named);
  const batches = batchesOf(changed);
  if (gone.length) batches.unshift([]);
  let done = 0;
  for (const batch of batches) {
    await db.query("BEGIN");
    try {
      await db.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`pi-sessions:machine:${o.machine}`]);
      if (out.batches === 0)
        for (const file of gone) {
          await deleteFileRows(db, o.machine, file, true);
          out.removed++;
        }
      for (const s of batch) {
        const sent = await sendSession(db, s, state.files[s.localFile], o, named, held.has(pgKey(s.file)));
        out.records += sent.records;
        out.texts += sent.texts;
        out.sent++;
      }
      await db.query("COMMIT");
    } catch (err) {
      await db.query("ROLLBACK").catch(() => undefined);
      throw err;
    }
    // Committed: the state says so (a sync stopped before this line sends the batch again, to the same rows).
    if (out.batches === 0)
      for (const file of Object.keys(state.files)) if (!listed.has(file) && !existsSync(file)) delete state.files[file];
    for (const s of batch) state.files[s.localFile] = stateOf(s, o);
    saveState(stateFile, state);
    out.batches++;
    done += batch.length;
    o.onProgress?.(done, changed.length);
  }
  if (!batches.length) saveState(stateFile, state);
  // Only a sync that completed says the machine synced (the dashboard's "last sync").
  await db.query("UPDATE pi_sessions.machines SET last_sync = now(), tool_version = $2 WHERE name = $1", [
    o.machine,
    o.toolVersion,
  ]);
  return out;
}

/** The session files the database holds for this machine, as named there. */
async function machineFiles(db: TeamConnection, machine: string): Promise<Set<string>> {
  const r = await db.query("SELECT file FROM pi_sessions.sessions WHERE machine = $1", [machine]);
  return new Set(r.rows.map((row) => String(row.file)));
}

/**
 * The database's files of this machine to remove: a path neither listed nor on disk any more (one under a folder not
 * read this time stays), a path listed but sent redacted now, a redacted name of no listed file and of no file the
 * state knows that still exists (the key cannot be undone, so an unknown one is taken as gone).
 */
function goneFiles(
  held: Set<string>,
  sessions: TeamSession[],
  state: State,
  redactPaths: boolean,
  named: (file: string, redacted: boolean) => string,
): string[] {
  const listedNames = new Set(sessions.map((s) => pgKey(s.file)));
  const listedPaths = new Set(sessions.map((s) => s.localFile));
  // A long path is held under a key (pgText.ts): back to the path, for the ones this machine knows.
  const pathOf = new Map([...listedPaths, ...Object.keys(state.files)].map((f) => [pgKey(f), f]));
  const knownRedacted = new Set(
    Object.keys(state.files)
      .filter((f) => !listedPaths.has(f) && existsSync(f))
      .map((f) => named(f, true)),
  );
  return [...held].filter((f) => {
    if (listedNames.has(f)) return false;
    if (f.startsWith("redacted:")) return !knownRedacted.has(f);
    const path = pathOf.get(f) ?? f;
    return listedPaths.has(path) ? redactPaths : !existsSync(path);
  });
}

/** The machine's row, first seen now if new (its sessions refer to it). */
async function addMachine(db: TeamConnection, o: SyncOptions): Promise<void> {
  await db.query(
    "INSERT INTO pi_sessions.machines (name, first_sync, last_sync, tool_version) VALUES ($1, now(), now(), $2) " +
      "ON CONFLICT (name) DO NOTHING",
    [o.machine, o.toolVersion],
  );
}

function batchesOf(changed: TeamSession[]): TeamSession[][] {
  const out: TeamSession[][] = [];
  let batch: TeamSession[] = [];
  let records = 0;
  for (const s of changed) {
    if (batch.length && (batch.length >= BATCH_FILES || records + s.records.length > BATCH_RECORDS)) {
      out.push(batch);
      batch = [];
      records = 0;
    }
    batch.push(s);
    records += s.records.length;
  }
  if (batch.length) out.push(batch);
  return out;
}

function stateOf(s: TeamSession, o: SyncOptions): FileState {
  const last = s.records.at(-1);
  return {
    size: s.sizeBytes,
    mtimeMs: s.mtimeMs,
    records: s.records.length,
    lastKey: last ? recordKey(last) : "",
    content: contentState(o),
    redacted: o.redactPaths,
    inheritedKey: inheritedKeyOf(s),
    activeKey: activeKeyOf(s, s.records.length),
  };
}

/** An entry's kind as a text row keeps it: a message's role, else the entry's type (none for the title slot). */
function kindOf(session: Session, entryId: string): string | null {
  const e = session.byId.get(entryId);
  if (!e) return null;
  return e.type === "message" ? (e.role ?? "message") : e.type;
}

/** One session's rows: its new records only when the file only grew since it was sent, else all of them again. */
async function sendSession(
  db: TeamConnection,
  s: TeamSession,
  before: FileState | undefined,
  o: SyncOptions,
  named: (file: string, redacted: boolean) => string,
  /** The database has rows of this file already (the state may not know it: lost, or --full). */
  held: boolean,
): Promise<{ records: number; texts: number }> {
  const grew =
    before !== undefined &&
    before.content === contentState(o) &&
    before.redacted === o.redactPaths &&
    before.inheritedKey === inheritedKeyOf(s) &&
    before.activeKey === activeKeyOf(s, before.records) &&
    s.sizeBytes > before.size &&
    s.records.length >= before.records &&
    (before.records === 0 ? before.lastKey === "" : recordKey(s.records[before.records - 1]!) === before.lastKey);
  // Rows sent before under another name (paths redacted since, or no longer) go with it.
  if (before && !grew) await deleteFileRows(db, o.machine, named(s.localFile, before.redacted), true);
  else if (!before && held) await deleteFileRows(db, o.machine, s.file, true);
  await upsertSession(db, o.machine, s);
  const records = grew ? s.records.slice(before.records) : s.records;
  await upsertUsage(db, o.machine, s, records);
  let texts = 0;
  if (o.content) {
    const read = await readSessionFile(s.localFile, { validate: false });
    if (read.ok) {
      const units = sessionUnits(read.session, s.copies).map((u) => ({ ...u, kind: kindOf(read.session, u.entryId) }));
      if (grew)
        await db.query("DELETE FROM pi_sessions.texts WHERE machine = $1 AND file = $2", [o.machine, pgKey(s.file)]);
      texts = await insertTexts(db, o.machine, s, units);
    }
  }
  return { records: records.length, texts };
}
