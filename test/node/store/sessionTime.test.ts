// Issue #40 (item 3): a session's time is its newest entry's timestamp, not its file's mtime: after a copy or a
// restore every file has the same mtime, and rows, sorting and pickers must still say when each session was used.
// Expectations come from the raw lines' timestamps.
import { strict as assert } from "node:assert";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lastActivity, lastWritten, loadStore } from "../../../src/node/store/index.js";
import { resolveRoots } from "../../../src/node/roots.js";
import { header, message } from "../../support/builders.js";
import { jsonl, withTempDir } from "../../support/helpers.js";

const DAY = 86_400_000;

function session(dir: string, name: string, newest: number): string {
  const file = join(dir, `${name}.jsonl`);
  const at = (t: number) => new Date(t).toISOString();
  writeFileSync(
    file,
    jsonl(
      { ...header({ id: name }), timestamp: at(newest - 60_000) },
      { ...message("u1", null, "user", `prompt of ${name}`), timestamp: at(newest - 30_000) },
      { ...message("a1", "u1", "assistant", "answer"), timestamp: at(newest) },
    ),
  );
  return file;
}

describe("a session's time (#40)", () => {
  for (const cold of [true, false])
    it(`is its newest entry's, whatever the file's mtime (${cold ? "a cold listing" : "from the cache"})`, async () => {
      await withTempDir(async (home) => {
        const dir = join(home, ".pi", "agent", "sessions", "--w--");
        mkdirSync(dir, { recursive: true });
        const now = Date.now();
        const older = session(dir, "older", now - 5 * DAY);
        const newer = session(dir, "newer", now - 2 * DAY);
        // A copy or a restore: both files written just now, the older one last.
        utimesSync(newer, new Date(now - 60_000), new Date(now - 60_000));
        utimesSync(older, new Date(now), new Date(now));
        const roots = resolveRoots({ home, env: {} });
        const cacheFile = cold ? null : join(home, "cache.json");
        if (!cold) await loadStore({ roots, cacheFile }); // writes the cache the second listing answers from
        const store = await loadStore({ roots, cacheFile });
        const byFile = new Map(store.sessions.map((s) => [s.file, s]));
        assert.equal(lastActivity(byFile.get(older)!), now - 5 * DAY);
        assert.equal(lastActivity(byFile.get(newer)!), now - 2 * DAY);
        const newestFirst = [...store.sessions].sort((a, b) => lastActivity(b) - lastActivity(a)).map((s) => s.file);
        assert.deepEqual(newestFirst, [newer, older]);
        // Whether an agent writes it now is still the file's own time.
        assert.equal(Math.round(lastWritten(byFile.get(older)!) / 1000), Math.round(now / 1000));
      });
    });

  it("is the file's mtime only when no line holds a time", async () => {
    await withTempDir(async (home) => {
      const dir = join(home, ".pi", "agent", "sessions", "--w--");
      mkdirSync(dir, { recursive: true });
      const file = join(dir, "untimed.jsonl");
      const { timestamp: _omitted, ...untimed } = header();
      void _omitted;
      writeFileSync(file, jsonl(untimed));
      const when = Date.now() - 3 * DAY;
      utimesSync(file, new Date(when), new Date(when));
      const store = await loadStore({ roots: resolveRoots({ home, env: {} }), cacheFile: null });
      const s = store.sessions.find((x) => x.file === file);
      assert.ok(s, "listed");
      assert.equal(Math.round(lastActivity(s) / 1000), Math.round(when / 1000));
    });
  });
});
