// One identity per branch (issue #40, item 1): numbered in the order the real pi 1.6's /tree lists branches (its
// TreeSelectorComponent's rows, asked through test/oracles/pi16), named from the raw file's prompts, and the same
// whichever filter hides entries around it.
import * as assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { branchesAt, branchesOnPath, branchHolding, branchStartingAt } from "../../src/core/branches.js";
import { FILTER_MODES, SessionOutline } from "../../src/core/outline.js";
import { parseSession, type Session } from "../../src/core/session/index.js";
import { header, message, toolCall, toolResult } from "../support/builders.js";
import { loadFixture, PI_FIXTURES, REAL } from "../support/fixtures.js";
import { jsonl, listFiles, withTempDir } from "../support/helpers.js";
import { askPi16 } from "../support/pi16.js";

interface Raw {
  type: string;
  id: string;
  parentId: string | null;
  message?: { role?: string; content?: unknown };
}
/** The file's entries as written (a line that is not JSON is skipped, as pi skips it). */
const rawOf = (file: string): Raw[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Raw];
      } catch {
        return [];
      }
    })
    .filter((r) => r && typeof r === "object" && r.type !== "session" && typeof r.id === "string");

const textOf = (r: Raw) =>
  typeof r.message?.content === "string"
    ? r.message.content
    : ((r.message?.content as { type: string; text?: string }[] | undefined) ?? [])
        .filter((b) => b.type === "text")
        .map((b) => b.text)
        .join(" ");

/**
 * A session whose branches nest and tie on timestamps; its leaf (the last line, u6) is in the branch of a1 the file
 * writes last, so pi lists that one first; below r3 no branch holds the leaf, so the older comes first.
 */
function nested(): string {
  return jsonl(
    header(),
    message("u1", null, "user", "root prompt", { time: 1 }),
    message("a1", "u1", "assistant", "first answer", { time: 2 }),
    message("u2", "a1", "user", "left prompt", { time: 3 }),
    toolCall("c3", "a1", "bash", { command: "ls" }, { time: 3 }),
    toolResult("r3", "c3", "c3", "bash", "x", { time: 4 }),
    message("u4", "r3", "user", "right prompt, first sub", { time: 5 }),
    message("u5", "r3", "user", "right prompt, second sub", { time: 6 }),
    message("a5", "u5", "assistant", "the answer", { time: 7 }),
    message("u6", "a1", "user", "third prompt, same second as the left", { time: 3 }),
  );
}

describe("branch identity", () => {
  const files = [...PI_FIXTURES, ...listFiles(join(REAL, "pi-1.6", "sessions"), ".jsonl")].filter((f) =>
    rawOf(f).some((r, i, all) => all.findIndex((x) => x.parentId === r.parentId) !== i),
  );

  it("numbers the branches of every branch point as the real pi 1.6's /tree lists them", () => {
    withTempDir((dir) => {
      const built = join(dir, "nested.jsonl");
      writeFileSync(built, nested());
      const all = [...files, built];
      assert.ok(files.length >= 3, `fixtures with branch points: ${files.length}`);
      const answers = askPi16<{ file: string; leafId: string | null; order: string[] }>({
        op: "treeOrder",
        files: all,
      });
      let points = 0;
      for (const { file, leafId, order } of answers) {
        const session = parseSession(file, readFileSync(file));
        assert.ok(session.ok, file);
        const s: Session = session.session;
        assert.equal(s.leafId, leafId, file);
        const rank = new Map(order.map((id, i) => [id, i]));
        const raw = rawOf(file);
        for (const at of new Set(raw.map((r) => r.parentId))) {
          const kids = raw.filter((r) => r.parentId === at).map((r) => r.id);
          if (kids.length < 2 || (at !== null && !s.byId.has(at))) continue;
          points++;
          const want = [...kids].sort((a, b) => rank.get(a)! - rank.get(b)!);
          const got = branchesAt(s, at);
          assert.deepEqual(
            got.map((b) => [b.startId, b.number, b.of]),
            want.map((id, i) => [id, i + 1, want.length]),
            `${file} at ${at}`,
          );
        }
      }
      assert.ok(points >= files.length, `branch points checked: ${points}`);
    });
  });

  it("names a branch by its first prompt on the way to its leaf (the session's, else its newest entry)", () => {
    const file = PI_FIXTURES.find((f) => f.includes("d4f8"))!;
    const raw = rawOf(file);
    const s = loadFixture(file);
    const below = (id: string) => {
      const out = new Set([id]);
      for (const r of raw) if (r.parentId && out.has(r.parentId)) out.add(r.id);
      return raw.filter((r) => out.has(r.id));
    };
    for (const b of branchesAt(s, "cba5122d")) {
      const sub = below(b.startId);
      const leaf = sub.some((r) => r.id === s.leafId) ? s.leafId : sub.at(-1)!.id;
      assert.equal(b.leafId, leaf);
      assert.equal(b.entries, sub.length);
      // The path from the start to the leaf, from the raw parent links.
      const byId = new Map(raw.map((r) => [r.id, r]));
      const path: Raw[] = [];
      for (let r = byId.get(leaf!); r && r.id !== "cba5122d"; r = r.parentId ? byId.get(r.parentId) : undefined)
        path.unshift(r);
      // As a label shows it: Markdown's code marks dropped (the prompts here hold no other marks).
      assert.equal(b.name, textOf(path.find((r) => r.message?.role === "user")!).replace(/`/g, ""));
    }
    // Without a prompt below it, a branch is named by what its first entry is.
    const s2 = parseSession("t.jsonl", Buffer.from(nested()));
    assert.ok(s2.ok);
    const right = branchesAt(s2.session, "r3");
    assert.deepEqual(
      right.map((b) => [b.startId, b.number, b.name]),
      [
        ["u4", 1, "right prompt, first sub"],
        ["u5", 2, "right prompt, second sub"],
      ],
    );
    assert.match(branchStartingAt(s2.session, "c3")!.name, /right prompt, second sub/);
    assert.equal(branchesAt(s2.session, "u1").length, 1, "a single child is no branch point");
    assert.equal(branchStartingAt(s2.session, "a1"), null);
  });

  it("the branch an entry is on, and the branches taken to reach it, outermost first", () => {
    const r = parseSession("t.jsonl", Buffer.from(nested()));
    assert.ok(r.ok);
    const s = r.session;
    assert.equal(branchHolding(s, "a5")!.startId, "u5");
    assert.equal(branchHolding(s, "r3")!.startId, "c3");
    assert.equal(branchHolding(s, "a1"), null);
    assert.deepEqual(
      branchesOnPath(s, "a5").map((b) => [b.atId, b.number, b.of]),
      [
        ["a1", 3, 3],
        ["r3", 2, 2],
      ],
    );
  });

  it("every filter shows a branch row under the same identity as the unfiltered tree", () => {
    for (const file of files) {
      const s = loadFixture(file);
      for (const filter of FILTER_MODES) {
        const outline = new SessionOutline(s, filter);
        const stack: (string | null)[] = [null];
        const seen = new Set<string | null>();
        while (stack.length) {
          const at = stack.pop()!;
          if (seen.has(at)) continue;
          seen.add(at);
          for (const item of outline.items(at)) {
            if (item.kind !== "branch") continue;
            stack.push(item.id);
            const b = branchHolding(s, item.id);
            assert.ok(b, `${file} ${filter} ${item.id}`);
            // The identity is the raw branch point's: the start is the row's entry or an ancestor of it.
            let e = s.byId.get(item.id);
            while (e && e.id !== b.startId) e = e.parentId ? s.byId.get(e.parentId) : undefined;
            assert.ok(e, `${file} ${filter}: ${b.startId} is above ${item.id}`);
            assert.equal(b, branchesAt(s, b.atId)[b.number - 1]);
          }
        }
      }
    }
  });
});
