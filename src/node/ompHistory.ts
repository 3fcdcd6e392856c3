/**
 * Oh My Pi's `history.db` in its agent dir (docs/session-format.md#omp-history-db): `session_titles` (session id →
 * title, written when a session is named; OMP 18.2 and later) and `session_recaps` (an append-only journal of the
 * idle recaps OMP shows, which never enter the session file; 18.3). Read only, with the product's SQLite, from a
 * private copy: OMP keeps the database in WAL mode, and a reader of the live file would take locks OMP's writers
 * wait on. The write-ahead log is copied before the database (a checkpoint between the two copies leaves a database
 * that already holds what the older log adds); a copy that is not a consistent database is an error, and the titles
 * and recaps are then left out until the next change.
 */
import { createWriteStream, lstatSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { SessionSummary } from "../core/summary.js";
import { openRegular } from "./fileAccess.js";
import { agentDirOf } from "./piSettings.js";
import { loadSqlite } from "./sqlite.js";

export interface OmpRecap {
  text: string;
  /** Seconds since the epoch, as OMP writes `created_at`. */
  createdAt: number;
}

export interface OmpHistory {
  titles: Map<string, string>;
  /** Each session's latest recap. */
  recaps: Map<string, OmpRecap>;
}

/** A history this large is not copied (it also holds OMP's prompt history, which grows without bound). */
const MAX_BYTES = 256 * 1024 * 1024;
/** Titles and recaps are one line of the tree and a paragraph of a tooltip: longer ones are cut. */
const MAX_TITLE = 500;
const MAX_RECAP = 4000;

const cached = new Map<string, { signature: string; history: OmpHistory | null }>();

/** Size and time of a regular file, or null (none, or not a regular file: a link, a FIFO, a directory). */
function statOf(path: string): string | null {
  try {
    const st = lstatSync(path);
    return st.isFile() ? `${st.size}:${st.mtimeMs}:${st.ino}` : null;
  } catch {
    return null;
  }
}

/**
 * The titles and recaps of `agentDir/history.db`, or null when there is none or it cannot be read. Read again only
 * when the database or its log changed since the last read.
 */
async function readOmpHistory(agentDir: string): Promise<OmpHistory | null> {
  const db = join(agentDir, "history.db");
  const dbStat = statOf(db);
  if (dbStat === null) return null;
  const signature = `${dbStat}|${statOf(`${db}-wal`) ?? "-"}`;
  const hit = cached.get(db);
  if (hit?.signature === signature) return hit.history;
  const history = await readCopy(db).catch(() => null);
  if (cached.size > 16) cached.clear();
  cached.set(db, { signature, history });
  return history;
}

/** What a listed session takes from OMP's history: the title its file lacks, its latest recap. */
interface HistoryTarget {
  root: { dir: string };
  summary: SessionSummary;
  historyTitle?: string;
  recap?: OmpRecap;
}

/** Give each OMP session of the list its title and recap from its agent dir's `history.db`, where there are any. */
export async function attachOmpHistory(sessions: HistoryTarget[]): Promise<void> {
  const byAgentDir = new Map<string, HistoryTarget[]>();
  for (const s of sessions) {
    const dir = s.summary.ok && s.summary.flavor === "omp" ? agentDirOf(s.root.dir) : null;
    if (dir) byAgentDir.set(dir, [...(byAgentDir.get(dir) ?? []), s]);
  }
  for (const [dir, list] of byAgentDir) {
    const history = await readOmpHistory(dir);
    if (!history) continue;
    for (const s of list) {
      if (!s.summary.ok) continue;
      const title = history.titles.get(s.summary.id);
      const recap = history.recaps.get(s.summary.id);
      if (title) s.historyTitle = title;
      if (recap) s.recap = recap;
    }
  }
}

/** Copy one regular file through a handle (a FIFO, a device or a directory is refused, never opened blocking). */
async function copyRegular(from: string, to: string, budget: { bytes: number }): Promise<void> {
  const { handle, id } = await openRegular(from);
  try {
    budget.bytes -= id.size;
    if (budget.bytes < 0) throw new Error(`${from} is over ${MAX_BYTES} bytes`);
    await pipeline(handle.createReadStream({ autoClose: false }), createWriteStream(to, { flags: "wx", mode: 0o600 }));
  } finally {
    await handle.close();
  }
}

async function readCopy(db: string): Promise<OmpHistory | null> {
  const dir = await mkdtemp(join(tmpdir(), "pi-sessions-omp-history-"));
  try {
    const copy = join(dir, "history.db");
    const budget = { bytes: MAX_BYTES };
    if (statOf(`${db}-wal`) !== null) await copyRegular(`${db}-wal`, `${copy}-wal`, budget);
    await copyRegular(db, copy, budget);
    const Database = await loadSqlite();
    const handle = new Database(copy);
    try {
      // The copy is ours alone: an exclusive lock lets SQLite read the log without shared memory.
      handle.exec("PRAGMA locking_mode = EXCLUSIVE");
      return queryHistory(handle);
    } finally {
      handle.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

type Handle = InstanceType<Awaited<ReturnType<typeof loadSqlite>>>;

/** At most this many rows of each table are read (one per session: more than any store holds). */
const MAX_ROWS = 500_000;

/**
 * Whether `table` is a plain table with these columns as stored values: a view, a virtual table or a generated
 * column (which would run arbitrary SQL as it is read, at any cost) is not read.
 */
function plainTable(db: Handle, table: string, columns: string[]): boolean {
  const row = db.get("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [table]) as {
    sql?: unknown;
  } | null;
  if (!row || typeof row.sql !== "string" || /^\s*create\s+virtual/i.test(row.sql)) return false;
  const info = db.all(`PRAGMA table_xinfo(${table})`) as { name: unknown; hidden: unknown }[];
  const stored = new Set(info.filter((c) => c.hidden === 0).map((c) => c.name));
  return info.every((c) => c.hidden === 0) && columns.every((c) => stored.has(c));
}

/** `created_at` as OMP writes it (seconds); anything a Date cannot hold is unknown (0). */
const seconds = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && Math.abs(v) <= 8.64e12 ? v : 0);

/** Rows of one query, or none when the table is not as OMP makes it (a query error leaves the other table). */
function rowsOf(db: Handle, sql: string): Record<string, unknown>[] {
  try {
    return db.all(sql) as Record<string, unknown>[];
  } catch {
    return [];
  }
}

function queryHistory(db: Handle): OmpHistory {
  const titles = new Map<string, string>();
  const recaps = new Map<string, OmpRecap>();
  if (plainTable(db, "session_titles", ["session_id", "title"]))
    for (const r of rowsOf(
      db,
      `SELECT session_id, substr(title, 1, ${MAX_TITLE}) AS title FROM session_titles LIMIT ${MAX_ROWS}`,
    ))
      if (typeof r.session_id === "string" && typeof r.title === "string" && r.title.trim())
        titles.set(r.session_id, r.title);
  if (plainTable(db, "session_recaps", ["session_id", "recap", "created_at"]))
    // Each session's latest recap with text: the newest time, and of one second the last written.
    for (const r of rowsOf(
      db,
      `SELECT session_id, recap, created_at FROM (SELECT session_id, substr(recap, 1, ${MAX_RECAP}) AS recap, ` +
        "created_at, row_number() OVER (PARTITION BY session_id ORDER BY created_at DESC, rowid DESC) AS n " +
        "FROM session_recaps WHERE recap IS NOT NULL AND trim(recap) <> '') " +
        `WHERE n = 1 LIMIT ${MAX_ROWS}`,
    ))
      if (typeof r.session_id === "string" && typeof r.recap === "string")
        recaps.set(r.session_id, { text: r.recap, createdAt: seconds(r.created_at) });
  return { titles, recaps };
}
