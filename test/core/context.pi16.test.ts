// pi 1.6's effective context (`buildSessionContext()`, `buildSessionProjection().entries` and the context at every
// other tip, `branchContexts`), computed by pi 1.6.0's own code into the fixtures' oracles
// (fixtures/real/pi-1.6/README.md), equals ours on every file: system messages replayed, context edits applied,
// a compaction's `systemMessage` before its summary, retain-none compactions.
import * as assert from "node:assert/strict";
import { buildContext } from "../../src/core/context/index.js";
import { plain } from "../support/helpers.js";
import { parsedFixture, PI16_FILES, pi16Oracle, shortName } from "../support/pi16Fixtures.js";

const FILES = PI16_FILES;
const oracle = pi16Oracle;
const short = shortName;
const parsed = parsedFixture;

describe("pi 1.6 sessions: the tree as pi 1.6.0 reads it", () => {
  for (const file of FILES) {
    it(`${short(file)}: entries, roots, children, leaf, labels and name equal getTree()`, () => {
      const want = oracle(file);
      const s = parsed(file);
      assert.equal(s.header.id, want.sessionId);
      assert.deepEqual(
        s.entries.map((e) => e.id),
        want.entryIds,
      );
      assert.deepEqual(
        s.entries.map((e) => e.type),
        want.entryTypes,
      );
      assert.equal(s.leafId, want.leafId);
      assert.deepEqual(s.roots, want.treeRoots);
      for (const node of want.tree as { id: string; children: string[] }[])
        assert.deepEqual(s.children.get(node.id) ?? [], node.children, `children of ${node.id}`);
      assert.deepEqual(Object.fromEntries([...s.labels].map(([id, l]) => [id, l.label])), want.labels);
      assert.equal(s.name, want.sessionName ?? null);
    });
  }
});

describe("pi 1.6 sessions: the effective context as pi 1.6.0 builds it", () => {
  for (const file of FILES) {
    it(`${short(file)}: context and projection equal buildSessionProjection()`, () => {
      const want = oracle(file);
      const ours = plain(buildContext(parsed(file)));
      assert.deepEqual(ours.messages, want.context.messages, "messages");
      assert.equal(ours.thinkingLevel, want.context.thinkingLevel, "thinking level");
      assert.deepEqual(ours.model, want.context.model, "model");
      assert.deepEqual(
        ours.entries.map((e) => ({ id: e.entryId, type: e.type, messages: e.messages.length })),
        want.projection.entries,
        "projection",
      );
    });
  }

  it("the context at every other tip equals pi's branchContexts", () => {
    let compared = 0;
    for (const file of FILES) {
      const tips = oracle(file).branchContexts ?? {};
      const session = parsed(file);
      for (const [tip, want] of Object.entries<{ messages: unknown[]; thinkingLevel: string }>(tips)) {
        const ours = plain(buildContext(session, tip));
        assert.deepEqual(ours.messages, want.messages, `${short(file)} @ ${tip}`);
        assert.equal(ours.thinkingLevel, want.thinkingLevel);
        compared++;
      }
    }
    assert.ok(compared >= 3, `compared ${compared} tips`);
  });

  it("what the fixtures exercise is there: edits omitted and replaced, a checkpoint, a retain-none compaction", () => {
    const contexts = FILES.map((f) => buildContext(parsed(f)));
    const edits = contexts.flatMap((c) => c.entries.flatMap((e) => (e.edit ? [e.edit] : [])));
    assert.ok(
      edits.some((e) => e.omitted),
      "a context_edit with replacement null",
    );
    assert.ok(
      edits.some((e) => !e.omitted),
      "a context_edit replacement",
    );
    assert.ok(
      contexts.some((c) => c.messages[0]?.role === "system" && c.messages[1]?.role === "compactionSummary"),
      "a compaction's systemMessage before its summary",
    );
  });
});
