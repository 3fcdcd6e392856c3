/**
 * The full-text index of every session in a store (one index file per set of roots): SQLite with FTS5
 * (node-sqlite3-wasm, WebAssembly, so one package runs in every VS Code and Node with no native module), in a file
 * under the cache dir. One row per text unit
 * (src/core/search/units.ts) with its file, session, entry, role and time; per-file bookkeeping (size, mtime) makes
 * updates incremental: a changed file is indexed again, a deleted one removed. A fork's copies of its parent's
 * entries are indexed once, in the parent (the store's ownership rule); a hit lists the forks that carry it.
 * A foreign file (not SQLite, another schema version) is replaced on open; damage found later is reported as
 * `isCorruption`, and the caller rebuilds. One writer at a time, by a lock file.
 */
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import type Sqlite from "node-sqlite3-wasm";

type Database = InstanceType<typeof Sqlite.Database>;
type DatabaseClass = typeof Sqlite.Database;

/**
 * SQLite, loaded on first use: its WebAssembly is compiled when the module loads, which no other command should pay
 * for. (A CommonJS module whose exports Node's ESM loader cannot name: taken from its default export.)
 */
let loaded: Promise<DatabaseClass> | null = null;
export function loadSqlite(): Promise<DatabaseClass> {
  loaded ??= import("node-sqlite3-wasm").then((m) => (m.default ?? m).Database);
  return loaded;
}
import type { ParsedQuery } from "../../core/search/query.js";
import { sessionUnits, type UnitRole } from "../../core/search/units.js";
import { pathTo } from "../../core/session.js";
import { readSessionFile } from "../readSession.js";
import { computeOwnership, type StoreSession } from "../store/index.js";

/** Bumped when the schema or what is indexed changes: an index of another version is rebuilt. */
const SCHEMA_VERSION = 1;
/** A writer's lock older than this is from a process that died. */
const STALE_LOCK_MS = 10 * 60_000;

export interface SearchHit {
  file: string;
  sessionId: string;
  entryId: string;
  role: UnitRole;
  tool: string | null;
  timestamp: string | null;
  cwd: string;
  snippet: string;
  score: number;
  /** Forks that carry this entry as a copy (their files). */
  alsoIn: string[];
}

/** What the index holds (what is pending is what `update` left to another process). */
export interface IndexStats {
  sessions: number;
  entries: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS files (file TEXT PRIMARY KEY, size INTEGER, mtime INTEGER, session_id TEXT, cwd TEXT);
CREATE TABLE IF NOT EXISTS units (id INTEGER PRIMARY KEY, file TEXT NOT NULL, session_id TEXT, entry_id TEXT,
  role TEXT, tool TEXT, time INTEGER, cwd TEXT, active INTEGER);
CREATE INDEX IF NOT EXISTS units_file ON units(file);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
`;

/** Wait `ms` without a busy loop (the SQLite calls are synchronous, so retries are too). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** How long a call waits for another process's transaction (SQLite's "database is locked") before failing. */
const BUSY_WAIT_MS = 10_000;

/** Run a database call, retrying while another process holds SQLite's lock (it commits one session at a time). */
function retryBusy<T>(fn: () => T): T {
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
function takeWriterLock(path: string): (() => void) | null {
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
function validIndex(Database: DatabaseClass, file: string): boolean {
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

export class SearchIndex {
  private constructor(
    private readonly db: Database,
    readonly file: string,
    /** The index was found corrupt or of another version, and rebuilt empty. */
    readonly rebuilt: boolean,
    /** Releases the writer's lock; null when another process writes (this one only reads what is there). */
    private release: (() => void) | null,
  ) {}

  /** Close it and delete its file (after `isCorruption`): the next `open` builds it again. */
  discard(): void {
    this.close();
    rmSync(this.file, { force: true });
  }

  /** Whether this process may update the index (it holds the writer's lock). */
  get writable(): boolean {
    return this.release !== null;
  }

  /**
   * Open (or create) the index in `cacheDir`. One process at a time writes, by a lock file; it alone checks the file
   * and replaces one that is not a valid index of this version. Any other opens what is there to read it, and its
   * calls wait while the writer commits a session. Readers never wait for the writer to finish.
   */
  static async open(cacheDir: string, roots: readonly { dir: string }[]): Promise<SearchIndex> {
    const Database = await loadSqlite();
    mkdirSync(cacheDir, { recursive: true });
    // One index per set of roots, like the metadata cache: a run over other roots must not drop these sessions.
    const key = createHash("sha256")
      .update(roots.map((r) => r.dir).join("\0"))
      .digest("hex")
      .slice(0, 16);
    const file = join(cacheDir, `search-v${SCHEMA_VERSION}-${key}.sqlite`);
    // Not `<db>.lock`: node-sqlite3-wasm's own file locking uses that name.
    const release = takeWriterLock(`${file}.writer`);
    let rebuilt = false;
    if (release && existsSync(file) && !validIndex(Database, file)) {
      rmSync(file, { force: true });
      rebuilt = true;
    }
    if (!release && !existsSync(file)) return SearchIndex.empty(Database, file);
    const db = new Database(file);
    if (release) {
      retryBusy(() => db.exec(SCHEMA));
      retryBusy(() => db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`));
    } else if (!retryBusy(() => db.get("SELECT 1 AS ok FROM sqlite_master WHERE name = 'fts'"))) {
      db.close();
      return SearchIndex.empty(Database, file);
    }
    return new SearchIndex(db, file, rebuilt, release);
  }

  /** The writer is creating the index right now: answer from an empty one (and say what is pending). */
  private static empty(Database: DatabaseClass, file: string): SearchIndex {
    const db = new Database(":memory:");
    db.exec(SCHEMA);
    return new SearchIndex(db, file, false, null);
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
    this.release?.();
    this.release = null;
  }

  /** Files whose bookkeeping differs from the store's listing (new, changed), and indexed files no longer listed. */
  private changes(sessions: StoreSession[]): { changed: StoreSession[]; removed: string[] } {
    const known = new Map(
      (
        retryBusy(() => this.db.all("SELECT file, size, mtime FROM files")) as {
          file: string;
          size: number;
          mtime: number;
        }[]
      ).map((r) => [r.file, r]),
    );
    const changed = sessions.filter((s) => {
      const k = known.get(s.file);
      return s.summary.ok && (!k || k.size !== s.sizeBytes || k.mtime !== Math.trunc(s.mtimeMs));
    });
    const listed = new Set(sessions.map((s) => s.file));
    return { changed, removed: [...known.keys()].filter((f) => !listed.has(f)) };
  }

  /**
   * Bring the index up to the store: index new and changed sessions, remove deleted ones. `sessions` is the store's
   * listing (ownership is computed here). Returns what was done; `pending` when another writer holds the lock.
   */
  async update(
    sessions: StoreSession[],
    onProgress?: (done: number, total: number) => void,
  ): Promise<{ indexed: number; removed: number; pending: number }> {
    const { changed, removed } = this.changes(sessions);
    if (!changed.length && !removed.length) return { indexed: 0, removed: 0, pending: 0 };
    if (!this.writable) return { indexed: 0, removed: 0, pending: changed.length + removed.length };
    computeOwnership(sessions);
    for (const file of removed) retryBusy(() => this.remove(file));
    let done = 0;
    for (const s of changed) {
      await this.indexSession(s);
      onProgress?.(++done, changed.length);
    }
    return { indexed: changed.length, removed: removed.length, pending: 0 };
  }

  private remove(file: string): void {
    this.db.run("DELETE FROM fts WHERE rowid IN (SELECT id FROM units WHERE file = ?)", [file]);
    this.db.run("DELETE FROM units WHERE file = ?", [file]);
    this.db.run("DELETE FROM files WHERE file = ?", [file]);
  }

  private async indexSession(s: StoreSession): Promise<void> {
    const read = await readSessionFile(s.file, { validate: false });
    // One transaction per session: readers in other processes wait at most for one session's commit.
    retryBusy(() => this.db.exec("BEGIN IMMEDIATE"));
    try {
      this.remove(s.file);
      if (read.ok) {
        const session = read.session;
        // A fork's copies are its parent's: indexed there (ambiguous forks' copies too, as usage counts them).
        const units = sessionUnits(session, s.parent || s.parentCandidates.length ? s.inherited : undefined);
        const active = new Set(pathTo(session, session.leafId).map((e) => e.id));
        const sessionId = String(session.header.id ?? "");
        const cwd = typeof session.header.cwd === "string" ? session.header.cwd : "";
        const unit = this.db.prepare(
          "INSERT INTO units (file, session_id, entry_id, role, tool, time, cwd, active) " +
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        );
        const text = this.db.prepare("INSERT INTO fts (rowid, text) VALUES (?, ?)");
        try {
          for (const u of units) {
            const r = unit.run([
              s.file,
              sessionId,
              u.entryId,
              u.role,
              u.tool,
              u.time,
              cwd,
              active.has(u.entryId) ? 1 : 0,
            ]);
            text.run([r.lastInsertRowid, u.text]);
          }
        } finally {
          unit.finalize();
          text.finalize();
        }
      }
      this.db.run("INSERT INTO files (file, size, mtime, session_id, cwd) VALUES (?, ?, ?, ?, ?)", [
        s.file,
        s.sizeBytes,
        Math.trunc(s.mtimeMs),
        read.ok ? String(read.session.header.id ?? "") : "",
        read.ok && typeof read.session.header.cwd === "string" ? read.session.header.cwd : "",
      ]);
      retryBusy(() => this.db.exec("COMMIT"));
    } catch (err) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      throw err;
    }
  }

  stats(): IndexStats {
    const n = (sql: string) => Number((retryBusy(() => this.db.get(sql)) as { n: number } | null)?.n ?? 0);
    return { sessions: n("SELECT count(*) AS n FROM files"), entries: n("SELECT count(*) AS n FROM units") };
  }

  /**
   * The best hits of a parsed query: bm25, with a mild boost for recent entries and for the active path. Thinking is
   * searched only when asked for (`role:thinking`). `sessions` (the store's listing) gives each hit its forks.
   */
  query(q: ParsedQuery & { ok: true }, options: { limit?: number; sessions?: StoreSession[]; now?: number } = {}) {
    const limit = Math.max(1, Math.min(options.limit ?? 50, 500));
    const f = q.filters;
    const where: string[] = ["fts MATCH ?"];
    const args: (string | number)[] = [q.match];
    const roles = f.roles.length ? f.roles : (["user", "assistant", "tool", "summary", "meta", "custom"] as const);
    where.push(`u.role IN (${roles.map(() => "?").join(", ")})`);
    args.push(...roles);
    const filter = (sql: string, ...values: (string | number)[]) => {
      where.push(sql);
      args.push(...values);
    };
    if (f.tool !== null) filter("u.tool = ?", f.tool);
    if (f.project !== null) filter("instr(lower(u.cwd), lower(?)) > 0", f.project);
    if (f.since !== null) filter("u.time >= ?", f.since);
    if (f.until !== null) filter("u.time <= ?", f.until);
    if (f.sessionPrefix !== null) filter("substr(u.session_id, 1, ?) = ?", f.sessionPrefix.length, f.sessionPrefix);
    const rows = retryBusy(() =>
      this.db.all(
        `SELECT u.file, u.session_id, u.entry_id, u.role, u.tool, u.time, u.cwd, u.active,
         snippet(fts, 0, '«', '»', '…', 12) AS snippet, bm25(fts) AS rank
       FROM fts JOIN units u ON u.id = fts.rowid WHERE ${where.join(" AND ")} ORDER BY rank LIMIT ?`,
        [...args, limit * 4],
      ),
    ) as {
      file: string;
      session_id: string;
      entry_id: string;
      role: UnitRole;
      tool: string | null;
      time: number | null;
      cwd: string;
      active: number;
      snippet: string;
      rank: number;
    }[];
    const now = options.now ?? Date.now();
    const forksOf = forkIndex(options.sessions ?? []);
    return rows
      .map((r): SearchHit => {
        const ageDays = r.time === null ? 365 : Math.max(0, (now - r.time) / 86_400_000);
        const score = -r.rank * (1 + 0.15 * Math.exp(-ageDays / 90) + 0.1 * r.active);
        return {
          file: r.file,
          sessionId: r.session_id,
          entryId: r.entry_id,
          role: r.role,
          tool: r.tool,
          timestamp: r.time === null ? null : new Date(r.time).toISOString(),
          cwd: r.cwd,
          snippet: r.snippet,
          score,
          alsoIn: r.entry_id ? carriers(forksOf, r.file, r.entry_id) : [],
        };
      })
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }
}

/** Forks by parent file. */
function forkIndex(sessions: StoreSession[]): Map<string, StoreSession[]> {
  const m = new Map<string, StoreSession[]>();
  for (const s of sessions) {
    for (const p of s.parent ? [s.parent] : s.parentCandidates) m.set(p.file, [...(m.get(p.file) ?? []), s]);
  }
  return m;
}

/** The forks (and their forks) that carry entry `id` of `file` as a copy. */
function carriers(forksOf: Map<string, StoreSession[]>, file: string, id: string, seen = new Set<string>()): string[] {
  const out: string[] = [];
  for (const f of forksOf.get(file) ?? []) {
    if (seen.has(f.file) || !f.inherited.has(id)) continue;
    seen.add(f.file);
    out.push(f.file, ...carriers(forksOf, f.file, id, seen));
  }
  return out;
}
