// A long session is indexed as it streams past (src/node/search/indexStream.ts): the index must hold what indexing it
// whole gives, row for row and word for word. Two indexes of one store, one with every session streamed and one with
// none, compared in full (units, their words, files, heads, lineage and copies): real pi, pi 1.6 and OMP sessions
// (forks whose copies are left to their parent, an OMP title slot), a session with every kind of text, duplicate ids
// and cycles, and an unterminated last line. Then an append to a streamed session is taken in alone, as usual.
import * as assert from "node:assert/strict";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSqlite } from "../../../src/node/search/indexFile.js";
import { SearchIndex } from "../../../src/node/search/searchIndex.js";
import { header, message } from "../../support/builders.js";
import { REAL } from "../../support/fixtures.js";
import { jsonl } from "../../support/helpers.js";
import { dump, everyRole, targetsOf } from "./searchHelpers.js";

const ROOTS = [{ dir: "/roots" }];

async function rows(file: string): Promise<unknown[]> {
  const db = new (await loadSqlite())(file);
  try {
    return [
      db.all(
        "SELECT file, size, mtime, offset, leaf, version, session_id, cwd, slug, title, units, lineage FROM files " +
          "ORDER BY file",
      ),
      db.all("SELECT f.file, h.head, h.tail, h.ino FROM heads h JOIN files f ON f.id = h.file_id ORDER BY f.file"),
      db.all("SELECT * FROM lineage ORDER BY file, parent"),
      db.all("SELECT * FROM copies ORDER BY file, entry_id"),
    ];
  } finally {
    db.close();
  }
}

describe("search index: long sessions indexed as they stream past", function () {
  this.timeout(120_000);
  let dir: string;
  let agent: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "pi-index-stream-"));
    agent = join(dir, "agent");
    for (const from of ["pi", "pi-1.6", "omp"])
      cpSync(join(REAL, from, "sessions"), join(agent, "sessions"), { recursive: true });
    const extra = join(agent, "sessions", "--w-extra--");
    mkdirSync(extra, { recursive: true });
    writeFileSync(join(extra, "roles.jsonl"), everyRole());
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const build = async (name: string, streamBytes: number) => {
    const index = await SearchIndex.open(join(dir, name), ROOTS, "", { streamBytes });
    try {
      await index.update(await targetsOf(agent));
      return index.file;
    } finally {
      index.close();
    }
  };

  it("holds what indexing each file whole holds", async () => {
    const t = (n: number) => ({ time: n });
    const extra = join(agent, "sessions", "--w-extra--");
    writeFileSync(
      join(extra, "tree.jsonl"),
      jsonl(
        header({ id: "tree" }),
        message("u1", null, "user", "kestrel prompt", t(1)),
        message("a1", "u1", "assistant", "first heron", t(2)),
        message("a1", "u1", "assistant", "second heron wins", t(3)),
        message("x1", "x2", "user", "cycle puffin", t(4)),
        message("x2", "x1", "user", "cycle puffin too", t(5)),
        message("u2", "a1", "user", "the leaf marten", t(6)),
      ),
    );
    writeFileSync(
      join(extra, "torn.jsonl"),
      jsonl(header({ id: "torn" }), message("u1", null, "user", "plover", t(1))) +
        JSON.stringify(message("u2", "u1", "user", "unterminated avocet", t(2))),
    );
    const whole = await build("whole", Infinity);
    const streamed = await build("streamed", 0);
    assert.ok((await dump(whole))[0] instanceof Array && ((await dump(whole))[0] as unknown[]).length > 100);
    assert.deepEqual(await dump(streamed), await dump(whole));
    assert.deepEqual(await rows(streamed), await rows(whole));
  });

  it("an append to a streamed session is taken in from its new bytes, as for any session", async () => {
    const file = join(agent, "sessions", "--w-extra--", "tree.jsonl");
    const streamedIndex = await SearchIndex.open(join(dir, "streamed"), ROOTS, "", { streamBytes: 0 });
    appendFileSync(file, `${JSON.stringify(message("u3", "u2", "user", "an appended sandpiper", { time: 7 }))}\n`);
    let result;
    try {
      result = await streamedIndex.update(await targetsOf(agent));
    } finally {
      streamedIndex.close();
    }
    assert.equal(result.appended, 1);
    const whole = await build("whole-after", Infinity);
    assert.deepEqual(
      await dump(
        join(
          dir,
          "streamed",
          readdirSync(join(dir, "streamed")).find((f) => f.endsWith(".sqlite"))!,
        ),
      ),
      await dump(whole),
    );
  });
});
