/**
 * The search index's file: SQLite loaded on demand, its schema and version, the writer's lock file, waits on another
 * process's commit, and what says the file is damaged. src/node/search/searchIndex.ts keeps the index in it.
 */
import { closeSync, openSync, rmSync, statSync } from "node:fs";
import type Sqlite from "node-sqlite3-wasm";
import { SCHEMA_VERSION } from "./schemaVersion.js";

export type Database = InstanceType<typeof Sqlite.Database>;
export type DatabaseClass = typeof Sqlite.Database;

/**
 * SQLite, loaded on first use: its WebAssembly is compiled when the module loads, which no other command should pay
 * for. (A CommonJS module whose exports Node's ESM loader cannot name: taken from its default export.)
 */
let loaded: Promise<DatabaseClass> | null = null;
export function loadSqlite(): Promise<DatabaseClass> {
  loaded ??= import("node-sqlite3-wasm").then((m) => (m.default ?? m).Database);
  return loaded;
}

/**
 * `files`: one row per session file with what was indexed of it: the size and mtime seen, the bytes indexed
 * (`offset`, up to the last whole line), the bytes up to its header (`head`, null when appends cannot be taken in
 * alone) and the last entry (`leaf`), so that an append is indexed from `offset` on. `lineage` and `copies` say which
 * forks carry which of their parents' entries (a hit's `alsoIn`), without the store's listing.
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS files (file TEXT PRIMARY KEY, size INTEGER, mtime INTEGER, offset INTEGER, head BLOB,
  leaf TEXT, session_id TEXT, cwd TEXT, slug TEXT, title TEXT);
CREATE TABLE IF NOT EXISTS lineage (file TEXT, parent TEXT, PRIMARY KEY (file, parent)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS lineage_parent ON lineage(parent);
CREATE TABLE IF NOT EXISTS copies (file TEXT, entry_id TEXT, PRIMARY KEY (file, entry_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS units (id INTEGER PRIMARY KEY, file TEXT NOT NULL, session_id TEXT, entry_id TEXT,
  role TEXT, tool TEXT, time INTEGER, cwd TEXT, active INTEGER);
CREATE INDEX IF NOT EXISTS units_file ON units(file);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
`;

/** A writer's lock older than this is from a process that died. */
const STALE_LOCK_MS = 10 * 60_000;
/** How long a call waits for another process's transaction (SQLite's "database is locked") before failing. */
const BUSY_WAIT_MS = 10_000;

/** Wait `ms` without a busy loop (the SQLite calls are synchronous, so retries are too). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Run a database call, retrying while another process holds SQLite's lock (it commits one session at a time). */
export function retryBusy<T>(fn: () => T): T {
  const end = Date.now() + BUSY_WAIT_MS;
  for (;;) {
    try {
      return fn();
    } catch (err) {
      // FTS5 reports a lock met while it loads its configuration as "vtable constructor failed".
      if (!/database is locked|SQLITE_BUSY|vtable constructor failed/i.test(String(err)) || Date.now() > end) throw err;
      sleepSync(20);
    }
  }
}

/** Take the writer's lock file, or null when another live process holds it. */
export function takeWriterLock(path: string): (() => void) | null {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      closeSync(openSync(path, "wx"));
      return () => rmSync(path, { force: true });
    } catch {
      try {
        if (Date.now() - statSync(path).mtimeMs > STALE_LOCK_MS) rmSync(path, { force: true });
        else return null;
      } catch {
        // Gone in between: try again.
      }
    }
  }
  return null;
}

/**
 * Whether `file` is an index of this version: an SQLite file whose version is ours and whose tables answer. (A full
 * integrity check reads the whole file, seconds on a large index: damage found later is `isCorruption`, and the
 * caller rebuilds.)
 */
export function validIndex(Database: DatabaseClass, file: string): boolean {
  try {
    const db = new Database(file);
    try {
      if ((db.get("PRAGMA user_version") as { user_version?: number } | null)?.user_version !== SCHEMA_VERSION)
        return false;
      db.get("SELECT count(*) AS n FROM files");
      db.get("SELECT rowid FROM fts LIMIT 1");
      return true;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}

/** An error that says the index file is damaged (the caller deletes it and builds it again). */
export function isCorruption(err: unknown): boolean {
  return /malformed|corrupt|not a database|SQLITE_CORRUPT|SQLITE_NOTADB/i.test(String(err));
}
