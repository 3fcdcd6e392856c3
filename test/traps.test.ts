/** One or more tests per reading trap of session-format.md §15 (T1–T27) that concerns the reader. */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildContext } from "../src/core/context.js";
import { parseSession } from "../src/core/session.js";
import { header, iso, message } from "./builders.js";
import { jsonl, parseOk, parseText, plain } from "./helpers.js";
import { loadFixture, REAL } from "./fixtures.js";

const H = header({ id: "sess-1", cwd: "/w" });
const ts = iso;
/** A message; assistant ones as in the fixtures' anthropic turns. */
const msg = (id: string, parentId: string | null, role: string, text: string, s = 1, extra = {}) =>
  message(id, parentId, role, text, {
    time: s,
    provider: "anthropic",
    model: "m1",
    extra: role === "assistant" ? { api: "x", ...extra } : extra,
  });
const slot = (title: string, source?: "auto" | "user") => {
  const base: Record<string, unknown> = {
    type: "title",
    v: 1,
    title,
    ...(source ? { source } : {}),
    updatedAt: ts(0),
    pad: "",
  };
  const len = Buffer.byteLength(JSON.stringify(base)) + 1;
  base.pad = " ".repeat(256 - len);
  return base;
};
const pi = (...names: string[]) => join(REAL, "pi", "sessions", ...names);
const omp = (...names: string[]) => join(REAL, "omp", "sessions", ...names);

describe("reading traps (session-format.md §15)", () => {
  it("T1: an OMP file's first line is the 256-byte title slot; the header is line 2", () => {
    const text = jsonl(slot("My title", "user"), H, msg("a1", null, "user", "hi"));
    assert.equal(Buffer.byteLength(text.split("\n")[0]!) + 1, 256);
    const s = parseOk(text);
    assert.equal(s.headerLine, 2);
    assert.equal(s.flavor, "omp");
    assert.equal(s.titleSlot?.title, "My title");
    assert.equal(s.entries[0]!.line, 3);
  });

  it("T1: several leading title records are skipped; only the first is the slot", () => {
    const s = parseOk(jsonl(slot("first"), slot("second"), H));
    assert.equal(s.titleSlot?.title, "first");
    assert.equal(s.headerLine, 3);
  });

  it("T2: the slot is the title source even when the header says otherwise (in-place slot rewrite)", () => {
    const s = parseOk(jsonl(slot("Renamed", "user"), { ...H, title: "Old", titleSource: "auto" }));
    assert.equal(s.name, "Renamed");
    assert.equal(s.titleSource, "user");
  });

  it("T3: the active leaf is the last line, not the newest timestamp or the deepest node", () => {
    const s = parseOk(
      jsonl(
        H,
        msg("a", null, "user", "q", 5),
        msg("b", "a", "assistant", "r", 9),
        msg("c", "b", "user", "deep", 9),
        msg("d", "a", "assistant", "old", 1),
      ),
    );
    assert.equal(s.leafId, "d");
    // OMP off-branch model_usage as the last line is the leaf too
    const o = loadFixture(omp("-src-proj", "2026-11-29T18-50-21-986Z_01a228a4-d9a2-7000-85ca-ecf671b91f93.jsonl"));
    assert.equal(o.leafId, o.entries.at(-1)!.id);
  });

  it("T4: an orphan (parent missing from the file) is a root, reported, and pi's S5a context is empty", () => {
    const s = parseOk(jsonl(H, msg("a", null, "user", "q"), msg("b", "gone0000", "assistant", "r")));
    assert.deepEqual(s.roots, ["a", "b"]);
    assert.ok(s.diagnostics.some((d) => d.code === "orphan" && d.line === 3));
    const s5a = loadFixture(
      pi("--home-u-src-proj--", "2026-11-29T18-50-21-130Z_01a228a4-d64a-7145-888a-572546d95234.jsonl"),
    );
    assert.equal(s5a.roots.length, 2);
    assert.equal(buildContext(s5a).messages.length, 0);
  });

  it("T5: the root is usually a model_change, and re-prompting the first user message makes a sibling (S4)", () => {
    const s = loadFixture(
      pi("--home-u-src-proj--", "2026-11-29T18-50-21-044Z_01a228a4-d5f3-72b6-bece-7e855d2b0835.jsonl"),
    );
    assert.equal(s.byId.get(s.roots[0]!)!.type, "model_change");
    const userParents = s.entries.filter((e) => e.role === "user").map((e) => s.byId.get(e.parentId!)?.type);
    assert.ok(
      userParents.filter((t) => t === "thinking_level_change").length >= 2,
      "two user messages share the prologue parent",
    );
  });

  it("T6: v1 ids come from the physical line; firstKeptEntryIndex counts parsed records, header = 0", () => {
    const v1 = { type: "session", id: "v1", timestamp: ts(0), cwd: "/w" };
    const text = jsonl(
      v1,
      "",
      { type: "message", timestamp: ts(1), message: { role: "user", content: "one", timestamp: 1 } },
      "{broken",
      {
        type: "message",
        timestamp: ts(2),
        message: { role: "assistant", content: [], provider: "p", model: "m", timestamp: 2 },
      },
      { type: "message", timestamp: ts(3), message: { role: "user", content: "two", timestamp: 3 } },
      { type: "compaction", timestamp: ts(4), summary: "S", firstKeptEntryIndex: 3, tokensBefore: 10 },
    );
    const s = parseOk(text);
    assert.equal(s.version, 1);
    assert.deepEqual(
      s.entries.map((e) => e.id),
      ["L3", "L5", "L6", "L7"],
    );
    assert.deepEqual(
      s.entries.map((e) => e.parentId),
      [null, "L3", "L5", "L6"],
    );
    // record index 3 = header(0), L3(1), L5(2), L6(3): the blank and the broken line are not records
    assert.equal(s.compactions[0]!.firstKeptEntryId, "L6");
    assert.equal(s.compactions[0]!.keptFromId, "L6");
    assert.deepEqual(
      plain(buildContext(s)).messages.map((m) => m.role),
      ["compactionSummary", "user"],
    );
    // stable: the same bytes give the same ids
    assert.deepEqual(
      parseOk(text).entries.map((e) => e.id),
      s.entries.map((e) => e.id),
    );
  });

  it("T6: the v1 fixture's header id differs from the file name uuid (T11) and nothing rewrites the file", () => {
    const file = pi("--home-u-src-legacy-v1--", "2026-11-29T18-50-19-307Z_99c6cd96-447c-4389-a78a-0ae32fa20c5b.jsonl");
    const before = readFileSync(file);
    const s = loadFixture(file);
    assert.notEqual(s.header.id, "99c6cd96-447c-4389-a78a-0ae32fa20c5b");
    assert.ok(s.compactions.length >= 1 && s.compactions[0]!.firstKeptEntryId!.startsWith("L"));
    assert.deepEqual(readFileSync(file), before);
  });

  it('T7: branch_summary.fromId is its parent, or the literal "root" with parentId null', () => {
    const s = parseOk(
      jsonl(H, msg("a", null, "user", "q"), {
        type: "branch_summary",
        id: "bs",
        parentId: null,
        timestamp: ts(2),
        fromId: "root",
        summary: "explored",
      }),
    );
    assert.deepEqual(s.roots, ["a", "bs"]);
    const ctx = plain(buildContext(s));
    assert.deepEqual(ctx.messages, [
      { role: "branchSummary", summary: "explored", fromId: "root", timestamp: Date.parse(ts(2)) },
    ]);
  });

  it("T8: pi {provider, modelId} vs OMP {model, role}; in pi an assistant message overrides the model", () => {
    const p = parseOk(
      jsonl(
        H,
        { type: "model_change", id: "m", parentId: null, timestamp: ts(0), provider: "openai", modelId: "gpt" },
        msg("a", "m", "assistant", "r"),
      ),
    );
    assert.deepEqual(buildContext(p).model, { provider: "anthropic", modelId: "m1" });
    const o = parseOk(
      jsonl(
        H,
        { type: "model_change", id: "m", parentId: null, timestamp: ts(0), model: "openai/gpt-5", role: "default" },
        { type: "model_change", id: "n", parentId: "m", timestamp: ts(0), model: "anthropic/haiku", role: "smol" },
        msg("a", "n", "assistant", "r"),
      ),
    );
    assert.equal(o.flavor, "omp");
    const ctx = buildContext(o);
    assert.deepEqual(
      ctx.models,
      { default: "openai/gpt-5", smol: "anthropic/haiku" },
      "explicit default is not overridden by the assistant",
    );
    assert.deepEqual(ctx.model, { provider: "openai", modelId: "gpt-5" });
  });

  it("T9: fromHook (pi) and fromExtension (OMP) both parse without schema problems", () => {
    const c = (flag: object) => ({
      type: "compaction",
      id: "c",
      parentId: "a",
      timestamp: ts(2),
      summary: "s",
      firstKeptEntryId: "a",
      tokensBefore: 5,
      ...flag,
    });
    const p = parseOk(jsonl(H, msg("a", null, "user", "q"), c({ fromHook: true })));
    const o = parseOk(jsonl(H, msg("a", null, "user", "q"), c({ fromExtension: true })));
    assert.equal(p.flavor, "pi");
    assert.equal(o.flavor, "omp");
    assert.deepEqual([...p.diagnostics, ...o.diagnostics], []);
  });

  it("T10: parentSession is a path or a session id; v1 forks use branchedFrom", () => {
    assert.deepEqual(
      loadFixture(omp("-src-proj", "2026-11-29T18-50-22-033Z_01a228a4-d9d1-7000-a845-d846825115ab.jsonl")).forkOf,
      { raw: "01a228a4-d9a2-7000-85ca-ecf671b91f93", kind: "id", field: "parentSession" },
    );
    assert.equal(
      loadFixture(omp("-src-proj", "2026-11-29T18-50-22-038Z_01a228a4-d9d6-7000-a79c-1eb84ee58afa.jsonl")).forkOf?.kind,
      "path",
    );
    const v1 = loadFixture(
      pi("--home-u-src-legacy-v1--", "2026-11-29T18-50-19-332Z_40138620-2fc9-46fe-acf5-df59248b38af.jsonl"),
    );
    assert.equal(v1.forkOf?.field, "branchedFrom");
    assert.equal(v1.forkOf?.kind, "path");
    assert.equal(parseOk(jsonl({ ...H, parentSession: "C:\\Users\\u\\s.jsonl" })).forkOf?.kind, "path");
  });

  it("T12: an OMP header-only file (slot + header) is a session with no entries; an empty file is rejected", () => {
    const s = loadFixture(omp("-src-proj", "2026-11-29T18-50-22-043Z_01a228a4-d9db-7000-8165-714d0e177185.jsonl"));
    assert.equal(s.entries.length, 0);
    assert.equal(s.leafId, null);
    assert.deepEqual(buildContext(s).messages, []);
    const empty = parseText("");
    assert.ok(!empty.ok && empty.rejection.code === "empty-file");
    const blank = parseText("\n\n  \n");
    assert.ok(!blank.ok && blank.rejection.code === "empty-file");
  });

  it("T13: a malformed middle line is an error diagnostic and skipped; a truncated last line is a warning", () => {
    const q2 = loadFixture(join(REAL, "quirks", "pi-malformed-middle-line.jsonl"));
    assert.deepEqual(
      q2.diagnostics.map((d) => [d.line, d.severity, d.code]),
      [[5, "error", "malformed-json"]],
    );
    assert.equal(q2.endsWithNewline, true);
    const q1 = loadFixture(join(REAL, "quirks", "pi-truncated-last-line.jsonl"));
    const last = readFileSync(join(REAL, "quirks", "pi-truncated-last-line.jsonl"), "utf8").split("\n").length;
    assert.deepEqual(
      q1.diagnostics.map((d) => [d.line, d.severity, d.code]),
      [[last, "warning", "truncated-last-line"]],
    );
    assert.equal(q1.endsWithNewline, false);
    assert.equal(q1.truncatedTail, true);
  });

  it("T13: a complete last record without a newline is kept, but the file is marked unterminated", () => {
    const s = parseOk(jsonl(H, msg("a", null, "user", "q")).trimEnd());
    assert.equal(s.entries.length, 1);
    assert.equal(s.endsWithNewline, false);
    assert.equal(s.truncatedTail, false);
  });

  it("T14: a corrupted header rejects the file, naming the line and reason", () => {
    const r1 = parseText(jsonl({ type: "message", id: "x", parentId: null, timestamp: ts(0) }, H));
    assert.ok(!r1.ok);
    assert.deepEqual([r1.rejection.line, r1.rejection.code], [1, "record-before-header"]);
    const r2 = parseText(jsonl({ type: "session", cwd: "/w" }));
    assert.ok(!r2.ok && r2.rejection.code === "invalid-header" && r2.rejection.line === 1);
    const r3 = parseText(jsonl(slot("t"), "garbage", "[1,2]"));
    assert.ok(!r3.ok && r3.rejection.code === "record-before-header" && r3.rejection.line === 3);
    const r4 = parseText(jsonl(slot("t"), "garbage"));
    assert.ok(!r4.ok && r4.rejection.code === "no-header");
  });

  it("T18: usage without totalTokens is valid (upstream large-session has none)", () => {
    const s = loadFixture(join(REAL, "..", "upstream", "large-session.jsonl"));
    assert.equal(s.diagnostics.filter((d) => d.code === "schema").length, 0);
    assert.ok(s.entries.some((e) => e.role === "assistant"));
  });

  it("T19: firstKeptEntryId off the path keeps nothing; an empty OMP firstKeptEntryId too", () => {
    for (const firstKept of ["zzzzzzzz", ""]) {
      const s = parseOk(
        jsonl(
          H,
          msg("a", null, "user", "q"),
          msg("b", "a", "assistant", "r"),
          {
            type: "compaction",
            id: "c",
            parentId: "b",
            timestamp: ts(3),
            summary: "S",
            firstKeptEntryId: firstKept,
            tokensBefore: 100,
          },
          msg("d", "c", "user", "next", 4),
        ),
      );
      assert.equal(s.compactions[0]!.keptFromId, null);
      assert.equal(s.compactions[0]!.replacesThroughId, "b");
      assert.deepEqual(
        plain(buildContext(s)).messages.map((m) => m.role),
        ["compactionSummary", "user"],
      );
    }
  });

  it("T19: a later compaction may keep from before an earlier one (pi 0.73): the last one on the path wins", () => {
    const s = parseOk(
      jsonl(
        H,
        msg("a", null, "user", "q1"),
        msg("b", "a", "assistant", "r1"),
        {
          type: "compaction",
          id: "c1",
          parentId: "b",
          timestamp: ts(3),
          summary: "S1",
          firstKeptEntryId: "b",
          tokensBefore: 10,
        },
        msg("d", "c1", "user", "q2", 4),
        {
          type: "compaction",
          id: "c2",
          parentId: "d",
          timestamp: ts(5),
          summary: "S2",
          firstKeptEntryId: "b",
          tokensBefore: 20,
        },
      ),
    );
    assert.deepEqual(
      s.compactions.map((c) => [c.id, c.keptFromId, c.onActivePath]),
      [
        ["c1", "b", true],
        ["c2", "b", true],
      ],
    );
    const ctx = plain(buildContext(s));
    assert.deepEqual(
      ctx.messages.map((m) => m.role),
      ["compactionSummary", "assistant", "user"],
    );
    assert.equal(ctx.messages[0]!.summary, "S2");
  });

  it("T20: labels: last label entry per target wins, and an absent or empty label clears it", () => {
    const label = (id: string, target: string, value?: string) => ({
      type: "label",
      id,
      parentId: "a",
      timestamp: ts(2),
      targetId: target,
      ...(value === undefined ? {} : { label: value }),
    });
    const s = parseOk(
      jsonl(
        H,
        msg("a", null, "user", "q"),
        label("l1", "a", "one"),
        label("l2", "a"),
        label("l3", "x", "gone"),
        label("l4", "x", ""),
        label("l5", "a", "two"),
      ),
    );
    assert.deepEqual(
      [...s.labels].map(([k, v]) => [k, v.label]),
      [["a", "two"]],
    );
  });

  it("T21: pi name: the latest session_info wins and an empty name clears it (0.73)", () => {
    const info = (id: string, name?: string) => ({
      type: "session_info",
      id,
      parentId: null,
      timestamp: ts(1),
      ...(name === undefined ? {} : { name }),
    });
    assert.equal(parseOk(jsonl(H, info("i1", "First"), info("i2", "  Second  "))).name, "Second");
    assert.equal(parseOk(jsonl(H, info("i1", "First"), info("i2", ""))).name, null);
    assert.equal(parseOk(jsonl(H, info("i1", "First"), info("i2"))).name, null);
  });

  it("T21: OMP title: a user title beats later auto titles; a truncated slot yields the title_change text", () => {
    const tc = (id: string, title: string, source: string) => ({
      type: "title_change",
      id,
      parentId: null,
      timestamp: ts(1),
      title,
      source,
    });
    const noSlot = parseOk(
      jsonl({ ...H }, tc("t1", "Auto one", "auto"), tc("t2", "Mine", "user"), tc("t3", "Auto two", "auto")),
    );
    assert.equal(noSlot.name, "Mine");
    const long = "A very long title ".repeat(20).trim();
    const truncated = [...long].slice(0, 150).join("");
    const s = parseOk(jsonl(slot(truncated, "user"), H, tc("t1", long, "user")));
    assert.equal(s.name, long);
  });

  it("T24: unknown entry types and roles are kept as opaque nodes that can have children", () => {
    const s = parseOk(
      jsonl(
        H,
        { type: "future_thing", id: "f", parentId: null, timestamp: ts(0), x: 1 },
        msg("u", "f", "user", "q"),
        {
          type: "message",
          id: "p",
          parentId: "u",
          timestamp: ts(2),
          message: { role: "pythonExecution", code: "1+1" },
        },
        { type: "message", id: "z", parentId: "p", timestamp: ts(3), message: { role: "brandNewRole" } },
      ),
    );
    assert.deepEqual(
      s.entries.map((e) => [e.id, e.known]),
      [
        ["f", false],
        ["u", true],
        ["p", true],
        ["z", true],
      ],
    );
    assert.deepEqual(s.children.get("f"), ["u"]);
    assert.equal(s.entries[3]!.role, "brandNewRole");
    assert.ok(s.diagnostics.some((d) => d.code === "unknown-entry-type" && d.line === 2));
    assert.ok(s.diagnostics.some((d) => d.code === "unknown-role" && d.line === 5));
    assert.equal(s.leafId, "z");
  });

  it("T24: legacy OMP 14.x mcp_tool_selection and header title are read", () => {
    const s = loadFixture(
      omp("-src-legacy-omp", "2026-11-29T18-50-23-039Z_01a228a4-ddbf-7000-b787-4ee92607f669.jsonl"),
    );
    assert.ok(s.entries.some((e) => e.type === "mcp_tool_selection" && e.known));
    assert.equal(s.name, "Legacy header title");
    assert.equal(s.titleSlot, null);
  });

  it("T25: OMP blob references in image data are valid content", () => {
    const s = parseOk(
      jsonl(H, {
        type: "message",
        id: "u",
        parentId: null,
        timestamp: ts(0),
        message: {
          role: "user",
          content: [{ type: "image", data: "blob:sha256:" + "a".repeat(64), mimeType: "image/png" }],
          timestamp: 1,
        },
      }),
    );
    assert.deepEqual(s.diagnostics, []);
  });

  it("T26: siblings are ordered by entry timestamp (ISO), not message.timestamp (ms); ties keep file order", () => {
    const s = parseOk(
      jsonl(
        H,
        msg("r", null, "user", "q", 0),
        msg("late", "r", "assistant", "x", 9, { timestamp: 1 }),
        msg("early", "r", "assistant", "y", 3, { timestamp: 99999 }),
        msg("tie", "r", "assistant", "z", 3),
      ),
    );
    assert.deepEqual(s.children.get("r"), ["early", "tie", "late"]);
  });

  it("T27: a second session header anywhere rejects the whole file, naming both lines", () => {
    const r = parseText(jsonl(H, msg("a", null, "user", "q"), { ...H, id: "other" }, msg("b", "a", "assistant", "r")));
    assert.ok(!r.ok);
    assert.equal(r.rejection.code, "duplicate-header");
    assert.equal(r.rejection.line, 3);
    assert.match(r.rejection.message, /line 1/);
  });

  it("v2: the hookMessage role is read as custom (in memory only)", () => {
    const file = pi("--home-u-src-legacy-v2--", "2026-11-29T18-50-19-338Z_2b7d2294-cd3f-4ff8-a5eb-44c1bb2e4cb3.jsonl");
    const raw = readFileSync(file, "utf8");
    assert.match(raw, /"hookMessage"/);
    const s = loadFixture(file);
    assert.ok(s.entries.some((e) => e.role === "custom"));
    assert.ok(!s.entries.some((e) => e.role === "hookMessage"));
    assert.equal(readFileSync(file, "utf8"), raw);
  });

  it("duplicate ids: the later entry wins like pi's index, and the earlier one is reported", () => {
    const s = parseOk(
      jsonl(H, msg("a", null, "user", "q"), msg("b", "a", "assistant", "r1"), msg("b", "a", "assistant", "r2")),
    );
    assert.equal(s.byId.get("b")!.line, 4);
    assert.deepEqual(s.children.get("a"), ["b"]);
    assert.ok(s.entries[1]!.shadowed);
    assert.ok(s.diagnostics.some((d) => d.code === "duplicate-id" && d.line === 4));
  });

  it("parent cycles are guarded: cycle members are detached, context stops at the repeat", () => {
    const s = parseOk(
      jsonl(H, msg("a", null, "user", "q"), msg("x", "y", "user", "x"), msg("y", "x", "assistant", "y")),
    );
    assert.deepEqual(s.roots, ["a"]);
    assert.deepEqual(s.detached, ["x", "y"]);
    assert.equal(s.leafId, "y");
    assert.deepEqual(
      plain(buildContext(s)).messages.map((m) => m.role),
      ["user", "assistant"],
    );
  });

  it("self-parent entries are roots", () => {
    const s = parseOk(jsonl(H, msg("a", "a", "user", "q")));
    assert.deepEqual(s.roots, ["a"]);
    assert.ok(s.diagnostics.some((d) => d.code === "self-parent"));
  });
});

describe("JSONL reader", () => {
  it("handles CRLF line endings", () => {
    const s = parseOk(jsonl(H, msg("a", null, "user", "q"), msg("b", "a", "assistant", "r")).replace(/\n/g, "\r\n"));
    assert.deepEqual(
      s.entries.map((e) => [e.id, e.line]),
      [
        ["a", 2],
        ["b", 3],
      ],
    );
    assert.deepEqual(s.diagnostics, []);
  });

  it("keeps physical line numbers across blank lines", () => {
    const s = parseOk(`\n${JSON.stringify(H)}\n\n\n${JSON.stringify(msg("a", null, "user", "q"))}\n`);
    assert.equal(s.headerLine, 2);
    assert.equal(s.entries[0]!.line, 5);
  });

  it("reads a 5 MB tool output line", () => {
    const big = "x".repeat(5 * 1024 * 1024);
    const s = parseOk(
      jsonl(H, msg("a", null, "user", "q"), {
        type: "message",
        id: "t",
        parentId: "a",
        timestamp: ts(2),
        message: {
          role: "toolResult",
          toolCallId: "c",
          toolName: "bash",
          content: [{ type: "text", text: big }],
          isError: false,
          timestamp: 2,
        },
      }),
    );
    const content = (s.byId.get("t")!.data.message as { content: { text: string }[] }).content;
    assert.equal(content[0]!.text.length, big.length);
  });

  it("accepts bytes and a BOM (with a warning)", () => {
    const r = parseSession("f.jsonl", Buffer.from("\uFEFF" + jsonl(H)));
    assert.ok(r.ok);
    assert.deepEqual(
      r.session.diagnostics.map((d) => d.code),
      ["bom"],
    );
  });

  it("decodes invalid UTF-8 without throwing", () => {
    const bytes = Buffer.concat([Buffer.from(jsonl(H)), Buffer.from([0xff, 0xfe, 0x0a])]);
    const r = parseSession("f.jsonl", bytes);
    assert.ok(r.ok);
    assert.equal(r.session.diagnostics[0]!.code, "malformed-json");
  });

  it("non-object records after the header are reported and skipped", () => {
    const s = parseOk(jsonl(H, "42", "null", msg("a", null, "user", "q")));
    assert.deepEqual(
      s.diagnostics.map((d) => [d.line, d.code]),
      [
        [2, "not-an-object"],
        [3, "not-an-object"],
      ],
    );
    assert.equal(s.entries.length, 1);
  });

  it("v2+ records without an id are reported and skipped", () => {
    const s = parseOk(
      jsonl(H, { type: "message", parentId: null, timestamp: ts(0), message: { role: "user", content: "q" } }),
    );
    assert.deepEqual(
      s.diagnostics.map((d) => [d.line, d.code]),
      [[2, "missing-id"]],
    );
  });
});
