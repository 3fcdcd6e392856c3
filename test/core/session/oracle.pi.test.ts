/**
 * Oracle tests: every pi fixture is opened by the real pi SessionManager (0.73.1) in the test, on a
 * temporary copy (pi rewrites v1/v2 files and files with a bad header when it opens them), and our
 * reader must agree on entries, parents, children order, roots, leaf, labels, name and context.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { buildContext } from "../../../src/core/context/index.js";
import { parseSession } from "../../../src/core/session/index.js";
import { plain, tempCopy, withTempDir } from "../../support/helpers.js";
import { PI_FIXTURES, rel } from "../../support/fixtures.js";

type PiEntry = { id: string; parentId: string | null; type: string };
type PiNode = { entry: PiEntry; children: PiNode[]; label?: string };

describe("oracle: real pi 0.73.1 SessionManager on every pi fixture", () => {
  for (const file of PI_FIXTURES) {
    it(rel(file), () => {
      withTempDir((dir) => {
        const copy = tempCopy(dir, file);
        const before = readFileSync(file);
        const sm = SessionManager.open(copy);
        const piEntries = sm.getEntries() as unknown as PiEntry[];
        const ours = parseSession(file, before);

        if (piEntries.length === 0 && readFileSync(copy, "utf8") !== before.toString("utf8")) {
          // pi found no valid header and replaced the copy with a fresh one: we must reject the file.
          assert.equal(ours.ok, false, "pi refused this file (replaced it), so must we");
          return;
        }
        assert.ok(ours.ok, `we rejected a file pi loads: ${JSON.stringify(!ours.ok && ours.rejection)}`);
        const s = ours.session;
        assert.equal(s.flavor, "pi");
        assert.equal(s.entries.length, piEntries.length, "entry count");
        assert.deepEqual(
          s.entries.map((e) => e.type),
          piEntries.map((e) => e.type),
          "entry types in file order",
        );

        // v1 files get random ids from pi on every load: translate pi ids to ours by file-order index.
        const idMap = new Map<string, string>();
        piEntries.forEach((e, i) => idMap.set(e.id, s.entries[i]!.id));
        // An orphan's parent id is not an entry (T4): it stays as written.
        const tr = (id: string | null | undefined) => (id == null ? id : (idMap.get(id) ?? id));
        if (s.version >= 2)
          assert.deepEqual(
            s.entries.map((e) => e.id),
            piEntries.map((e) => e.id),
            "ids",
          );

        assert.deepEqual(
          s.entries.map((e) => e.parentId),
          piEntries.map((e) => tr(e.parentId) ?? null),
          "parents",
        );
        assert.equal(s.leafId, tr(sm.getLeafId()), "active leaf");

        const tree = sm.getTree() as unknown as PiNode[];
        assert.deepEqual(
          s.roots,
          tree.map((n) => tr(n.entry.id)),
          "roots",
        );
        const stack = [...tree];
        let visited = 0;
        while (stack.length) {
          const node = stack.pop()!;
          visited++;
          const id = tr(node.entry.id)!;
          assert.deepEqual(
            s.children.get(id) ?? [],
            node.children.map((c) => tr(c.entry.id)),
            `children of ${id}`,
          );
          assert.equal(s.labels.get(id)?.label, node.label, `label on ${id}`);
          stack.push(...node.children);
        }
        assert.equal(
          visited + s.detached.length,
          s.entries.filter((e) => !e.shadowed).length,
          "every entry is in the tree or detached",
        );
        assert.equal(s.name, sm.getSessionName() ?? null, "session name");

        const piContext = plain(sm.buildSessionContext());
        const ourContext = plain(buildContext(s));
        // v1 messages carry no entry ids (v1 has no branch summaries), so they compare verbatim too.
        assert.deepEqual(ourContext.messages, piContext.messages, "context messages");
        assert.equal(ourContext.thinkingLevel, piContext.thinkingLevel, "thinking level");
        assert.deepEqual(ourContext.model ?? null, piContext.model ?? null, "model");
      });
    });
  }

  it("context at every entry of the tree equals pi's buildSessionContext at that leaf", () => {
    let compared = 0;
    for (const file of PI_FIXTURES) {
      const ours = parseSession(file, readFileSync(file));
      if (!ours.ok || ours.session.version < 2) continue;
      withTempDir((dir) => {
        const sm = SessionManager.open(tempCopy(dir, file));
        for (const entry of ours.session.entries) {
          sm.branch(entry.id);
          assert.deepEqual(
            plain(buildContext(ours.session, entry.id)).messages,
            plain(sm.buildSessionContext()).messages,
            `${rel(file)} @ ${entry.id}`,
          );
          compared++;
        }
      });
    }
    assert.ok(compared > 200, `compared ${compared} leaves`);
  });
});
