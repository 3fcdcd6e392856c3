// The tree index (core/session/treeIndex.ts) on sessions drawn as tree sketches (test/support/sketch.ts): roots,
// children in pi's order, the leaf and paths, as the sketch draws them.
import * as assert from "node:assert/strict";
import { parseSession, pathTo, type Session } from "../../../src/core/session/index.js";
import { jsonl } from "../../support/helpers.js";
import { sketch, sketchLines } from "../../support/sketch.js";

function parsed(text: string): Session {
  const r = parseSession("/s.jsonl", jsonl(...sketch(text)));
  assert.ok(r.ok, "the sketch parses");
  return r.session;
}

describe("the tree index on sketched sessions", () => {
  it("a sketch gives each line the parent one level up", () => {
    const lines = sketchLines(`
      u1 user hi
        a1 assistant hello
          u2 user left
          u3 user right
            a3 assistant ok
      r2 user second root
    `);
    assert.deepEqual(
      lines.map((l) => [l.id, l.parentId]),
      [
        ["u1", null],
        ["a1", "u1"],
        ["u2", "a1"],
        ["u3", "a1"],
        ["a3", "u3"],
        ["r2", null],
      ],
    );
    assert.throws(() => sketchLines("u1 user hi\n      a1 assistant skipped a level"), /no parent one level up/);
  });

  it("roots, children in drawn order, the last line as the leaf, and the path to it", () => {
    const s = parsed(`
      u1 user hi
        a1 assistant hello
          u2 user left
            a2 assistant fine
          u3 user right
      r2 user another root
        b1 assistant of the second root
    `);
    assert.deepEqual(s.roots, ["u1", "r2"]);
    assert.deepEqual(s.children.get("a1"), ["u2", "u3"]);
    assert.deepEqual(s.children.get("r2"), ["b1"]);
    assert.equal(s.leafId, "b1");
    assert.deepEqual(
      pathTo(s, "a2").map((e) => e.id),
      ["u1", "a1", "u2", "a2"],
    );
    assert.deepEqual(s.detached, []);
    assert.deepEqual(
      s.diagnostics.map((d) => d.code),
      [],
    );
  });

  it("typed message views: the role, the text blocks and the usage the reader narrowed", () => {
    const s = parsed(`
      u1 user what is 2+2
        a1 assistant four
    `);
    const a1 = s.byId.get("a1")!;
    assert.equal(a1.message?.role, "assistant");
    assert.deepEqual(
      a1.message?.blocks.map((b) => [b.type, b.type === "text" ? b.text : null]),
      [["text", "four"]],
    );
    assert.equal(typeof a1.message?.usage?.input, "number");
    assert.equal(s.byId.get("u1")!.message?.content, "what is 2+2");
  });
});
