// The transcript model (issue #16): the path root → leaf as items a reader needs, each built from the raw record.
import * as assert from "node:assert/strict";
import { transcript } from "../../src/core/transcript.js";
import { branchSummary, compaction, header, label, message, toolCall, toolResult, usage } from "../support/builders.js";
import { jsonl, parseOk } from "../support/helpers.js";

describe("transcript model", () => {
  //   u1 ─ a1(edit) ─ r1 ─ u2 ─ c1(compaction, keeps from u2) ─ l1(label) ─ a2 ─ b1(branch summary from a2) ─ u3
  const session = parseOk(
    jsonl(
      header(),
      message("u1", null, "user", [
        { type: "text", text: "fix it" },
        { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
      ]),
      toolCall("a1", "u1", "edit", { path: "src/a.ts", oldText: "let x = 1;", newText: "const x = 1;" }),
      toolResult("r1", "a1", "a1", "edit", "ok", { isError: true }),
      message("u2", "r1", "user", "now write"),
      compaction("c1", "u2", "u2", { summary: "## Goal\nfix", tokensBefore: 4200 }),
      label("l1", "c1", "u2", "checkpoint"),
      message(
        "a2",
        "l1",
        "assistant",
        [
          { type: "thinking", thinking: "hmm" },
          { type: "text", text: "done" },
          { type: "toolCall", id: "w", name: "write", arguments: { path: "b.ts", content: "export {}" } },
        ],
        { usage: usage(100, 20, 0.5, { read: 7 }), model: "gpt-5.1" },
      ),
      branchSummary("b1", "a2", "tried another way"),
      message("u3", "b1", "user", "blob please", {}),
    ),
  );

  it("follows the path in order, one item per readable entry", () => {
    const items = transcript(session);
    assert.deepEqual(
      items.map((i) => [i.entryId, i.kind]),
      [
        ["u1", "user"],
        ["a1", "assistant"],
        ["r1", "toolResult"],
        ["u2", "user"],
        ["c1", "compaction"],
        ["l1", "note"],
        ["a2", "assistant"],
        ["b1", "branchSummary"],
        ["u3", "user"],
      ],
    );
  });

  it("messages carry their text, images, thinking, tool calls with edits and writes, results and usage", () => {
    const items = transcript(session);
    const u1 = items[0] as Extract<(typeof items)[number], { kind: "user" }>;
    assert.equal(u1.text, "fix it");
    assert.deepEqual(u1.images, [{ mimeType: "image/png", data: "iVBORw0KGgo=", blob: null }]);
    const a1 = items[1] as Extract<(typeof items)[number], { kind: "assistant" }>;
    const call = a1.blocks[0] as Extract<(typeof a1.blocks)[number], { type: "toolCall" }>;
    assert.equal(call.name, "edit");
    assert.equal(call.summary, "src/a.ts");
    assert.deepEqual(call.edits, [{ oldText: "let x = 1;", newText: "const x = 1;" }]);
    assert.equal(call.moreArguments, true);
    const r1 = items[2] as Extract<(typeof items)[number], { kind: "toolResult" }>;
    assert.deepEqual([r1.toolName, r1.text, r1.isError, r1.toolCallId], ["edit", "ok", true, "call-a1"]);
    const a2 = items[6] as Extract<(typeof items)[number], { kind: "assistant" }>;
    assert.deepEqual(
      a2.blocks.map((b) => b.type),
      ["thinking", "text", "toolCall"],
    );
    assert.equal((a2.blocks[2] as { written?: string }).written, "export {}");
    assert.deepEqual(a2.usage, { input: 100, output: 20, cacheRead: 7, cacheWrite: 0, cost: 0.5 });
    assert.equal(a2.model, "openai/gpt-5.1");
  });

  it("a compaction card counts the entries it replaced; a branch summary names where it came from", () => {
    const items = transcript(session);
    const c1 = items[4] as Extract<(typeof items)[number], { kind: "compaction" }>;
    assert.deepEqual([c1.summary, c1.tokensBefore, c1.replaced], ["## Goal\nfix", 4200, 3]); // u1, a1, r1
    const b1 = items[7] as Extract<(typeof items)[number], { kind: "branchSummary" }>;
    assert.deepEqual([b1.summary, b1.fromId], ["tried another way", "a2"]);
    assert.match((items[5] as { text: string }).text, /label "checkpoint"/);
  });

  it("another leaf gives that branch; inherited ids are marked; an OMP blob reference is kept for the caller", () => {
    assert.deepEqual(
      transcript(session, { leafId: "a1" }).map((i) => i.entryId),
      ["u1", "a1"],
    );
    const marked = transcript(session, { inherited: new Set(["u1", "a1"]) });
    assert.deepEqual(
      marked.filter((i) => i.inherited).map((i) => i.entryId),
      ["u1", "a1"],
    );
    const hash = "a".repeat(64);
    const blob = parseOk(
      jsonl(
        header(),
        message("u1", null, "user", [{ type: "image", mimeType: "image/png", data: `blob:sha256:${hash}` }]),
      ),
    );
    const u = transcript(blob)[0] as { images: unknown[] };
    assert.deepEqual(u.images, [{ mimeType: "image/png", data: null, blob: hash }]);
  });
});
