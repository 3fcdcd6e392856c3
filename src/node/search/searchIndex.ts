/**
 * The full-text index of every session in a store (one index file per set of roots): SQLite with FTS5
 * (node-sqlite3-wasm, WebAssembly, so one package runs in every VS Code and Node with no native module), in a file
 * under the cache dir. One row per text unit (src/core/search/units.ts) with its file, session, entry, role and time.
 * Kept current from the listing: a new file is indexed, an append is indexed from the last offset (when the file's
 * head is unchanged and the new entries go on from its last one), any other change indexes the file again, and a
 * deleted file is removed. A fork's copies of its parent's entries are indexed once, in the parent (the store's
 * ownership rule); a hit lists the forks that carry it. A foreign file (not SQLite, another schema version) is
 * replaced on open; damage found later is `isCorruption`, and the caller rebuilds. One writer at a time, by a lock
 * file.
 */
import { existsSync } from "node:fs";
import type { ParsedQuery } from "../../core/search/query.js";
import { sessionUnits, type TextUnit } from "../../core/search/units.js";
import { pathTo, SessionReader } from "../../core/session/index.js";
import { ensurePrivateDir } from "../cacheDir.js";
import { openRegular, readAt, readRegularFile } from "../fileAccess.js";
import { parseSessionSliced } from "../readSession.js";
import {
  type Database,
  type DatabaseClass,
  checkIndexNames,
  loadSqlite,
  ownerOnly,
  readTransaction,
  removeIndexFile,
  retryBusy,
  SCHEMA,
  takeOverDeadSqliteLock,
  takeWriterLock,
  trackIndexFile,
  knownFiles,
  type Known,
  validIndex,
  type WriterLock,
} from "./indexFile.js";
import { indexFileFor, olderIndexFiles } from "./indexName.js";
import { SCHEMA_VERSION } from "./schemaVersion.js";
import { queryIndex, type QueryOptions, type SearchHit, withSnippets } from "./queryIndex.js";
import { appendable, headOf, lineAt, lineStarts, TAIL_BYTES, tailHash } from "./sessionBytes.js";
import type { IndexTarget } from "./targets.js";
import { indexStreamed, STREAM_BYTES, writerOf } from "./indexStream.js";

export { isCorruption } from "./indexFile.js";

/** What `update` did: files indexed (of them, taken in from their appended bytes alone), removed, left pending. */
export interface UpdateResult {
  indexed: number;
  appended: number;
  removed: number;
  /** Left to another process, which holds the writer's lock. */
  pending: number;
}

/** What the index holds. */
export interface IndexStats {
  sessions: number;
  entries: number;
}

export class SearchIndex {
  private constructor(
    private readonly db: Database,
    readonly file: string,
    /** The index was found corrupt or of another version, and rebuilt empty. */
    readonly rebuilt: boolean,
    /** The writer's lock; null when another process writes (this one only reads what is there). */
    private lock: WriterLock | null,
  ) {
    // The lock is refreshed while it is held, so that only a dead holder's goes stale.
    if (lock) this.refresher = setInterval(() => lock.refresh(), 60_000).unref();
  }

  private refresher: NodeJS.Timeout | null = null;

  /** Close it and delete its file (after `isCorruption`): the next `open` builds it again. */
  discard(): void {
    this.close();
    removeIndexFile(this.file);
  }

  /** Whether this process may update the index (it holds the writer's lock). */
  get writable(): boolean {
    return this.lock !== null;
  }

  /**
   * Open (or create) the index in `cacheDir` for `roots` (`variant`: the extension set to list fewer of their
   * sessions, see indexName.ts). One process at a time writes, by a lock file; it alone checks the file
   * and replaces one that is not a valid index of this version. Any other opens what is there to read it, and its
   * calls wait while the writer commits a session. Readers never wait for the writer to finish.
   */
  static async open(
    cacheDir: string,
    roots: readonly { dir: string }[],
    variant = "",
    options: { streamBytes?: number } = {},
  ): Promise<SearchIndex> {
    const Database = await loadSqlite();
    // The index holds what the sessions hold: readable by the owner only (a new cache dir too).
    ensurePrivateDir(cacheDir);
    const file = indexFileFor(cacheDir, roots, variant);
    checkIndexNames(file);
    // Not `<db>.lock`: node-sqlite3-wasm's own file locking uses that name.
    const release = takeWriterLock(`${file}.writer`);
    let rebuilt = false;
    let valid = false;
    let busy = false;
    if (release) {
      takeOverDeadSqliteLock(file);
      for (const old of olderIndexFiles(file)) removeIndexFile(old);
      const state = existsSync(file) ? validIndex(Database, file) : "invalid";
      valid = state === "valid";
      busy = state === "busy";
    }
    if (release && !valid && !busy && existsSync(file)) {
      removeIndexFile(file);
      rebuilt = true;
    }
    if (!release && !existsSync(file)) return SearchIndex.empty(Database, file);
    trackIndexFile(file, true);
    // Created (or kept) owner-only before SQLite opens it; SQLite gives its journal the same mode.
    if (release) ownerOnly(file);
    const db = new Database(file);
    // A valid index has this version's schema (the version is bumped with it): written only into a new one.
    if (release) {
      if (!valid) {
        retryBusy(() => db.exec(SCHEMA));
        retryBusy(() => db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`));
      }
    } else if (!retryBusy(() => db.get("SELECT 1 AS ok FROM sqlite_master WHERE name = 'fts'"))) {
      db.close();
      return SearchIndex.empty(Database, file);
    }
    const index = new SearchIndex(db, file, rebuilt, release);
    if (options.streamBytes !== undefined) index.streamBytes = options.streamBytes;
    return index;
  }

  /** Sessions at least this large are indexed as they stream past (indexStream.ts). */
  private streamBytes = STREAM_BYTES;

  /** The writer is creating the index right now: answer from an empty one (and say what is pending). */
  private static empty(Database: DatabaseClass, file: string): SearchIndex {
    const db = new Database(":memory:");
    db.exec(SCHEMA);
    return new SearchIndex(db, file, false, null);
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
    trackIndexFile(this.file, false);
    if (this.refresher) clearInterval(this.refresher);
    this.lock?.release();
    this.lock = null;
  }

  /** The indexed files with the size and mtime seen when they were indexed. */
  known(): Map<string, Known> {
    return knownFiles(this.db);
  }

  /** `known` for these files only. */
  private knownOf(files: readonly string[]): Map<string, Known> {
    const out = new Map<string, Known>();
    readTransaction(this.db, () => {
      for (const file of files) {
        const k = retryBusy(() =>
          this.db.get("SELECT size, mtime, lineage FROM files WHERE file = ?", [file]),
        ) as Known | null;
        if (k) out.set(file, k);
      }
    });
    return out;
  }

  /** The targets whose file differs from what was indexed (new or changed). */
  changed(targets: readonly IndexTarget[], known = this.known()): IndexTarget[] {
    return targets.filter((t) => {
      const k = known.get(t.file);
      // A fork whose parent was found or went away owns other entries now: indexed again.
      return !k || k.size !== t.sizeBytes || k.mtime !== Math.trunc(t.mtimeMs) || k.lineage !== t.lineage;
    });
  }

  /**
   * Bring the index up to the store. `targets` are the listed sessions (or, with `removed`, only those that changed
   * and the files that went away); files indexed but not listed are removed. Returns what was done; `pending` when
   * another writer holds the lock.
   */
  async update(
    targets: readonly IndexTarget[],
    options: { removed?: readonly string[]; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<UpdateResult> {
    // A change set (`removed` given) looks up its own files; a whole listing compares every file.
    const known = options.removed ? this.knownOf([...targets.map((t) => t.file), ...options.removed]) : this.known();
    const changed = this.changed(targets, known);
    const listed = new Set(targets.map((t) => t.file));
    const removed = (options.removed ?? [...known.keys()].filter((f) => !listed.has(f))).filter((f) => known.has(f));
    const result: UpdateResult = { indexed: 0, appended: 0, removed: 0, pending: 0 };
    if (!changed.length && !removed.length) return result;
    if (!this.writable) return { ...result, pending: changed.length + removed.length };
    for (const file of removed) this.transaction(() => this.remove(file));
    result.removed = removed.length;
    for (const t of changed) {
      const k = known.get(t.file);
      if (k && k.lineage === t.lineage && (await this.indexAppended(t))) result.appended++;
      else if (t.sizeBytes >= this.streamBytes)
        await indexStreamed(
          writerOf(this.db, (f) => this.remove(f), this.insertUnits.bind(this)),
          t,
        );
      else await this.indexWhole(t);
      result.indexed++;
      options.onProgress?.(result.indexed, changed.length);
    }
    return result;
  }

  /** One transaction per session: readers in other processes wait at most for one session's commit. */
  private transaction(fn: () => void): void {
    retryBusy(() => this.db.exec("BEGIN IMMEDIATE"));
    try {
      fn();
      retryBusy(() => this.db.exec("COMMIT"));
    } catch (err) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      throw err;
    }
  }

  private remove(file: string): void {
    const row = this.db.get("SELECT id FROM files WHERE file = ?", [file]) as { id: number } | null;
    if (row) {
      this.db.run("DELETE FROM fts WHERE rowid IN (SELECT id FROM units WHERE file_id = ?)", [row.id]);
      this.db.run("DELETE FROM units WHERE file_id = ?", [row.id]);
      this.db.run("DELETE FROM heads WHERE file_id = ?", [row.id]);
      this.db.run("DELETE FROM files WHERE id = ?", [row.id]);
    }
    for (const table of ["lineage", "copies"]) this.db.run(`DELETE FROM ${table} WHERE file = ?`, [file]);
  }

  /** Insert units, each with where its line is in its file (`where`: offset, and length before the newline). */
  private insertUnits(
    fileId: number,
    units: TextUnit[],
    active: (id: string) => boolean,
    where: (line: number) => { at: number; len: number },
  ): void {
    const unit = this.db.prepare(
      "INSERT INTO units (file_id, entry_id, role, tool, time, active, at, len, part) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    const text = this.db.prepare("INSERT INTO fts (rowid, text) VALUES (?, ?)");
    try {
      for (const u of units) {
        const { at, len } = where(u.line);
        const r = unit.run([fileId, u.entryId, u.role, u.tool, u.time, active(u.entryId) ? 1 : 0, at, len, u.part]);
        // SQLite ends a bound text at a NUL: what follows would not be indexed (text hidden from search).
        text.run([r.lastInsertRowid, u.text.includes("\0") ? u.text.replace(/\0/g, " ") : u.text]);
      }
    } finally {
      unit.finalize();
      text.finalize();
    }
  }

  /** Index a file from its first byte (after removing what was indexed of it). */
  private async indexWhole(t: IndexTarget): Promise<void> {
    let read: { bytes: Buffer; size: number; mtime: number; ino: string } | null = null;
    try {
      const { bytes, id } = await readRegularFile(t.file);
      read = { bytes, size: id.size, mtime: Number(id.mtimeNs / 1_000_000n), ino: String(id.ino) };
    } catch {
      // Unreadable now (gone, not a regular file): nothing of it is indexed until it changes.
    }
    const parsed = read ? await parseSessionSliced(t.file, read.bytes, { validate: false }) : null;
    const session = parsed?.ok ? parsed.session : null;
    const units = session ? sessionUnits(session, t.copies ? new Set(t.copies) : undefined) : [];
    const active = new Set(session ? pathTo(session, session.leafId).map((e) => e.id) : []);
    const bytes = read?.bytes ?? Buffer.alloc(0);
    // Appends are taken in from `offset` only after whole lines (a last line without its newline may be parsed).
    const whole = bytes.length === 0 || bytes[bytes.length - 1] === 10;
    const head = session && whole && appendable(session) ? headOf(bytes) : null;
    const starts = lineStarts(bytes);
    this.transaction(() => {
      this.remove(t.file);
      const version = session?.header.version;
      const { lastInsertRowid: fileId } = this.db.run(
        "INSERT INTO files (file, size, mtime, offset, leaf, version, session_id, cwd, slug, title, units, lineage) " +
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
          t.file,
          read?.size ?? t.sizeBytes,
          read?.mtime ?? Math.trunc(t.mtimeMs),
          bytes.length,
          session?.leafId ?? null,
          typeof version === "number" ? version : null,
          session ? String(session.header.id ?? "") : "",
          t.cwd ?? "",
          t.slug,
          t.title,
          units.length,
          t.lineage,
        ],
      );
      const id = Number(fileId);
      // The title slot (no entry) is the session's, on every branch.
      const onPath = (entry: string) => entry === "" || active.has(entry);
      this.insertUnits(id, units, onPath, (line) => lineAt(bytes, starts, line));
      if (head)
        this.db.run("INSERT INTO heads (file_id, head, tail, ino) VALUES (?, ?, ?, ?)", [
          id,
          head,
          tailHash(bytes),
          read!.ino,
        ]);
      for (const p of t.parents) this.db.run("INSERT OR IGNORE INTO lineage (file, parent) VALUES (?, ?)", [t.file, p]);
      for (const entry of t.copies ?? [])
        this.db.run("INSERT OR IGNORE INTO copies (file, entry_id) VALUES (?, ?)", [t.file, entry]);
    });
  }

  /**
   * Index only the bytes appended since the file was indexed. False (and nothing done) when that would not give what
   * indexing it whole gives: the head changed (a rewrite, OMP's title slot, a migration), the file shrank, or the new
   * entries do not go on from the last one (a branch moves the active path) or reuse an id.
   */
  private async indexAppended(t: IndexTarget): Promise<boolean> {
    const row = retryBusy(() =>
      this.db.get(
        "SELECT f.id, f.size, f.mtime, f.offset, f.leaf, h.head, h.tail, h.ino FROM files f " +
          "JOIN heads h ON h.file_id = f.id WHERE f.file = ?",
        [t.file],
      ),
    ) as {
      id: number;
      size: number;
      mtime: number;
      offset: number;
      leaf: string | null;
      head: Uint8Array;
      tail: Uint8Array;
      ino: string;
    } | null;
    if (!row) return false;
    let opened;
    try {
      opened = await openRegular(t.file);
    } catch {
      return false;
    }
    const { handle, id } = opened;
    const mtime = Number(id.mtimeNs / 1_000_000n);
    // Nothing happened since it was indexed (the listing saw the file before the index read it).
    if (String(id.ino) === row.ino && id.size === row.size && mtime === row.mtime) {
      await handle.close();
      return true;
    }
    let tail: Buffer;
    let before: Buffer;
    try {
      // Another file (a rename over it), one that shrank or was rewritten at its size, or other bytes where the
      // index stopped: not an append.
      if (String(id.ino) !== row.ino || id.size <= row.size || id.size < row.offset) return false;
      if (!(await readAt(handle, 0, row.head.length)).equals(row.head)) return false;
      const tailLength = Math.min(TAIL_BYTES, row.offset);
      before = await readAt(handle, row.offset - tailLength, tailLength);
      if (!Buffer.from(row.tail).equals(tailHash(before))) return false;
      tail = await readAt(handle, row.offset, id.size - row.offset);
    } finally {
      await handle.close();
    }
    const whole = tail.subarray(0, tail.lastIndexOf(10) + 1);
    const reader = new SessionReader(t.file, { validate: false });
    const headLines = reader.feedChunk(row.head).lines;
    reader.feedChunk(whole, headLines + 1);
    const parsed = reader.result(true);
    // A line that is not a record starts where a whole line should: the bytes moved (an edit before the offset).
    if (!parsed.ok || parsed.session.diagnostics.some((d) => d.code === "malformed-json" || d.code === "not-an-object"))
      return false;
    const entries = parsed.session.entries;
    if (new Set(entries.map((e) => e.id)).size !== entries.length) return false;
    let previous = row.leaf;
    for (const e of entries) {
      if (e.parentId !== previous) return false;
      previous = e.id;
    }
    // Copies of a parent's entries written after the fork's first lines: the listing's ownership decides, in full.
    const copies = new Set(t.copies ?? []);
    if (entries.some((e) => copies.has(e.id))) return false;
    const ids = JSON.stringify(entries.map((e) => e.id));
    const reused = retryBusy(() =>
      this.db.get(
        "SELECT 1 AS hit FROM units WHERE file_id = ? AND entry_id IN (SELECT value FROM json_each(?)) LIMIT 1",
        [row.id, ids],
      ),
    );
    if (reused) return false;
    // The title slot is the head's, indexed already; every new entry is on the active path (they chain from the leaf).
    const units = sessionUnits(parsed.session).filter((u) => u.entryId !== "");
    // The chunk's lines are numbered after the head's: their offsets are the chunk's plus where the chunk starts.
    const starts = lineStarts(whole);
    const where = (line: number) => {
      const at = lineAt(whole, starts, line - headLines);
      return { at: at.at + row.offset, len: at.len };
    };
    this.transaction(() => {
      this.insertUnits(row.id, units, () => true, where);
      this.db.run(
        "UPDATE files SET size = ?, mtime = ?, offset = ?, leaf = ?, title = ?, units = units + ? WHERE id = ?",
        [id.size, mtime, row.offset + whole.length, previous, t.title, units.length, row.id],
      );
      this.db.run("UPDATE heads SET tail = ? WHERE file_id = ?", [tailHash(Buffer.concat([before, whole])), row.id]);
    });
    return true;
  }

  /** Each indexed file's project and slug folder (to scope a query to a workspace without the listing). */
  placements(): { file: string; cwd: string | null; slug: string | null }[] {
    return retryBusy(() => this.db.all("SELECT file, cwd, slug FROM files")) as {
      file: string;
      cwd: string | null;
      slug: string | null;
    }[];
  }

  stats(): IndexStats {
    const n = (sql: string) => Number((retryBusy(() => this.db.get(sql)) as { n: number } | null)?.n ?? 0);
    // Counted from the files' rows: counting the units' rows reads the whole table.
    return readTransaction(this.db, () => ({
      sessions: n("SELECT count(*) AS n FROM files"),
      entries: n("SELECT total(units) AS n FROM files"),
    }));
  }

  /**
   * The best hits of a parsed query (src/node/search/queryIndex.ts): bm25, with a mild boost for recent entries and
   * for the active path; thinking only when asked for (`role:thinking`).
   */
  query(q: ParsedQuery & { ok: true }, options: QueryOptions = {}): SearchHit[] {
    return withSnippets(
      readTransaction(this.db, () => queryIndex(this.db, q, options)),
      q.terms,
    );
  }
}
