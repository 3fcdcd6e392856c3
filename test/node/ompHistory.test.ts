// Oh My Pi's history.db (titles and recaps kept outside the session files; OMP 18.3.4 src/session/session-index.ts):
// read from a copy, never written or locked, its titles used where a session file has none and its latest recap
// kept for the tooltip and the transcript. The fixture is a WAL-mode database whose rows are all in its log, as a
// running OMP leaves it (scripts/fixtures/make-omp-history.py).
import * as assert from "node:assert/strict";
import { cpSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { parseSession } from "../../src/core/session/index.js";
import { loadSqlite } from "../../src/node/sqlite.js";
import { TranscriptDocument } from "../../src/node/views/transcript.js";
import { formatDateTime } from "../../src/protocol/format.js";
import { loadStore, sessionTitle } from "../../src/node/store/index.js";
import { withTempDir } from "../support/helpers.js";

const FIXTURE = join(import.meta.dirname, "..", "..", "fixtures", "omp-history");
const ID = "01a228a4-d9da-7000-a0e4-566c371824f6";

async function listed(agentDir: string, ompHistory = true) {
  const store = await loadStore({
    roots: [{ dir: join(agentDir, "sessions"), agent: "omp", source: "test" }],
    cacheFile: null,
    ompHistory,
  });
  const s = store.sessions.find((x) => x.summary.ok && x.summary.id === ID);
  assert.ok(s, "the session is listed");
  return s;
}

describe("Oh My Pi history.db", () => {
  it("a session's title (its file has none) and latest recap, read without touching the database", async () => {
    await withTempDir(async (dir) => {
      const agent = join(dir, "agent");
      cpSync(FIXTURE, agent, { recursive: true });
      const before = ["history.db", "history.db-wal"].map((f) => [
        readFileSync(join(agent, f)),
        statSync(join(agent, f)).mtimeMs,
      ]);
      const s = await listed(agent);
      assert.equal(s.summary.ok && s.summary.name, null, "the file itself holds no title");
      assert.equal(s.historyTitle, "Acme billing export");
      assert.equal(sessionTitle(s), "Acme billing export");
      assert.deepEqual(s.recap, { text: "CSV export works; <b>next</b>: the PDF invoice.", createdAt: 1795500200 });
      // The transcript's header carries it (the page sets it as text).
      const parsed = parseSession(s.file, readFileSync(s.file));
      assert.ok(parsed.ok);
      const header = new TranscriptDocument(parsed.session, s, undefined).header();
      assert.equal(header.title, "Acme billing export");
      assert.deepEqual(header.recap, s.recap);
      // Never written, never locked: the files are as they were and no shared-memory file appeared beside them.
      ["history.db", "history.db-wal"].forEach((f, i) => {
        assert.deepEqual(readFileSync(join(agent, f)), before[i]![0]);
        assert.equal(statSync(join(agent, f)).mtimeMs, before[i]![1]);
      });
      assert.ok(!existsSync(join(agent, "history.db-shm")));
      // A listing that shows no titles (a usage report) does not read it.
      assert.equal((await listed(agent, false)).historyTitle, undefined);
    });
  });

  it("a changed database is read again", async () => {
    await withTempDir(async (dir) => {
      const agent = join(dir, "agent");
      cpSync(FIXTURE, agent, { recursive: true });
      assert.equal((await listed(agent)).historyTitle, "Acme billing export");
      // OMP renames it (a writer of the database: SQLite, here the product's own).
      const Database = await loadSqlite();
      const db = new Database(join(agent, "history.db"));
      db.exec("PRAGMA locking_mode = EXCLUSIVE");
      db.run("UPDATE session_titles SET title = 'Renamed' WHERE session_id = ?", [ID]);
      db.close();
      assert.equal((await listed(agent)).historyTitle, "Renamed");
    });
  });

  it("a history.db that is garbage, a directory or a FIFO: no title, no error, no hang", async () => {
    for (const plant of ["garbage", "dir", "fifo"] as const) {
      await withTempDir(async (dir) => {
        const agent = join(dir, "agent");
        cpSync(join(FIXTURE, "sessions"), join(agent, "sessions"), { recursive: true });
        const db = join(agent, "history.db");
        if (plant === "garbage") writeFileSync(db, "SQLite format 3\0 but not really".repeat(200));
        else if (plant === "dir") cpSync(join(FIXTURE, "sessions"), db, { recursive: true });
        else execFileSync("mkfifo", [db]);
        const s = await listed(agent);
        assert.equal(s.historyTitle, undefined, plant);
        assert.equal(s.recap, undefined, plant);
        rmSync(db, { recursive: true, force: true });
      });
    }
  });

  it("hostile tables: a generated column is not read, a recap time past any date is unknown, titles stay", async () => {
    await withTempDir(async (dir) => {
      const agent = join(dir, "agent");
      cpSync(join(FIXTURE, "sessions"), join(agent, "sessions"), { recursive: true });
      const Database = await loadSqlite();
      const make = (sql: string) => {
        rmSync(join(agent, "history.db"), { force: true });
        const db = new Database(join(agent, "history.db"));
        db.exec(sql);
        db.close();
      };
      // A title computed as 200 MB of text per row: never evaluated.
      make(
        "CREATE TABLE session_titles (session_id TEXT, n INT, " +
          "title TEXT GENERATED ALWAYS AS (printf('%.*c', 200000000, 'x')) VIRTUAL);" +
          `INSERT INTO session_titles (session_id, n) VALUES ('${ID}', 1);`,
      );
      const started = Date.now();
      assert.equal((await listed(agent)).historyTitle, undefined);
      assert.ok(Date.now() - started < 5000, "not evaluated");
      // A recap table without OMP's id column, a time in microseconds: the title stays, the time is unknown.
      make(
        `CREATE TABLE session_titles (session_id TEXT PRIMARY KEY, title TEXT NOT NULL);` +
          `INSERT INTO session_titles VALUES ('${ID}', 'Kept');` +
          `CREATE TABLE session_recaps (session_id TEXT, cwd TEXT, recap TEXT, created_at INTEGER);` +
          `INSERT INTO session_recaps VALUES ('${ID}', '/', 'R', 1795500200000000);`,
      );
      const s = await listed(agent);
      assert.equal(s.historyTitle, "Kept");
      assert.deepEqual(s.recap, { text: "R", createdAt: 0 });
      // The latest recap with text: a blank or NULL newer one is none; of one second, the last written.
      make(
        "CREATE TABLE session_recaps (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, cwd TEXT, " +
          "recap TEXT, created_at INTEGER);" +
          `INSERT INTO session_recaps (session_id, cwd, recap, created_at) VALUES ('${ID}', '/', 'first', 5), ` +
          `('${ID}', '/', 'second', 5), ('${ID}', '/', NULL, 9), ('${ID}', '/', '  ', 9);`,
      );
      assert.deepEqual((await listed(agent)).recap, { text: "second", createdAt: 5 });
      assert.equal(formatDateTime(1795500200000000 * 1000), "-", "a time past what a Date holds is no time");
    });
  });
});
