/**
 * The search index's file: SQLite loaded on demand, its schema and version, the writer's lock file, waits on another
 * process's commit, and what says the file is damaged. src/node/search/searchIndex.ts keeps the index in it.
 */
import {
  chmodSync,
  closeSync,
  lstatSync,
  openSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { type DatabaseClass, loadSqlite } from "../sqlite.js";
import { PlainError } from "../ioReason.js";
import { SCHEMA_VERSION } from "./schemaVersion.js";

export { type DatabaseClass, loadSqlite };

export type Database = InstanceType<DatabaseClass>;

/**
 * `files`: one row per session file with what was indexed of it: the size and mtime seen, the bytes indexed
 * (`offset`, up to the last whole line), its last entry (`leaf`), its header's version and how many units it has;
 * `heads` the bytes up to its header, a SHA-256 of the last bytes before `offset` and the file's inode, kept only
 * when an append can be indexed alone (from `offset` on, once all three are found unchanged). `lineage` and `copies`
 * say which forks carry which of their parents' entries (a hit's `alsoIn`), without the store's listing.
 * `units` says where each unit's text is (the line's offset and length in its file, and its number among the line's
 * units): the FTS5 table is contentless (the inverted index only, a fifth of what keeping the texts took), and the
 * snippets of the hits shown are cut from their lines, read back (src/core/search/snippet.ts). English words are
 * indexed by their Porter stem over `unicode61` ("parentheses" and "parenthesis" stay apart, as Porter has it; a
 * search that finds nothing suggests the prefix form, `prefixSuggestion`).
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS files (id INTEGER PRIMARY KEY, file TEXT NOT NULL UNIQUE, size INTEGER, mtime INTEGER,
  offset INTEGER, leaf TEXT, version INTEGER, session_id TEXT, cwd TEXT, slug TEXT, title TEXT, units INTEGER,
  lineage TEXT);
CREATE TABLE IF NOT EXISTS heads (file_id INTEGER PRIMARY KEY, head BLOB, tail BLOB, ino TEXT);
CREATE TABLE IF NOT EXISTS lineage (file TEXT, parent TEXT, PRIMARY KEY (file, parent)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS lineage_parent ON lineage(parent);
CREATE TABLE IF NOT EXISTS copies (file TEXT, entry_id TEXT, PRIMARY KEY (file, entry_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS units (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, entry_id TEXT, role TEXT,
  tool TEXT, time INTEGER, active INTEGER, at INTEGER, len INTEGER, part INTEGER);
CREATE INDEX IF NOT EXISTS units_file ON units(file_id);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2');
`;

/** A writer's lock nobody refreshed for this long is from a process that died (its holder refreshes it each minute). */
const STALE_LOCK_MS = 10 * 60_000;
/** A directory lock of node-sqlite3-wasm older than this was left by a process killed inside a statement. */
const LEFTOVER_SQLITE_LOCK_MS = 30_000;
/** A reader's statement or read transaction ends within this; a lock directory that outlives it has no holder. */
const LOCK_SETTLE_MS = 1500;
/** How long a call waits for another process's transaction (SQLite's "database is locked") before failing. */
const BUSY_WAIT_MS = 10_000;

/** Wait `ms` without a busy loop (the SQLite calls are synchronous, so retries are too). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** SQLite's "another process holds the lock" (FTS5 reports one met while it loads as "vtable constructor failed"). */
const isBusy = (err: unknown) =>
  err instanceof IndexBusyError || /database is locked|SQLITE_BUSY|vtable constructor failed/i.test(String(err));

/** Index files this process has open: where a lock left by a dead process is looked for while a call waits. */
const openIndexes = new Set<string>();
export const trackIndexFile = (file: string, open: boolean) =>
  void (open ? openIndexes.add(file) : openIndexes.delete(file));

/**
 * Run a database call, retrying while another process holds SQLite's lock (it commits one session at a time). After
 * a second of waiting, a lock that no live process can hold is taken over (`takeOverDeadSqliteLock`). Still busy at
 * the end: an `IndexBusyError`, which says who holds it.
 */
export function retryBusy<T>(fn: () => T): T {
  const start = Date.now();
  let lookedForDead = false;
  for (;;) {
    try {
      return fn();
    } catch (err) {
      if (!isBusy(err)) throw err;
      if (!lookedForDead && Date.now() - start > 1000) {
        lookedForDead = true;
        for (const file of openIndexes) takeOverDeadSqliteLock(file);
      }
      if (Date.now() - start > BUSY_WAIT_MS) throw new IndexBusyError([...openIndexes][0] ?? "the search index");
      sleepSync(20);
    }
  }
}

/** The index stayed locked by a live process for the whole wait. */
class IndexBusyError extends PlainError {
  constructor(readonly file: string) {
    const writer = lockContent(`${file}.writer`)?.split(":");
    const who = writer && Number(writer[0]) > 0 ? ` (its writer is process ${writer[0]} on ${writer[1]})` : "";
    super(`the search index ${file} is busy: another process is writing it${who}; try again when it is done`);
    this.name = "IndexBusyError";
  }
}

/**
 * Run reads in one transaction. node-sqlite3-wasm locks a file by making a directory (`<db>.lock`) and unlocks it by
 * removing it, around every statement run on its own: a query of many statements (a hit's forks) pays that for each.
 * Inside one transaction the lock is taken once.
 */
export function readTransaction<T>(db: Database, fn: () => T): T {
  if (db.inTransaction) return fn();
  retryBusy(() => db.exec("BEGIN"));
  try {
    return fn();
  } finally {
    if (db.inTransaction) db.exec("COMMIT");
  }
}

/**
 * The writer's lock file: `O_EXCL`, content `<pid>:<host>:<nonce>`, its mtime refreshed by the holder every minute
 * (`refresh`). It is stale when its pid is gone on this host, or when nobody refreshed it for 10 minutes (a holder on
 * another host that died). A stale lock is removed only if it still holds what was judged stale, and the lock is
 * released only while it is still ours, never a successor's.
 */
export interface WriterLock {
  refresh(): void;
  release(): void;
}

const lockContent = (path: string): string | null => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
};

/** A writer file that does not read `pid:host:nonce` (a crash between its create and its write) is stale after this. */
const UNREADABLE_LOCK_MS = 5_000;

function isStale(path: string, content: string): boolean {
  const [pid, host] = content.split(":");
  if (!/^\d+:[^:]*:[0-9a-f]+$/.test(content)) {
    try {
      return Date.now() - statSync(path).mtimeMs > UNREADABLE_LOCK_MS;
    } catch {
      return true;
    }
  }
  if (host === hostname() && Number(pid) > 0) {
    try {
      process.kill(Number(pid), 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ESRCH") return true;
    }
  }
  try {
    return Date.now() - statSync(path).mtimeMs > STALE_LOCK_MS;
  } catch {
    return true;
  }
}

/** Take the writer's lock file, or null when another live process holds it. */
export function takeWriterLock(path: string): WriterLock | null {
  const mine = `${process.pid}:${hostname()}:${randomBytes(8).toString("hex")}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, mine, { flag: "wx", mode: 0o600 });
      return {
        refresh: () => {
          if (lockContent(path) === mine) utimesSync(path, new Date(), new Date());
        },
        release: () => {
          if (lockContent(path) === mine) rmSync(path, { force: true });
        },
      };
    } catch {
      const seen = lockContent(path);
      if (seen === null) continue; // gone in between: try again
      if (!isStale(path, seen) || lockContent(path) !== seen) return null;
      rmSync(path, { force: true });
    }
  }
  return null;
}

/** Identity of node-sqlite3-wasm's lock directory, or null when there is none. */
function lockDirIdentity(file: string): string | null {
  try {
    const st = statSync(`${file}.lock`, { bigint: true });
    return `${st.ino}:${st.birthtimeNs}:${st.ctimeNs}`;
  } catch {
    return null;
  }
}

/** Whether a process other than this one that is alive holds the writer's lock file of `file`. */
function liveOtherWriter(file: string): boolean {
  const content = lockContent(`${file}.writer`);
  if (content === null) return false;
  if (content.startsWith(`${process.pid}:${hostname()}:`)) return false;
  return !isStale(`${file}.writer`, content);
}

/**
 * node-sqlite3-wasm locks a database by making a directory (`<db>.lock`), holding no pid, and never takes one over:
 * a process killed inside a statement leaves it, and every later statement waits, then fails. It is taken over at
 * once when no live process can hold it for long: no live writer but this one (the writer's lock file names its
 * pid and host), and the same directory still there after a reader's longest statement (`LOCK_SETTLE_MS`). A
 * directory this old is removed whoever writes (no statement or transaction of ours lasts that long).
 */
export function takeOverDeadSqliteLock(file: string): void {
  const seen = lockDirIdentity(file);
  if (seen === null) return;
  try {
    if (Date.now() - statSync(`${file}.lock`).mtimeMs > LEFTOVER_SQLITE_LOCK_MS) {
      rmdirSync(`${file}.lock`);
      return;
    }
  } catch {
    return; // removed in between
  }
  if (liveOtherWriter(file)) return;
  const end = Date.now() + LOCK_SETTLE_MS;
  while (Date.now() < end) {
    sleepSync(25);
    if (lockDirIdentity(file) !== seen) return; // released, or taken again: a live process's
  }
  try {
    if (lockDirIdentity(file) === seen) rmdirSync(`${file}.lock`);
  } catch {
    // Removed in between.
  }
}

/**
 * Whether `file` is an index of this version: an SQLite file whose version is ours and whose tables answer (`valid`),
 * one that is not (`invalid`), or one busy for longer than a reader ever holds it (`busy`: not a reason to delete an
 * index that may be fine, nor to take it as one). A full integrity check reads the whole file, seconds on a large
 * index: damage found later is `isCorruption`, and the caller rebuilds.
 */
export function validIndex(Database: DatabaseClass, file: string): "valid" | "invalid" | "busy" {
  try {
    const db = new Database(file);
    try {
      const version = retryBusy(() => db.get("PRAGMA user_version") as { user_version?: number } | null);
      if (version?.user_version !== SCHEMA_VERSION) return "invalid";
      retryBusy(() => db.get("SELECT 1 FROM files LIMIT 1"));
      retryBusy(() => db.get("SELECT rowid FROM fts LIMIT 1"));
      return "valid";
    } finally {
      db.close();
    }
  } catch (err) {
    return isBusy(err) ? "busy" : "invalid";
  }
}

/** What the index knows of each file: its size and mtime when indexed, and its lineage. */
export interface Known {
  size: number;
  mtime: number;
  lineage: string | null;
}

/**
 * The indexed files, read as one row of JSON rather than a row per file: the WebAssembly SQLite's calls cost
 * microseconds per column (over 8,000 files, about 95 ms that way and 70 ms this way in a CLI search's profile).
 */
export function knownFiles(db: Database): Map<string, Known> {
  const row = retryBusy(() =>
    db.get("SELECT json_group_array(json_array(file, size, mtime, lineage)) AS known FROM files"),
  ) as { known: string } | null;
  const rows = JSON.parse(row?.known ?? "[]") as [string, number, number, string | null][];
  return new Map(rows.map(([file, size, mtime, lineage]) => [file, { size, mtime, lineage }]));
}

/**
 * The names SQLite and we open next to the index, and what each must be: SQLite follows a link at any of them (its
 * journal written over the link's target, the index made elsewhere), so each is `lstat`-ed before the open and a
 * link, or anything of the wrong kind, is refused with its name. (`<db>.lock` is node-sqlite3-wasm's lock
 * directory.)
 */
export function checkIndexNames(file: string): void {
  const names: [string, "file" | "dir"][] = [
    [file, "file"],
    [`${file}-journal`, "file"],
    [`${file}-wal`, "file"],
    [`${file}-shm`, "file"],
    [`${file}.writer`, "file"],
    [`${file}.lock`, "dir"],
  ];
  for (const [name, kind] of names) {
    let st;
    try {
      st = lstatSync(name);
    } catch {
      continue; // not there: SQLite or the lock creates it
    }
    const wrong = st.isSymbolicLink() ? "a symbolic link" : kind === "dir" ? !st.isDirectory() : !st.isFile();
    if (wrong)
      throw new PlainError(
        `${name} is ${wrong === true ? `not a ${kind === "dir" ? "directory" : "regular file"}` : wrong}; ` +
          "the search index is not opened through it (remove it, and the next search builds the index again)",
      );
  }
}

/** Delete an index file and the rollback journal SQLite may have left next to it. */
export function removeIndexFile(file: string): void {
  rmSync(file, { force: true });
  rmSync(`${file}-journal`, { force: true });
}

/** Create `file` readable and writable by the owner only, or make it so. */
export function ownerOnly(file: string): void {
  closeSync(openSync(file, "a", 0o600));
  chmodSync(file, 0o600);
}

/** An error that says the index file is damaged (the caller deletes it and builds it again). */
export function isCorruption(err: unknown): boolean {
  return /malformed|corrupt|not a database|SQLITE_CORRUPT|SQLITE_NOTADB/i.test(String(err));
}
