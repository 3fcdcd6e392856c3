// Full-text search (issue #17, first part): the SQLite FTS5 index over a store, kept current as files are appended,
// rewritten and deleted; every role found, fork copies once with the forks that carry them, image data and
// signatures never indexed, odd queries never an exception, a corrupt index rebuilt; and `pi-sessions search`.
import * as assert from "node:assert/strict";
import { appendFileSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";

import { SearchIndex } from "../../../src/node/search/searchIndex.js";
import { indexTargets } from "../../../src/node/search/targets.js";
import { header, label, message } from "../../support/builders.js";
import { ownedStore, writeForkFamily } from "../../support/forkFamily.js";
import { jsonl, withTempDir } from "../../support/helpers.js";
import { dump, everyRole, find, IMAGE_DATA, projectDir, ROOTS, targetsOf } from "./searchHelpers.js";

describe("search index", () => {
  it("finds every kind of text with its role; thinking only when asked; image data and signatures never", async () => {
    await withTempDir(async (dir) => {
      const slug = join(dir, "agent", "sessions", "--w-alpha--");
      mkdirSync(slug, { recursive: true });
      writeFileSync(join(slug, "roles.jsonl"), everyRole());
      const store = await ownedStore(join(dir, "agent"));
      const index = await SearchIndex.open(join(dir, "cache"), ROOTS);
      try {
        assert.deepEqual(await index.update(indexTargets(store.sessions)), {
          indexed: 1,
          appended: 0,
          removed: 0,
          pending: 0,
        });
        const roleOf = (q: string) => find(index, q).map((h) => [h.entryId, h.role, h.tool]);
        assert.deepEqual(roleOf("zebraprompt"), [["u1", "user", null]]);
        assert.deepEqual(roleOf("ocelotreply"), [["a1", "assistant", null]]);
        assert.deepEqual(roleOf("narwhalcmd"), [["a1", "tool", "bash"]], "a tool call's arguments, verbatim");
        assert.deepEqual(roleOf("yakoutput"), [["r1", "tool", "bash"]]);
        assert.deepEqual(roleOf("wombatdir"), [["b1", "tool", "bash"]]);
        assert.deepEqual(roleOf("lemursummary"), [["k1", "summary", null]]);
        assert.deepEqual(roleOf("ibexbranch"), [["s1", "summary", null]]);
        assert.deepEqual(roleOf("badgerlabel"), [["l1", "meta", null]]);
        assert.deepEqual(roleOf("falcon"), [["n1", "meta", null]]);
        assert.deepEqual(roleOf("gecko"), [["m1", "custom", null]]);
        assert.deepEqual(roleOf("quokkathought"), [], "thinking is off by default");
        assert.deepEqual(roleOf("quokkathought role:thinking"), [["a1", "thinking", null]]);
        assert.deepEqual(roleOf(IMAGE_DATA), []);
        assert.deepEqual(roleOf("sigsecretword role:thinking"), []);
        // Filters: role, tool, project, days, session prefix; a phrase; a prefix; an exclusion.
        assert.deepEqual(roleOf("ENOENT tool:bash role:tool"), [["r1", "tool", "bash"]]);
        assert.deepEqual(roleOf("ENOENT tool:read"), []);
        assert.equal(find(index, "zebraprompt project:alpha").length, 1);
        assert.equal(find(index, "zebraprompt project:beta").length, 0);
        assert.equal(find(index, "zebraprompt since:2026-01-01 until:2026-01-01").length, 1);
        assert.equal(find(index, "zebraprompt since:2026-01-02").length, 0);
        assert.equal(find(index, "zebraprompt session:rol").length, 1);
        assert.equal(find(index, '"no such file"').length, 1);
        assert.equal(find(index, '"such no file"').length, 0);
        assert.equal(find(index, "narwh*").length, 1);
        assert.equal(find(index, "zebraprompt -please").length, 0);
        assert.match(find(index, "yakoutput")[0]!.snippet, /«yakoutput»/);
      } finally {
        index.close();
      }
    });
  });

  it("a fork's copies are indexed once, in the parent, and the hit names the fork that carries them", async () => {
    await withTempDir(async (dir) => {
      const { agent, parent, child } = writeForkFamily(dir, {
        prompt: "sharedword prompt",
        answer: "sharedword answer",
        own: "ownword",
      });
      const store = await ownedStore(agent);
      const index = await SearchIndex.open(join(dir, "cache"), ROOTS);
      try {
        await index.update(indexTargets(store.sessions));
        const hits = find(index, "sharedword");
        assert.deepEqual(hits.map((h) => [h.file, h.entryId, h.alsoIn]).sort(), [
          [parent, "a1", [child]],
          [parent, "u1", [child]],
        ]);
        assert.deepEqual(
          find(index, "ownword").map((h) => [h.file, h.alsoIn]),
          [[child, []]],
        );
        // The parent deleted: the fork's copies are its own now, and found there.
        rmSync(parent);
        await index.update(indexTargets((await ownedStore(agent)).sessions));
        assert.deepEqual(
          find(index, "sharedword")
            .map((h) => [h.file, h.entryId])
            .sort(),
          [
            [child, "a1"],
            [child, "u1"],
          ],
        );
      } finally {
        index.close();
      }
    });
  });

  it("keeps current: appended, rewritten and deleted files; unchanged files are not read again", async () => {
    await withTempDir(async (dir) => {
      const { agent, slug } = projectDir(dir);
      const a = join(slug, "a.jsonl");
      const b = join(slug, "b.jsonl");
      writeFileSync(a, jsonl(header({ id: "a" }), message("u1", null, "user", "firstword")));
      writeFileSync(b, jsonl(header({ id: "b" }), message("u1", null, "user", "otherword")));
      const index = await SearchIndex.open(join(dir, "cache"), ROOTS);
      try {
        assert.equal((await index.update(await targetsOf(agent))).indexed, 2);
        assert.equal((await index.update(await targetsOf(agent))).indexed, 0, "nothing changed");
        appendFileSync(a, jsonl(message("u2", "u1", "user", "appendedword")));
        assert.deepEqual(await index.update(await targetsOf(agent)), {
          indexed: 1,
          appended: 1,
          removed: 0,
          pending: 0,
        });
        assert.equal(find(index, "appendedword").length, 1);
        assert.equal(find(index, "firstword").length, 1, "the rest of the file is still there, once");
        writeFileSync(a, jsonl(header({ id: "a" }), message("u1", null, "user", "rewrittenword")));
        utimesSync(a, new Date(), new Date(Date.now() + 5000));
        await index.update(await targetsOf(agent));
        assert.equal(find(index, "rewrittenword").length, 1);
        assert.equal(find(index, "firstword").length, 0);
        rmSync(b);
        assert.equal((await index.update(await targetsOf(agent))).removed, 1);
        assert.equal(find(index, "otherword").length, 0);
        assert.deepEqual(index.stats(), { sessions: 1, entries: 1 });
      } finally {
        index.close();
      }
    });
  });

  it("an append is indexed from the last offset, and gives what indexing the whole file gives", async () => {
    type Op = { kind: "reply" | "branch" | "dup" | "partial" | "label" | "redact" | "insert"; back: number };
    const op = fc.record({
      kind: fc.constantFrom<Op["kind"]>("reply", "reply", "branch", "dup", "partial", "label", "redact", "insert"),
      back: fc.nat(20),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
        await withTempDir(async (dir) => {
          const { agent, slug } = projectDir(dir);
          const file = join(slug, "s.jsonl");
          writeFileSync(file, jsonl(header({ id: "s" })));
          const live = await SearchIndex.open(join(dir, "live"), ROOTS);
          const ids: string[] = [];
          let leaf: string | null = null;
          try {
            await live.update(await targetsOf(agent));
            for (const [n, o] of ops.entries()) {
              const earlier = ids.length ? ids[o.back % ids.length]! : null;
              let id = `e${n}`;
              let parent = leaf;
              if (o.kind === "branch") parent = earlier;
              if (o.kind === "dup" && earlier) id = earlier;
              const line =
                o.kind === "label" && earlier
                  ? jsonl(label(id, leaf ?? earlier, earlier, `tag${n}`))
                  : jsonl(message(id, parent, n % 2 ? "assistant" : "user", `word${n} text${o.back}`, { time: n }));
              if ((o.kind === "redact" || o.kind === "insert") && ids.length) {
                // An edit in place (same inode): a word of an earlier line replaced, at the same length or longer.
                const text = readFileSync(file, "utf8");
                const at = text.indexOf(`word${o.back % n}`);
                if (at >= 0) {
                  const word = o.kind === "redact" ? "XXXX" : "wordlonger";
                  const edited = `${text.slice(0, at)}${word}${text.slice(at + 4)}`;
                  writeFileSync(file, edited);
                  utimesSync(file, new Date(), new Date(Date.now() + 1000 * (n + 1)));
                  await live.update(await targetsOf(agent));
                }
                continue;
              }
              if (o.kind === "partial") {
                appendFileSync(file, line.slice(0, line.length >> 1));
                await live.update(await targetsOf(agent));
                appendFileSync(file, line.slice(line.length >> 1));
              } else appendFileSync(file, line);
              await live.update(await targetsOf(agent));
              ids.push(id);
              leaf = id;
            }
          } finally {
            live.close();
          }
          const whole = await SearchIndex.open(join(dir, "whole"), ROOTS);
          try {
            await whole.update(await targetsOf(agent));
          } finally {
            whole.close();
          }
          assert.deepEqual(await dump(live.file), await dump(whole.file), JSON.stringify(ops));
        });
      }),
      { numRuns: 30 },
    );
  });

  it("an OMP title slot rewritten in place, or a shrunk file, is indexed whole again", async () => {
    await withTempDir(async (dir) => {
      const { agent, slug } = projectDir(dir);
      const file = join(slug, "s.jsonl");
      const slot = (title: string) => {
        const line = JSON.stringify({ type: "title", v: 1, title, updatedAt: "2026-01-01T00:00:00Z", pad: "" });
        return `${line.slice(0, -2)}${" ".repeat(255 - line.length)}"}\n`;
      };
      const body = jsonl(header({ id: "s" }), message("u1", null, "user", "slotprompt"));
      writeFileSync(file, slot("") + body);
      const index = await SearchIndex.open(join(dir, "cache"), ROOTS);
      try {
        await index.update(await targetsOf(agent));
        writeFileSync(file, slot("kestrel title") + body + jsonl(message("a1", "u1", "assistant", "slotreply")));
        assert.equal(slot("kestrel title").length, slot("").length);
        assert.deepEqual(await index.update(await targetsOf(agent)), {
          indexed: 1,
          appended: 0,
          removed: 0,
          pending: 0,
        });
        assert.deepEqual(
          find(index, "kestrel").map((h) => [h.entryId, h.role, h.snippet, h.active]),
          [["", "meta", "«kestrel» title", true]],
        );
        assert.equal(find(index, "slotreply").length, 1);
        assert.equal(find(index, "slotprompt").length, 1);
        writeFileSync(
          file,
          slot("kestrel title") + jsonl(header({ id: "s" }), message("u9", null, "user", "shortword")),
        );
        await index.update(await targetsOf(agent));
        assert.equal(find(index, "slotreply").length, 0);
        assert.equal(find(index, "shortword").length, 1);
      } finally {
        index.close();
      }
    });
  });
});
