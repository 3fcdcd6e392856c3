// The shapes pi 1.6 writes, in src/core/schema.ts: every `usage` and `context_edit` entry and every `system` message
// the real pi 1.6.0 wrote (fixtures/real/pi-1.6, README.md there) matches its schema, the fields pi 1.6 added to
// assistant messages, tool results and compactions raise no schema diagnostic, and a record of one of these kinds
// with a field of the wrong shape is reported.
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validateEntry } from "../../src/core/schema.js";
import { listFiles } from "../support/helpers.js";
import { REAL } from "../support/fixtures.js";

const FILES = listFiles(join(REAL, "pi-1.6", "sessions"), ".jsonl");
const records = FILES.flatMap((f) =>
  readFileSync(f, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => ({ file: f, record: JSON.parse(l) as Record<string, any> })),
);
const entries = records.filter((r) => r.record.type !== "session");
const ofType = (t: string) => entries.filter((r) => r.record.type === t);
const systemMessages = entries.filter((r) => r.record.type === "message" && r.record.message?.role === "system");

describe("schema: the shapes pi 1.6 writes", () => {
  it("the fixtures hold every new shape (counted from the raw lines)", () => {
    assert.equal(FILES.length, 8);
    assert.ok(ofType("usage").length >= 2, "cache_warm usage entries (S1, copied into S6)");
    assert.ok(
      ofType("context_edit").some((r) => r.record.replacement === null),
      "a context_edit dropping a target",
    );
    assert.ok(
      ofType("context_edit").some((r) => r.record.replacement !== null),
      "a context_edit replacing content",
    );
    assert.ok(
      systemMessages.some((r) => r.record.message.toolsRemoved),
      "a system message removing tools (S3)",
    );
    assert.ok(
      entries.some((r) => r.record.message?.role === "toolResult" && r.record.message.nestedCalls),
      "a tool result with nested calls (S4)",
    );
    assert.ok(
      ofType("compaction").some((r) => r.record.systemMessage),
      "a compaction with its system message (S3)",
    );
  });

  it("every usage and context_edit entry and every system message matches its schema", () => {
    const checked = [...ofType("usage"), ...ofType("context_edit"), ...systemMessages];
    for (const { file, record } of checked)
      assert.deepEqual(validateEntry(record), [], `${file}: ${record.type} ${record.id}`);
  });

  it("pi 1.6's new fields raise no diagnostic on the kinds the reader knows", () => {
    const known = entries.filter(
      (r) => ["compaction", "message"].includes(r.record.type) && r.record.message?.role !== "system",
    );
    assert.ok(known.length > 50);
    for (const { file, record } of known) assert.deepEqual(validateEntry(record), [], `${file}: ${record.id}`);
  });

  it("a record of a pi 1.6 kind with a field of the wrong shape is reported", () => {
    const usage = structuredClone(ofType("usage")[0]!.record);
    delete usage.usage.cacheRead;
    assert.match(validateEntry(usage).join("; "), /usage\.cacheRead/);
    const edit = { ...ofType("context_edit")[0]!.record, replacement: "text, not {content}" };
    assert.match(validateEntry(edit).join("; "), /replacement/);
    const system = structuredClone(systemMessages[0]!.record);
    system.message.sections = { preamble: 42 };
    assert.match(validateEntry(system).join("; "), /message\.sections/);
    // A kind nobody writes has no schema (it is an unknown-entry-type diagnostic, not a schema one).
    assert.deepEqual(validateEntry({ type: "not_a_kind", id: "x", parentId: null }), []);
  });
});
