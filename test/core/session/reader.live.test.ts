// Incremental reading (SessionReader, SessionTracker) and the file watcher, on real files (the live library:
// library.test.ts).
import * as assert from "node:assert/strict";
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseSession, type ParseResult, SessionReader } from "../../../src/core/session/index.js";
import { extendSummary, summarize } from "../../../src/core/summary.js";
import { SessionTracker } from "../../../src/node/tracker.js";
import { SessionWatcher } from "../../../src/node/watcher.js";
import { compaction, header, iso, label, message, usage } from "../../support/builders.js";
import { feedInChunks, jsonl, plain, sleep, waitFor } from "../../support/helpers.js";
import { OMP_FIXTURES, PI_FIXTURES, rel } from "../../support/fixtures.js";

/** What a parse result says, without object identity (comparable across readers). */
function view(r: ParseResult) {
  if (!r.ok) return { rejection: r.rejection, diagnostics: r.diagnostics };
  const s = r.session;
  return plain({
    entries: s.entries.map((e) => [e.id, e.parentId, e.type, e.line, !!e.shadowed, e.role, e.usage, e.data]),
    children: [...s.children],
    roots: s.roots,
    leafId: s.leafId,
    labels: [...s.labels],
    name: s.name,
    compactions: s.compactions,
    diagnostics: s.diagnostics,
    truncatedTail: s.truncatedTail,
    endsWithNewline: s.endsWithNewline,
  });
}

describe("SessionReader: feeding a file in chunks equals parsing it whole", () => {
  for (const file of [...PI_FIXTURES, ...OMP_FIXTURES]) {
    it(rel(file), () => {
      const bytes = readFileSync(file);
      const whole = parseSession(file, bytes);
      // Irregular chunk sizes, and a result() in between that must not disturb later feeds.
      const reader = new SessionReader(file);
      const ends = feedInChunks(reader, bytes, [1, 3, 2, 6, 4, 5], () => reader.result());
      assert.deepEqual(view(reader.result(ends)), view(whole));
    });
  }
});

describe("SessionReader: appends that are not plain (the index is rebuilt, and the answer is pi's)", () => {
  const t = iso;
  const m = (id: string, parentId: string | null, time: string | undefined, extra: Record<string, unknown> = {}) => ({
    type: "message",
    id,
    parentId,
    timestamp: time,
    message: { role: "user", content: id },
    ...extra,
  });
  const cases: [string, unknown[]][] = [
    [
      "a later sibling with an earlier timestamp (T26)",
      [m("a", null, t(1)), m("b", "a", t(5)), m("c", "a", t(3)), m("d", "a", t(3)), m("e", "a", t(9))],
    ],
    [
      "a reused id (the later entry wins)",
      [m("a", null, t(1)), m("b", "a", t(2)), m("b", "a", t(3)), m("c", "b", t(4))],
    ],
    ["an orphan whose parent arrives later", [m("a", null, t(1)), m("c", "b", t(2)), m("b", "a", t(3))]],
    [
      "a parent cycle, then a child of it",
      [m("a", null, t(1)), m("x", "y", t(2)), m("y", "x", t(3)), m("z", "y", t(4))],
    ],
    [
      "self-parents and missing timestamps",
      [m("a", "a", t(1)), m("b", "a", undefined), m("c", "a", t(2)), m("d", "a", "not a date")],
    ],
    [
      "labels, names and titles as they come",
      [
        m("a", null, t(1)),
        label("l1", "a", "a", "x", { time: 2 }),
        { type: "session_info", id: "s1", parentId: "l1", timestamp: t(3), name: "N" },
        label("l2", "s1", "a", "", { time: 4 }),
      ],
    ],
  ];
  it("a child and its later-listed parent in one appended batch", () => {
    const text = jsonl(header(), m("a", null, t(1)), m("c", "b", t(3)), m("b", "a", t(2)));
    const reader = new SessionReader("x");
    feedInChunks(reader, Buffer.from(text), [2, 10], () => reader.result());
    assert.deepEqual(view(reader.result()), view(parseSession("x", text)));
  });

  for (const [name, records] of cases) {
    it(name, () => {
      const text = jsonl(header(), ...records);
      const whole = parseSession("x", text);
      const reader = new SessionReader("x");
      feedInChunks(reader, Buffer.from(text), [1], () => reader.result());
      assert.deepEqual(view(reader.result()), view(whole));
    });
  }
});

describe("compactions' kept ranges: one index for a whole file equals a walk per appended compaction", () => {
  it("random trees with cycles, orphans, self-parents, duplicate ids and forward parents", () => {
    let above = 0;
    let notAbove = 0;
    let seed = 11;
    const next = (n: number) => {
      seed ^= seed << 13; // xorshift32: integer arithmetic only
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    for (let round = 0; round < 40; round++) {
      const ids: string[] = [];
      const records: unknown[] = [];
      for (let i = 0; i < 200; i++) {
        const id = next(20) === 0 && ids.length ? ids[next(ids.length)]! : `e${i}`; // sometimes a duplicate id
        // Mostly a chain with side branches (so that kept entries are often above), and every odd shape besides.
        const r = next(20);
        const previous = ids.at(-1) ?? null;
        const parent =
          i === 0 || r === 0
            ? null
            : r === 1
              ? "missing"
              : r === 2
                ? id
                : r === 3
                  ? `e${i + 1 + next(5)}`
                  : r < 7
                    ? ids[next(ids.length)]!
                    : previous;
        const k = next(4);
        const kept = k === 0 ? "nowhere" : k === 1 ? (ids[next(ids.length)] ?? "e0") : (ids.at(-1 - next(10)) ?? "e0");
        records.push(
          next(3) === 0
            ? compaction(id, parent as string, kept, { time: i })
            : message(id, parent, "user", "hi", { time: i }),
        );
        ids.push(id);
      }
      const text = jsonl(header(), ...records);
      const whole = parseSession("x", text);
      assert.ok(whole.ok && whole.session.compactions.length > 16, "the index path");
      const reader = new SessionReader("x");
      feedInChunks(reader, Buffer.from(text), [1], () => reader.result());
      const fed = reader.result();
      assert.ok(fed.ok);
      assert.deepEqual(plain(fed.session.compactions), plain(whole.session.compactions), `round ${round}`);
      for (const c of whole.session.compactions) {
        if (c.keptFromId) above++;
        else notAbove++;
      }
    }
    assert.ok(above > 100 && notAbove > 100, `kept above: ${above}, not: ${notAbove}`);
  });
});

describe("SessionTracker: follows a file while an agent writes it", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "pi-tracker-"));
  });
  // A library may still be writing its cache (temp file + rename) when a test ends.
  afterEach(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));

  const piFile = PI_FIXTURES.find((f) => f.includes("d4f8"))!;
  const ompFile = OMP_FIXTURES.find((f) => f.includes("d97d"))!;
  const entryLine = (id: string, parentId: string, text = "next") =>
    jsonl(message(id, parentId, "user", text, { time: "2026-11-29T19:00:00.000Z" }));

  it("reads appended bytes only, and always equals a full parse", async () => {
    const file = join(dir, "s.jsonl");
    writeFileSync(file, readFileSync(piFile));
    const t = new SessionTracker(file);
    assert.deepEqual(await t.update(), { change: "initial", bytesRead: statSync(file).size });
    assert.deepEqual(view(t.result()), view(parseSession(file, readFileSync(file))));
    const headerBytes = readFileSync(file, "utf8").split("\n")[0]!.length + 1;
    let parent = (t.result() as { session: { leafId: string } }).session.leafId;
    let summary = summarize(t.result());
    for (let i = 0; i < 5; i++) {
      // Branch off an earlier entry now and then: the active path moves, and a branch point appears; an assistant
      // reply from another model changes the session's model.
      const line =
        i === 4
          ? jsonl(
              message(`n${i}`, parent, "assistant", "ok", {
                time: "2026-11-29T19:00:00.000Z",
                usage: usage(1, 1, 0.5),
              }),
            )
          : entryLine(`n${i}`, i === 2 ? "c699fe70" : parent);
      appendFileSync(file, line);
      const u = await t.update();
      assert.equal(u.change, "appended");
      assert.equal(
        u.bytesRead,
        Buffer.byteLength(line) + headerBytes,
        "the appended line plus the first line (rewrite check)",
      );
      assert.deepEqual(view(t.result()), view(parseSession(file, readFileSync(file))));
      // The listing summary, extended by the new entry only, equals a fresh one.
      const extended = extendSummary(summary, t.result());
      summary = summarize(t.result());
      assert.deepEqual(plain(extended), plain(summary));
      if (i === 4) assert.equal(extended.ok && extended.model, "openai/gpt-5.1");
      parent = `n${i}`;
    }
    assert.deepEqual(await t.update(), { change: "unchanged", bytesRead: 0 });
  });

  it("holds a partial last line back, reports it, and never reads it twice", async () => {
    const file = join(dir, "s.jsonl");
    writeFileSync(file, readFileSync(piFile));
    const t = new SessionTracker(file);
    await t.update();
    const before = view(t.result()) as { entries: unknown[] };
    const line = entryLine("p1", "3603b1f1");
    appendFileSync(file, line.slice(0, 30));
    const u1 = await t.update();
    const r1 = t.result();
    assert.ok(r1.ok);
    assert.equal(r1.session.entries.length, before.entries.length, "the partial line is not an entry");
    assert.equal(r1.session.truncatedTail, true);
    assert.equal(r1.session.diagnostics.at(-1)!.code, "truncated-last-line");
    assert.equal(r1.session.diagnostics.at(-1)!.line, 28);
    appendFileSync(file, line.slice(30));
    const u2 = await t.update();
    const headerBytes = readFileSync(file, "utf8").split("\n")[0]!.length + 1;
    assert.equal(u1.bytesRead + u2.bytesRead, Buffer.byteLength(line) + 2 * headerBytes);
    assert.deepEqual(view(t.result()), view(parseSession(file, readFileSync(file))));
    assert.equal((t.result() as { session: { leafId: string } }).session.leafId, "p1");
  });

  it("re-reads in full after OMP's in-place title-slot rewrite (T2) and its rename-replace (T15)", async () => {
    const file = join(dir, "o.jsonl");
    writeFileSync(file, readFileSync(ompFile));
    const t = new SessionTracker(file);
    await t.update();
    assert.equal((t.result() as { session: { name: string } }).session.name, "mathkit overview");
    const text = readFileSync(file, "utf8");
    const size = statSync(file).size;
    const fd = openSync(file, "r+");
    writeSync(fd, Buffer.from('"title":"mathkit renamed!"'), 0, undefined, text.indexOf('"title":"mathkit overview"'));
    closeSync(fd);
    assert.equal(statSync(file).size, size);
    assert.equal((await t.update()).change, "replaced");
    assert.equal((t.result() as { session: { name: string } }).session.name, "mathkit renamed!");
    const tmp = join(dir, ".o.jsonl.tmp");
    writeFileSync(tmp, `${readFileSync(file, "utf8")}${entryLine("r1", "fcbe5a3b", "after replace")}`);
    renameSync(tmp, file);
    assert.equal((await t.update()).change, "replaced");
    assert.deepEqual(view(t.result()), view(parseSession(file, readFileSync(file))));
  });

  it("a shorter file is read again in full; a removed file reports removed", async () => {
    const file = join(dir, "s.jsonl");
    writeFileSync(file, readFileSync(piFile));
    const t = new SessionTracker(file);
    await t.update();
    const lines = readFileSync(file, "utf8").split("\n");
    truncateSync(file, Buffer.byteLength(lines.slice(0, 10).join("\n") + "\n"));
    assert.equal((await t.update()).change, "replaced");
    assert.deepEqual(view(t.result()), view(parseSession(file, readFileSync(file))));
    unlinkSync(file);
    assert.equal((await t.update()).change, "removed");
  });

  it("a file whose first line is still being written is not 'empty'", async () => {
    const file = join(dir, "s.jsonl");
    writeFileSync(file, '{"type":"session","version":3,"id":"x');
    const t = new SessionTracker(file);
    await t.update();
    const r = t.result();
    assert.ok(!r.ok);
    assert.equal(r.rejection.code, "no-header");
    assert.match(r.rejection.message, /still being written/);
  });
});

describe("SessionWatcher: coalesced batches of changed session files", () => {
  it("starts when no root exists yet (no agent dir), and closes", async () => {
    const w = new SessionWatcher([join(tmpdir(), "pi-no-such-root-" + process.pid)], () => {}, { rootPollMs: 50 });
    await w.start();
    await w.close();
  });

  let dir: string;
  let watcher: SessionWatcher | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "pi-watch-"));
  });
  afterEach(async () => {
    await watcher?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a burst of appends becomes one batch; lock and tmp files are ignored; a root made later is watched", async () => {
    const root = join(dir, "sessions");
    const late = join(dir, "late");
    mkdirSync(join(root, "--proj--"), { recursive: true });
    const file = join(root, "--proj--", "a.jsonl");
    writeFileSync(file, "");
    const batches: string[][] = [];
    watcher = new SessionWatcher([root, late], (files) => batches.push(files), {
      debounceMs: 200,
      maxWaitMs: 2000,
      rootPollMs: 100,
    });
    await watcher.start();
    for (let i = 0; i < 20; i++) appendFileSync(file, `{"n":${i}}\n`);
    writeFileSync(join(root, "--proj--", "a.jsonl.lock"), "x");
    writeFileSync(join(root, "--proj--", ".a.jsonl.123.tmp"), "x");
    await waitFor("a batch", () => batches.length > 0);
    await sleep(400);
    assert.deepEqual(batches, [[file]]);
    mkdirSync(join(late, "--other--"), { recursive: true });
    await sleep(300);
    const nested = join(late, "--other--", "b.jsonl");
    writeFileSync(nested, "{}\n");
    await waitFor("the late root's file", () => batches.some((b) => b.includes(nested)));
  });
});
