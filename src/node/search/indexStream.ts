/**
 * A long session indexed as it streams past (`SearchIndex.update` for files over `STREAM_BYTES`), in memory bounded
 * by its entry count: each entry's text units are inserted as the entry is read, never the file's bytes or tree held.
 * What indexing it whole gives is given here too (test/node/search/indexStream.test.ts compares the two): units of an
 * entry a later one shadows are removed at the end, the units on the active path marked then, the title slot's unit
 * added, the head and tail kept for appends. It commits every `COMMIT_BYTES` so that other processes' readers are not
 * held off for the whole file; until its last commit the file's row says it is incomplete (size -1), so a run that is
 * stopped midway indexes the file again from its start.
 */
import { LeanSummarizer } from "../../core/leanSummary.js";
import { entryUnits, type TextUnit } from "../../core/search/units.js";
import { readAt, openRegular } from "../fileAccess.js";
import { streamSessionFile, yieldToEventLoop } from "../readSession.js";
import { type Database, retryBusy } from "./indexFile.js";
import { headOf, TAIL_BYTES, tailHash } from "./sessionBytes.js";
import type { IndexTarget } from "./targets.js";

/** Sessions at least this large are indexed as they stream past. */
export const STREAM_BYTES = 32 * 1024 * 1024;
/** Units inserted per statement batch, and bytes read between commits. */
const BATCH_UNITS = 2_000;
const COMMIT_BYTES = 64 * 1024 * 1024;

/** What the index lends the streamer: its connection and how it writes units. */
export interface IndexWriter {
  db: Database;
  begin(): void;
  commit(): void;
  rollback(): void;
  /** Remove what was indexed of the file (all its rows). */
  remove(file: string): void;
  insertUnits(fileId: number, units: TextUnit[], active: (id: string) => boolean, where: (line: number) => Where): void;
}

type Where = { at: number; len: number };

/** The writer over an index's connection (its own `remove` and `insertUnits`). */
export function writerOf(
  db: Database,
  remove: IndexWriter["remove"],
  insertUnits: IndexWriter["insertUnits"],
): IndexWriter {
  return {
    db,
    begin: () => retryBusy(() => db.exec("BEGIN IMMEDIATE")),
    commit: () => retryBusy(() => db.exec("COMMIT")),
    rollback: () => {
      if (db.inTransaction) db.exec("ROLLBACK");
    },
    remove,
    insertUnits,
  };
}

/** Where each line starts, recorded as chunks pass (line 1 at 0). */
class LineStarts {
  private readonly starts: number[] = [0];
  note(bytes: Uint8Array, at: number): void {
    for (let nl = bytes.indexOf(10); nl >= 0; nl = bytes.indexOf(10, nl + 1)) this.starts.push(at + nl + 1);
  }
  /**
   * Line `line` (1-based; 0: the title slot, line 1): its offset and its length before the newline. A line whose
   * newline was not seen (the file's last, unterminated) runs to `size`.
   */
  where(line: number, size: number): Where {
    const n = Math.max(1, line);
    const at = this.starts[n - 1] ?? size;
    const next = this.starts[n];
    return { at, len: (next === undefined ? size : next - 1) - at };
  }

  /** Where the last line starts. */
  get last(): number {
    return this.starts[this.starts.length - 1]!;
  }
}

export async function indexStreamed(w: IndexWriter, t: IndexTarget): Promise<void> {
  const copies = new Set(t.copies ?? []);
  w.begin();
  let fileId: number;
  try {
    w.remove(t.file);
    fileId = Number(
      w.db.run(
        "INSERT INTO files (file, size, mtime, offset, leaf, version, session_id, cwd, slug, title, units, lineage) " +
          "VALUES (?, -1, -1, 0, NULL, NULL, '', ?, ?, ?, 0, ?)",
        [t.file, t.cwd ?? "", t.slug, t.title, t.lineage],
      ).lastInsertRowid,
    );
    for (const p of t.parents) w.db.run("INSERT OR IGNORE INTO lineage (file, parent) VALUES (?, ?)", [t.file, p]);
    for (const entry of copies)
      w.db.run("INSERT OR IGNORE INTO copies (file, entry_id) VALUES (?, ?)", [t.file, entry]);
  } catch (err) {
    w.rollback();
    throw err;
  }
  const lines = new LineStarts();
  const lean = new LeanSummarizer({ touches: false });
  let pending: TextUnit[] = [];
  let units = 0;
  let head: Buffer | null = null;
  let sinceCommit = 0;
  const flush = () => {
    // The entry's line is known once its chunk was noted: the whole file's size stands in for the last line's end.
    w.insertUnits(
      fileId,
      pending,
      () => false,
      (line) => lines.where(line, Number.MAX_SAFE_INTEGER),
    );
    units += pending.length;
    pending = [];
  };
  try {
    const { streamed, id, endsWithNewline } = await streamSessionFile(
      t.file,
      {
        validate: false,
        onEntry: (e, header) => {
          lean.add(e, header);
          if (copies.has(e.id)) return;
          for (const u of entryUnits(e)) pending.push(u);
          if (pending.length >= BATCH_UNITS) flush();
        },
      },
      {
        beforeChunk: (bytes, at) => {
          if (at === 0) head = headOf(bytes);
          lines.note(bytes, at);
        },
        afterChunk: async () => {
          sinceCommit += 4 * 1024 * 1024;
          if (sinceCommit < COMMIT_BYTES) return;
          flush();
          w.commit();
          await yieldToEventLoop();
          w.begin();
          sinceCommit = 0;
        },
      },
    );
    flush();
    if (!streamed.ok || !id) {
      // Unreadable or not a session: indexed as nothing, with its size and time (as indexing it whole does).
      const [size, mtime] = id ? [id.size, Number(id.mtimeNs / 1_000_000n)] : [t.sizeBytes, Math.trunc(t.mtimeMs)];
      w.db.run("UPDATE files SET size = ?, mtime = ?, offset = ? WHERE id = ?", [
        size,
        mtime,
        id ? id.size : 0,
        fileId,
      ]);
      w.db.run("DELETE FROM fts WHERE rowid IN (SELECT id FROM units WHERE file_id = ?)", [fileId]);
      w.db.run("DELETE FROM units WHERE file_id = ?", [fileId]);
      w.commit();
      return;
    }
    await finishFile(w, fileId, t, { lean, lines, streamed, id, endsWithNewline, head, units });
    w.commit();
  } catch (err) {
    w.rollback();
    throw err;
  }
}

interface Streamed {
  lean: LeanSummarizer;
  lines: LineStarts;
  streamed: Extract<Awaited<ReturnType<typeof streamSessionFile>>["streamed"], { ok: true }>;
  id: NonNullable<Awaited<ReturnType<typeof streamSessionFile>>["id"]>;
  endsWithNewline: boolean;
  head: Buffer | null;
  units: number;
}

/** The file's last rows: shadowed entries' units out, the active path marked, the title slot, the head and tail. */
async function finishFile(w: IndexWriter, fileId: number, t: IndexTarget, s: Streamed): Promise<void> {
  const { active, shadowedLines, leafId } = s.lean.indexFacts();
  let units = s.units;
  if (shadowedLines.length) {
    const offsets = JSON.stringify(shadowedLines.map((line) => s.lines.where(line, s.id.size).at));
    const gone = "SELECT id FROM units WHERE file_id = ? AND at IN (SELECT value FROM json_each(?))";
    units -= Number((w.db.get(`SELECT count(*) AS n FROM (${gone})`, [fileId, offsets]) as { n: number }).n);
    w.db.run(`DELETE FROM fts WHERE rowid IN (${gone})`, [fileId, offsets]);
    w.db.run("DELETE FROM units WHERE file_id = ? AND at IN (SELECT value FROM json_each(?))", [fileId, offsets]);
  }
  w.db.run("UPDATE units SET active = 1 WHERE file_id = ? AND entry_id IN (SELECT value FROM json_each(?))", [
    fileId,
    JSON.stringify(active),
  ]);
  const header = s.streamed.header;
  const slot = s.streamed.titleSlot?.title;
  if (slot) {
    const time = Date.parse(String(header.timestamp ?? ""));
    const unit: TextUnit = {
      entryId: "",
      line: 0,
      part: 0,
      role: "meta",
      tool: null,
      text: slot,
      time: Number.isFinite(time) ? time : null,
    };
    w.insertUnits(
      fileId,
      [unit],
      () => true,
      () => s.lines.where(0, s.id.size),
    );
    units++;
  }
  // An unterminated last line was inserted before the file's size was known: it runs to the end.
  if (!s.endsWithNewline)
    w.db.run("UPDATE units SET len = ? WHERE file_id = ? AND at = ?", [s.id.size - s.lines.last, fileId, s.lines.last]);
  const mtime = Number(s.id.mtimeNs / 1_000_000n);
  const version = header.version;
  w.db.run(
    "UPDATE files SET size = ?, mtime = ?, offset = ?, leaf = ?, version = ?, session_id = ?, units = ? WHERE id = ?",
    [
      s.id.size,
      mtime,
      s.id.size,
      leafId,
      typeof version === "number" ? version : null,
      String(header.id ?? ""),
      units,
      fileId,
    ],
  );
  // Appends are taken in from the offset only after whole lines, in files whose entries carry their own ids (v3).
  if (s.head && s.endsWithNewline && typeof version === "number" && version >= 3) {
    const { handle } = await openRegular(t.file);
    let tail: Buffer;
    try {
      tail = await readAt(handle, Math.max(0, s.id.size - TAIL_BYTES), Math.min(TAIL_BYTES, s.id.size));
    } finally {
      await handle.close();
    }
    w.db.run("INSERT INTO heads (file_id, head, tail, ino) VALUES (?, ?, ?, ?)", [
      fileId,
      s.head,
      tailHash(tail),
      String(s.id.ino),
    ]);
  }
}
