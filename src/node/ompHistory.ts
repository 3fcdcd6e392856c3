/**
 * Oh My Pi's `history.db` in its agent dir (docs/session-format.md#omp-history-db): `session_titles` (session id →
 * title, written when a session is named; OMP 18.2 and later) and `session_recaps` (an append-only journal of the
 * idle recaps OMP shows, which never enter the session file; 18.3). Read only, with the product's SQLite, from a
 * private copy: OMP keeps the database in WAL mode, and a reader of the live file would take locks OMP's writers
 * wait on. The write-ahead log is copied before the database (a checkpoint between the two copies leaves a database
 * that already holds what the older log adds); a copy that is not a consistent database is an error, and the titles
 * and recaps are then left out until the next change.
 */
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lstatSync } from "node:fs";
import type { SessionSummary } from "../core/summary.js";
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

async function readCopy(db: string): Promise<OmpHistory | null> {
  const size = Number(lstatSync(db).size) + Number(statOf(`${db}-wal`)?.split(":")[0] ?? 0);
  if (size > MAX_BYTES) return null;
  const dir = await mkdtemp(join(tmpdir(), "pi-sessions-omp-history-"));
  try {
    const copy = join(dir, "history.db");
    if (statOf(`${db}-wal`) !== null) await copyFile(`${db}-wal`, `${copy}-wal`);
    await copyFile(db, copy);
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

function queryHistory(db: Handle): OmpHistory {
  const tables = new Set(
    (db.all("SELECT name FROM sqlite_master WHERE type = 'table'") as { name: string }[]).map((r) => r.name),
  );
  const titles = new Map<string, string>();
  if (tables.has("session_titles"))
    for (const r of db.all("SELECT session_id, title FROM session_titles") as Record<string, unknown>[])
      if (typeof r.session_id === "string" && typeof r.title === "string" && r.title.trim())
        titles.set(r.session_id, r.title.slice(0, MAX_TITLE));
  const recaps = new Map<string, OmpRecap>();
  if (tables.has("session_recaps"))
    for (const r of db.all(
      "SELECT session_id, recap, created_at FROM session_recaps ORDER BY created_at, id",
    ) as Record<string, unknown>[])
      if (typeof r.session_id === "string" && typeof r.recap === "string" && r.recap.trim())
        recaps.set(r.session_id, {
          text: r.recap.slice(0, MAX_RECAP),
          createdAt: typeof r.created_at === "number" ? r.created_at : 0,
        });
  return { titles, recaps };
}
