/** Reading traps T14–T27 of docs/session-format.md#traps (T1–T13 are in traps.test.ts). */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildContext } from "../../../src/core/context/index.js";
import { parseSession } from "../../../src/core/session/index.js";
import { anthropicMessage, header, iso, titleSlot } from "../../support/builders.js";
import { jsonl, parseOk, parseText, plain } from "../../support/helpers.js";
import { loadFixture, ompSession, piSession, REAL } from "../../support/fixtures.js";

const H = header({ id: "sess-1", cwd: "/w" });

describe("reading traps T14–T27 (docs/session-format.md#traps)", () => {
  it("T14: a corrupted header rejects the file, naming the line and reason", () => {
    const r1 = parseText(jsonl({ type: "message", id: "x", parentId: null, timestamp: iso(0) }, H));
    assert.ok(!r1.ok);
    assert.deepEqual([r1.rejection.line, r1.rejection.code], [1, "record-before-header"]);
    const r2 = parseText(jsonl({ type: "session", cwd: "/w" }));
    assert.ok(!r2.ok && r2.rejection.code === "invalid-header" && r2.rejection.line === 1);
    const r3 = parseText(jsonl(titleSlot("t"), "garbage", "[1,2]"));
    assert.ok(!r3.ok && r3.rejection.code === "record-before-header" && r3.rejection.line === 3);
    const r4 = parseText(jsonl(titleSlot("t"), "garbage"));
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
          anthropicMessage("a", null, "user", "q"),
          anthropicMessage("b", "a", "assistant", "r"),
          {
            type: "compaction",
            id: "c",
            parentId: "b",
            timestamp: iso(3),
            summary: "S",
            firstKeptEntryId: firstKept,
            tokensBefore: 100,
          },
          anthropicMessage("d", "c", "user", "next", 4),
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
        anthropicMessage("a", null, "user", "q1"),
        anthropicMessage("b", "a", "assistant", "r1"),
        {
          type: "compaction",
          id: "c1",
          parentId: "b",
          timestamp: iso(3),
          summary: "S1",
          firstKeptEntryId: "b",
          tokensBefore: 10,
        },
        anthropicMessage("d", "c1", "user", "q2", 4),
        {
          type: "compaction",
          id: "c2",
          parentId: "d",
          timestamp: iso(5),
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
      timestamp: iso(2),
      targetId: target,
      ...(value === undefined ? {} : { label: value }),
    });
    const s = parseOk(
      jsonl(
        H,
        anthropicMessage("a", null, "user", "q"),
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
      timestamp: iso(1),
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
      timestamp: iso(1),
      title,
      source,
    });
    const noSlot = parseOk(
      jsonl({ ...H }, tc("t1", "Auto one", "auto"), tc("t2", "Mine", "user"), tc("t3", "Auto two", "auto")),
    );
    assert.equal(noSlot.name, "Mine");
    const long = "A very long title ".repeat(20).trim();
    const truncated = [...long].slice(0, 150).join("");
    const s = parseOk(jsonl(titleSlot(truncated, "user"), H, tc("t1", long, "user")));
    assert.equal(s.name, long);
  });

  it("T24: unknown entry types and roles are kept as opaque nodes that can have children", () => {
    const s = parseOk(
      jsonl(
        H,
        { type: "future_thing", id: "f", parentId: null, timestamp: iso(0), x: 1 },
        anthropicMessage("u", "f", "user", "q"),
        {
          type: "message",
          id: "p",
          parentId: "u",
          timestamp: iso(2),
          message: { role: "pythonExecution", code: "1+1" },
        },
        { type: "message", id: "z", parentId: "p", timestamp: iso(3), message: { role: "brandNewRole" } },
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
      ompSession("-src-legacy-omp", "2026-11-29T18-50-23-039Z_01a228a4-ddbf-7000-b787-4ee92607f669.jsonl"),
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
        timestamp: iso(0),
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
        anthropicMessage("r", null, "user", "q", 0),
        anthropicMessage("late", "r", "assistant", "x", 9, { timestamp: 1 }),
        anthropicMessage("early", "r", "assistant", "y", 3, { timestamp: 99999 }),
        anthropicMessage("tie", "r", "assistant", "z", 3),
      ),
    );
    assert.deepEqual(s.children.get("r"), ["early", "tie", "late"]);
  });

  it("T27: a second session header anywhere rejects the whole file, naming both lines", () => {
    const r = parseText(
      jsonl(
        H,
        anthropicMessage("a", null, "user", "q"),
        { ...H, id: "other" },
        anthropicMessage("b", "a", "assistant", "r"),
      ),
    );
    assert.ok(!r.ok);
    assert.equal(r.rejection.code, "duplicate-header");
    assert.equal(r.rejection.line, 3);
    assert.match(r.rejection.message, /line 1/);
  });

  it("v2: the hookMessage role is read as custom (in memory only)", () => {
    const file = piSession(
      "--home-u-src-legacy-v2--",
      "2026-11-29T18-50-19-338Z_2b7d2294-cd3f-4ff8-a5eb-44c1bb2e4cb3.jsonl",
    );
    const raw = readFileSync(file, "utf8");
    assert.match(raw, /"hookMessage"/);
    const s = loadFixture(file);
    assert.ok(s.entries.some((e) => e.role === "custom"));
    assert.ok(!s.entries.some((e) => e.role === "hookMessage"));
    assert.equal(readFileSync(file, "utf8"), raw);
  });

  it("duplicate ids: the later entry wins like pi's index, and the earlier one is reported", () => {
    const s = parseOk(
      jsonl(
        H,
        anthropicMessage("a", null, "user", "q"),
        anthropicMessage("b", "a", "assistant", "r1"),
        anthropicMessage("b", "a", "assistant", "r2"),
      ),
    );
    assert.equal(s.byId.get("b")!.line, 4);
    assert.deepEqual(s.children.get("a"), ["b"]);
    assert.ok(s.entries[1]!.shadowed);
    assert.ok(s.diagnostics.some((d) => d.code === "duplicate-id" && d.line === 4));
  });

  it("parent cycles are guarded: cycle members are detached, context stops at the repeat", () => {
    const s = parseOk(
      jsonl(
        H,
        anthropicMessage("a", null, "user", "q"),
        anthropicMessage("x", "y", "user", "x"),
        anthropicMessage("y", "x", "assistant", "y"),
      ),
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
    const s = parseOk(jsonl(H, anthropicMessage("a", "a", "user", "q")));
    assert.deepEqual(s.roots, ["a"]);
    assert.ok(s.diagnostics.some((d) => d.code === "self-parent"));
  });
});

describe("JSONL reader", () => {
  it("handles CRLF line endings", () => {
    const s = parseOk(
      jsonl(H, anthropicMessage("a", null, "user", "q"), anthropicMessage("b", "a", "assistant", "r")).replace(
        /\n/g,
        "\r\n",
      ),
    );
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
    const s = parseOk(`\n${JSON.stringify(H)}\n\n\n${JSON.stringify(anthropicMessage("a", null, "user", "q"))}\n`);
    assert.equal(s.headerLine, 2);
    assert.equal(s.entries[0]!.line, 5);
  });

  it("reads a 5 MB tool output line", () => {
    const big = "x".repeat(5 * 1024 * 1024);
    const s = parseOk(
      jsonl(H, anthropicMessage("a", null, "user", "q"), {
        type: "message",
        id: "t",
        parentId: "a",
        timestamp: iso(2),
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
    const s = parseOk(jsonl(H, "42", "null", anthropicMessage("a", null, "user", "q")));
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
      jsonl(H, { type: "message", parentId: null, timestamp: iso(0), message: { role: "user", content: "q" } }),
    );
    assert.deepEqual(
      s.diagnostics.map((d) => [d.line, d.code]),
      [[2, "missing-id"]],
    );
  });
});
