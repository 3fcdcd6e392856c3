/** One or more tests per reading trap of docs/session-format.md#traps that concerns the reader: T1–T13 here,
 * T14–T27 in traps-late.test.ts. */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildContext } from "../../../src/core/context/index.js";

import { anthropicMessage, header, iso, titleSlot } from "../../support/builders.js";
import { jsonl, parseOk, parseText, plain } from "../../support/helpers.js";
import { loadFixture, ompSession, piSession, REAL } from "../../support/fixtures.js";

const H = header({ id: "sess-1", cwd: "/w" });

describe("reading traps (docs/session-format.md#traps)", () => {
  it("T1: an OMP file's first line is the 256-byte title slot; the header is line 2", () => {
    const text = jsonl(titleSlot("My title", "user"), H, anthropicMessage("a1", null, "user", "hi"));
    assert.equal(Buffer.byteLength(text.split("\n")[0]!) + 1, 256);
    const s = parseOk(text);
    assert.equal(s.headerLine, 2);
    assert.equal(s.flavor, "omp");
    assert.equal(s.titleSlot?.title, "My title");
    assert.equal(s.entries[0]!.line, 3);
  });

  it("T1: several leading title records are skipped; only the first is the slot", () => {
    const s = parseOk(jsonl(titleSlot("first"), titleSlot("second"), H));
    assert.equal(s.titleSlot?.title, "first");
    assert.equal(s.headerLine, 3);
  });

  it("T2: the slot is the title source even when the header says otherwise (in-place slot rewrite)", () => {
    const s = parseOk(jsonl(titleSlot("Renamed", "user"), { ...H, title: "Old", titleSource: "auto" }));
    assert.equal(s.name, "Renamed");
    assert.equal(s.titleSource, "user");
  });

  it("T3: the active leaf is the last line, not the newest timestamp or the deepest node", () => {
    const s = parseOk(
      jsonl(
        H,
        anthropicMessage("a", null, "user", "q", 5),
        anthropicMessage("b", "a", "assistant", "r", 9),
        anthropicMessage("c", "b", "user", "deep", 9),
        anthropicMessage("d", "a", "assistant", "old", 1),
      ),
    );
    assert.equal(s.leafId, "d");
    // OMP off-branch model_usage as the last line is the leaf too
    const o = loadFixture(
      ompSession("-src-proj", "2026-11-29T18-50-21-986Z_01a228a4-d9a2-7000-85ca-ecf671b91f93.jsonl"),
    );
    assert.equal(o.leafId, o.entries.at(-1)!.id);
  });

  it("T4: an orphan (parent missing from the file) is a root, reported, and pi's S5a context is empty", () => {
    const s = parseOk(
      jsonl(H, anthropicMessage("a", null, "user", "q"), anthropicMessage("b", "gone0000", "assistant", "r")),
    );
    assert.deepEqual(s.roots, ["a", "b"]);
    assert.ok(s.diagnostics.some((d) => d.code === "orphan" && d.line === 3));
    const s5a = loadFixture(
      piSession("--home-u-src-proj--", "2026-11-29T18-50-21-130Z_01a228a4-d64a-7145-888a-572546d95234.jsonl"),
    );
    assert.equal(s5a.roots.length, 2);
    assert.equal(buildContext(s5a).messages.length, 0);
  });

  it("T5: the root is usually a model_change, and re-prompting the first user message makes a sibling (S4)", () => {
    const s = loadFixture(
      piSession("--home-u-src-proj--", "2026-11-29T18-50-21-044Z_01a228a4-d5f3-72b6-bece-7e855d2b0835.jsonl"),
    );
    assert.equal(s.byId.get(s.roots[0]!)!.type, "model_change");
    const userParents = s.entries.filter((e) => e.role === "user").map((e) => s.byId.get(e.parentId!)?.type);
    assert.ok(
      userParents.filter((t) => t === "thinking_level_change").length >= 2,
      "two user messages share the prologue parent",
    );
  });

  it("T6: v1 ids come from the physical line; firstKeptEntryIndex counts parsed records, header = 0", () => {
    const v1 = { type: "session", id: "v1", timestamp: iso(0), cwd: "/w" };
    const text = jsonl(
      v1,
      "",
      { type: "message", timestamp: iso(1), message: { role: "user", content: "one", timestamp: 1 } },
      "{broken",
      {
        type: "message",
        timestamp: iso(2),
        message: { role: "assistant", content: [], provider: "p", model: "m", timestamp: 2 },
      },
      { type: "message", timestamp: iso(3), message: { role: "user", content: "two", timestamp: 3 } },
      { type: "compaction", timestamp: iso(4), summary: "S", firstKeptEntryIndex: 3, tokensBefore: 10 },
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
    const file = piSession(
      "--home-u-src-legacy-v1--",
      "2026-11-29T18-50-19-307Z_99c6cd96-447c-4389-a78a-0ae32fa20c5b.jsonl",
    );
    const before = readFileSync(file);
    const s = loadFixture(file);
    assert.notEqual(s.header.id, "99c6cd96-447c-4389-a78a-0ae32fa20c5b");
    assert.ok(s.compactions.length >= 1 && s.compactions[0]!.firstKeptEntryId!.startsWith("L"));
    assert.deepEqual(readFileSync(file), before);
  });

  it('T7: branch_summary.fromId is its parent, or the literal "root" with parentId null', () => {
    const s = parseOk(
      jsonl(H, anthropicMessage("a", null, "user", "q"), {
        type: "branch_summary",
        id: "bs",
        parentId: null,
        timestamp: iso(2),
        fromId: "root",
        summary: "explored",
      }),
    );
    assert.deepEqual(s.roots, ["a", "bs"]);
    const ctx = plain(buildContext(s));
    assert.deepEqual(ctx.messages, [
      { role: "branchSummary", summary: "explored", fromId: "root", timestamp: Date.parse(iso(2)) },
    ]);
  });

  it("T8: pi {provider, modelId} vs OMP {model, role}; in pi an assistant message overrides the model", () => {
    const p = parseOk(
      jsonl(
        H,
        { type: "model_change", id: "m", parentId: null, timestamp: iso(0), provider: "openai", modelId: "gpt" },
        anthropicMessage("a", "m", "assistant", "r"),
      ),
    );
    assert.deepEqual(buildContext(p).model, { provider: "anthropic", modelId: "m1" });
    const o = parseOk(
      jsonl(
        H,
        { type: "model_change", id: "m", parentId: null, timestamp: iso(0), model: "openai/gpt-5", role: "default" },
        { type: "model_change", id: "n", parentId: "m", timestamp: iso(0), model: "anthropic/haiku", role: "smol" },
        anthropicMessage("a", "n", "assistant", "r"),
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
      timestamp: iso(2),
      summary: "s",
      firstKeptEntryId: "a",
      tokensBefore: 5,
      ...flag,
    });
    const p = parseOk(jsonl(H, anthropicMessage("a", null, "user", "q"), c({ fromHook: true })));
    const o = parseOk(jsonl(H, anthropicMessage("a", null, "user", "q"), c({ fromExtension: true })));
    assert.equal(p.flavor, "pi");
    assert.equal(o.flavor, "omp");
    assert.deepEqual([...p.diagnostics, ...o.diagnostics], []);
  });

  it("T10: parentSession is a path or a session id; v1 forks use branchedFrom", () => {
    assert.deepEqual(
      loadFixture(ompSession("-src-proj", "2026-11-29T18-50-22-033Z_01a228a4-d9d1-7000-a845-d846825115ab.jsonl"))
        .forkOf,
      { raw: "01a228a4-d9a2-7000-85ca-ecf671b91f93", kind: "id", field: "parentSession" },
    );
    assert.equal(
      loadFixture(ompSession("-src-proj", "2026-11-29T18-50-22-038Z_01a228a4-d9d6-7000-a79c-1eb84ee58afa.jsonl")).forkOf
        ?.kind,
      "path",
    );
    const v1 = loadFixture(
      piSession("--home-u-src-legacy-v1--", "2026-11-29T18-50-19-332Z_40138620-2fc9-46fe-acf5-df59248b38af.jsonl"),
    );
    assert.equal(v1.forkOf?.field, "branchedFrom");
    assert.equal(v1.forkOf?.kind, "path");
    assert.equal(parseOk(jsonl({ ...H, parentSession: "C:\\Users\\u\\s.jsonl" })).forkOf?.kind, "path");
  });

  it("T12: an OMP header-only file (slot + header) is a session with no entries; an empty file is rejected", () => {
    const s = loadFixture(
      ompSession("-src-proj", "2026-11-29T18-50-22-043Z_01a228a4-d9db-7000-8165-714d0e177185.jsonl"),
    );
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
    const s = parseOk(jsonl(H, anthropicMessage("a", null, "user", "q")).trimEnd());
    assert.equal(s.entries.length, 1);
    assert.equal(s.endsWithNewline, false);
    assert.equal(s.truncatedTail, false);
  });
});
