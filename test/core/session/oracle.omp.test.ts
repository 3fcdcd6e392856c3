/**
 * OMP needs Bun, so OMP 18.2.3 is not run in the tests: its answers were computed by the real OMP code
 * and stored next to the fixtures (fixtures/real/oracles, format in ORACLE-FORMAT.md).
 */
import { strict as assert } from "node:assert";
import { buildContext } from "../../../src/core/context/index.js";
import { plain } from "../../support/helpers.js";
import { loadFixture, OMP_FIXTURES, oracleFor, rel } from "../../support/fixtures.js";

type OracleNode = { id: string; children: string[]; label?: string };

describe("oracle: OMP 18.2.3 answers on every OMP fixture", () => {
  for (const file of OMP_FIXTURES) {
    it(rel(file), () => {
      const oracle = oracleFor(file) as Record<string, any>;
      assert.equal(oracle.loadable, true);
      const s = loadFixture(file);
      assert.equal(s.flavor, "omp");
      assert.deepEqual(
        s.entries.map((e) => e.id),
        oracle.entryIds,
        "entry ids in file order",
      );
      assert.deepEqual(
        s.entries.map((e) => e.type),
        oracle.entryTypes,
        "entry types",
      );
      assert.equal(s.leafId, oracle.leafId ?? null, "active leaf");
      assert.equal(s.header.id, oracle.sessionId, "session id");
      assert.equal(s.name, oracle.sessionName ?? null, "title");
      assert.equal(s.titleSource, oracle.titleSource ?? null, "title source");
      assert.equal(s.titleSlot === null, oracle.loader.titleSlot === null, "title slot presence");
      if (s.titleSlot) assert.equal(s.titleSlot.title, oracle.loader.titleSlot.title);
      assert.deepEqual(s.roots, oracle.treeRoots, "roots");
      for (const node of oracle.tree as OracleNode[]) {
        assert.deepEqual(s.children.get(node.id) ?? [], node.children, `children of ${node.id}`);
        assert.equal(s.labels.get(node.id)?.label, node.label, `label on ${node.id}`);
      }
      assert.equal(
        (oracle.tree as OracleNode[]).length + s.detached.length,
        s.entries.length,
        "tree covers every entry",
      );

      const ctx = plain(buildContext(s));
      const o = oracle.context;
      assert.deepEqual(
        ctx.messages.map((m) => m.role),
        o.messages.map((m: { role: string }) => m.role),
        "context roles",
      );
      // Persisted messages are replayed verbatim; synthetic ones (summaries) carry OMP's extra UI fields.
      ctx.messages.forEach((m, i) => {
        if (["user", "assistant", "toolResult"].includes(m.role))
          assert.deepEqual(m, o.messages[i], `context message ${i}`);
      });
      assert.equal(ctx.thinkingLevel, o.thinkingLevel, "thinking level");
      assert.equal(ctx.configuredThinkingLevel ?? null, o.configuredThinkingLevel ?? null, "configured thinking level");
      assert.deepEqual(ctx.models, o.models, "model roles");
      assert.deepEqual(ctx.injectedTtsrRules, o.injectedTtsrRules, "TTSR rules");
      assert.equal(ctx.mode, o.mode, "mode");
    });
  }
});
