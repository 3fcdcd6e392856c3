// Large records' bodies read back from the session file (no copy of the file held): the same answers as a parse of
// the bytes in memory, and when the file changes under a session, the record as the file holds it now, or a clear
// error when it is gone.
import * as assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionChangedError } from "../../src/core/bodySource.js";
import { parseSession, type ParseResult, SessionReader } from "../../src/core/session/index.js";
import { summarize } from "../../src/core/summary.js";
import { treeJson } from "../../src/core/treeJson.js";
import { ChunkFeeder, FileBodySource } from "../../src/node/fileBodies.js";
import { readSessionFile } from "../../src/node/readSession.js";
import { SessionTracker } from "../../src/node/tracker.js";
import { header } from "../support/builders.js";
import { OMP_FIXTURES, PI_FIXTURES, rel } from "../support/fixtures.js";
import { jsonl, plain } from "../support/helpers.js";

const view = (r: ParseResult) =>
  r.ok
    ? plain({
        tree: treeJson(r.session),
        entries: r.session.entries.map((e) => [e.id, e.line, e.retained, e.usage, e.touches, e.data]),
        summary: summarize(r),
        truncatedTail: r.session.truncatedTail,
        endsWithNewline: r.session.endsWithNewline,
      })
    : plain(r);

const message = (id: string, parentId: string | null, text: string) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2026-01-01T00:00:01.000Z",
  message: { role: "user", content: text },
});

const text = (r: ParseResult, i: number) => {
  assert.ok(r.ok);
  return (r.session.entries[i]!.data.message as { content: string }).content;
};

describe("bodies read back from the file", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "pse-bodies-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const file of [...PI_FIXTURES, ...OMP_FIXTURES]) {
    it(`${rel(file)}: reading the file equals parsing its bytes, with every body from the file too`, async () => {
      const bytes = readFileSync(file);
      assert.deepEqual(view(await readSessionFile(file)), view(parseSession(file, bytes)));
      const fromFile = await readSessionFile(file, { retainBytes: 0 });
      assert.deepEqual(view(fromFile), view(parseSession(file, bytes, { retainBytes: 0 })));
    });
  }

  it("a line longer than a read chunk, split across several reads, is one record", async () => {
    const file = join(dir, "long.jsonl");
    const long = "é".repeat(5 * 1024 * 1024);
    writeFileSync(file, jsonl(header({ id: "s" }), message("a", null, long), message("b", "a", "after")));
    const r = await readSessionFile(file);
    assert.equal(text(r, 0), long);
    assert.equal(text(r, 1), "after");
  });

  it("an unterminated last line is reported as pi skips it", async () => {
    const file = join(dir, "cut.jsonl");
    writeFileSync(file, `${jsonl(header({ id: "s" }), message("a", null, "x".repeat(2000)))}{"type":"mess`);
    const r = await readSessionFile(file);
    assert.ok(r.ok);
    assert.equal(r.session.truncatedTail, true);
    assert.equal(r.session.endsWithNewline, false);
    assert.equal(text(r, 0), "x".repeat(2000));
  });

  it("an append leaves bodies as they were; an in-place rewrite that moves records is read again", async () => {
    const file = join(dir, "s.jsonl");
    const records = [header({ id: "s" }), message("a", null, "A".repeat(3000)), message("b", "a", "B".repeat(3000))];
    writeFileSync(file, jsonl(...records));
    const r = await readSessionFile(file);
    appendFileSync(file, jsonl(message("c", "b", "C")));
    assert.equal(text(r, 1), "B".repeat(3000));
    // pi rewrites a file in place when it migrates it: here every record moves by a line.
    writeFileSync(file, jsonl(records[0], message("z", null, "Z".repeat(100)), ...records.slice(1)));
    assert.equal(text(r, 0), "A".repeat(3000));
    assert.equal(text(r, 1), "B".repeat(3000));
  });

  it("a file replaced by rename is read again; a record it lost is a clear error naming the file", async () => {
    const file = join(dir, "s.jsonl");
    writeFileSync(
      file,
      jsonl(header({ id: "s" }), message("a", null, "A".repeat(3000)), message("b", "a", "B".repeat(3000))),
    );
    const r = await readSessionFile(file, { retainBytes: 0 });
    const other = join(dir, "tmp");
    writeFileSync(other, jsonl(header({ id: "s" }), message("b", null, "B2".repeat(1500))));
    renameSync(other, file);
    assert.equal(text(r, 1), "B2".repeat(1500), "the record as the file holds it now");
    assert.throws(
      () => text(r, 0),
      (err: unknown) => err instanceof SessionChangedError && err.message.includes(file) && err.message.includes("a"),
    );
  });

  it("bodies of the lines fed so far read from the file at once, before the read ends (no parse again)", () => {
    const file = join(dir, "s.jsonl");
    const content = jsonl(
      header({ id: "s" }),
      message("a", null, "A".repeat(3000)),
      message("b", "a", "B".repeat(3000)),
    );
    writeFileSync(file, content);
    const reader = new SessionReader(file);
    const source = new FileBodySource(file);
    let recovered = 0;
    const recover = source.recover.bind(source);
    source.recover = (...args) => (recovered++, recover(...args));
    const st = statSync(file, { bigint: true });
    source.identify(st.dev, st.ino);
    const feeder = new ChunkFeeder(reader, source);
    const bytes = Buffer.from(content);
    const cut = bytes.indexOf("\n", bytes.indexOf('"id":"a"')) + 1;
    feeder.push(bytes.subarray(0, cut + 10));
    // Half the file fed, its result taken (a tree asking while a large session loads).
    assert.equal(text(reader.result(), 0), "A".repeat(3000));
    feeder.push(bytes.subarray(cut + 10));
    assert.equal(text(reader.result(), 1), "B".repeat(3000));
    assert.equal(recovered, 0);
  });

  it("a record read between a truncation and the rewrite is found once the write is done", async () => {
    const file = join(dir, "s.jsonl");
    const records = [header({ id: "s" }), message("a", null, "A".repeat(3000)), message("b", "a", "B".repeat(3000))];
    writeFileSync(file, jsonl(...records));
    const r = await readSessionFile(file, { retainBytes: 0 });
    writeFileSync(file, ""); // pi's writeFileSync truncates first
    assert.throws(() => text(r, 0), SessionChangedError);
    writeFileSync(file, jsonl(records[0], message("z", null, "Z"), ...records.slice(1)));
    assert.equal(text(r, 0), "A".repeat(3000), "the failed parse was not kept");
  });

  it("the kinds the tree's index reads are held parsed, so assembling a session never reads the file", async () => {
    const file = join(dir, "s.jsonl");
    const big = "x".repeat(3000);
    writeFileSync(
      file,
      jsonl(
        header({ id: "s" }),
        message("a", null, "hi"),
        {
          type: "compaction",
          id: "c",
          parentId: "a",
          timestamp: "2026-01-01T00:00:02.000Z",
          summary: big,
          firstKeptEntryId: "a",
          tokensBefore: 5,
        },
        { type: "label", id: "l", parentId: "c", timestamp: "2026-01-01T00:00:03.000Z", targetId: "a", label: big },
        { type: "session_info", id: "i", parentId: "l", timestamp: "2026-01-01T00:00:04.000Z", name: big },
      ),
    );
    const r = await readSessionFile(file, { retainBytes: 0 });
    assert.ok(r.ok);
    assert.deepEqual(
      r.session.entries.map((e) => [e.type, e.retained]),
      [
        ["message", false],
        ["compaction", true],
        ["label", true],
        ["session_info", true],
      ],
    );
    rmSync(file);
    assert.equal(r.session.name, big);
    assert.equal(r.session.compactions[0]!.keptFromId, "a");
  });

  it("the live tracker reads bodies from the file: the same answer across appends, in parts and whole", async () => {
    const file = join(dir, "live.jsonl");
    const records = [header({ id: "s" }), message("a", null, "A".repeat(3000))];
    writeFileSync(file, jsonl(...records));
    const t = new SessionTracker(file);
    await t.update();
    // A record arrives in two writes: the first half waits for its newline.
    const next = JSON.stringify(message("b", "a", "B".repeat(5000)));
    appendFileSync(file, next.slice(0, 2000));
    await t.update();
    const partial = t.result();
    assert.ok(partial.ok);
    assert.equal(partial.session.entries.length, 1, "the half-written record waits for its newline");
    appendFileSync(file, `${next.slice(2000)}\n`);
    await t.update();
    const bytes = readFileSync(file);
    assert.deepEqual(view(t.result()), view(parseSession(file, bytes)));
    assert.equal(text(t.result(), 1), "B".repeat(5000));
  });
});
