// The explorer's outline of a session: turns, branch points, filters and lazy levels (plain Node, real fixtures).
import * as assert from "node:assert/strict";
import { type OutlineItem, SessionOutline } from "../../src/core/outline.js";
import { resumeCommand } from "../../src/core/resume.js";
import { jsonl, parseOk } from "../support/helpers.js";
import { loadFixture, PI_FIXTURES } from "../support/fixtures.js";
import { branchSummary, compaction, header, message, toolCall, toolResult } from "../support/builders.js";

const S2 = () => loadFixture(PI_FIXTURES.find((f) => f.includes("d4f8"))!);
const S3 = () => loadFixture(PI_FIXTURES.find((f) => f.includes("d565"))!);
const shape = (items: OutlineItem[]) =>
  items.map((i) => [
    i.kind,
    i.id,
    ...(i.kind === "turn" ? [i.folded] : []),
    ...(i.kind === "branch" ? [i.index, i.of, i.active] : []),
  ]);

describe("SessionOutline", () => {
  it("default: a linear run reads as turns; a branch point lists its branches, the active one first", () => {
    const o = new SessionOutline(S2(), "default");
    assert.deepEqual(shape(o.items(null)), [
      ["turn", "3a09a93f", ["9e63cbb7", "fc24ea2f", "c699fe70"]],
      ["branch", "d3453f8f", 1, 2, true],
      ["branch", "5299e542", 2, 2, false],
    ]);
    assert.deepEqual(shape(o.items("d3453f8f")), [["turn", "d3453f8f", ["13f58b53", "274f77aa"]]]);
    assert.deepEqual(shape(o.items("5299e542")), [
      ["turn", "5299e542", ["7e8944b0"]],
      ["turn", "d5aa019e", ["78e162c0", "27948dd9", "56cb835d"]],
      ["turn", "cefc2657", ["b43642af"]],
    ]);
    // The leaf (a label entry) is hidden: its nearest visible ancestor carries the marker.
    assert.equal(o.session.leafId, "3603b1f1");
    assert.equal(o.visibleLeafId, "274f77aa");
    assert.equal(o.items("d3453f8f")[0]!.active, true);
    assert.equal(o.items("5299e542")[0]!.active, false);
    assert.equal(o.subtreeSize("5299e542"), 10);
  });

  it("user-only, labeled-only, no-tools and all behave like pi's /tree filters", () => {
    const s = S2();
    assert.deepEqual(shape(new SessionOutline(s, "user-only").items(null)), [
      ["turn", "3a09a93f", []],
      ["branch", "d3453f8f", 1, 2, true],
      ["branch", "5299e542", 2, 2, false],
    ]);
    assert.deepEqual(shape(new SessionOutline(s, "labeled-only").items(null)), [["entry", "c699fe70"]]);
    assert.deepEqual(shape(new SessionOutline(s, "no-tools").items(null))[0], ["turn", "3a09a93f", ["c699fe70"]]);
    const all = new SessionOutline(s, "all");
    assert.deepEqual(shape(all.items(null)).slice(0, 3), [
      ["entry", "05d457cc"],
      ["entry", "71d9fda9"],
      ["turn", "3a09a93f", ["9e63cbb7", "fc24ea2f", "c699fe70", "cba5122d"]],
    ]);
    assert.equal(all.visibleLeafId, "3603b1f1");
  });

  it("compactions stand on their own rows between turns", () => {
    const rows = new SessionOutline(S3(), "default").items(null);
    assert.deepEqual(
      rows.map((r) => r.kind),
      ["turn", "turn", "turn", "entry", "turn", "turn", "entry", "turn"],
    );
    assert.deepEqual(
      rows.filter((r) => r.kind === "entry").map((r) => r.id),
      ["ab29b34a", "b608042e"],
    );
  });

  it("several roots become branches; parent cycles do not loop", () => {
    //  a  user "one"        (root)
    //  b  user "two"        (root)
    //  c ⇄ d                (each the other's parent: reachable from no root; d is the last line, the leaf)
    const s = parseOk(
      jsonl(
        header(),
        message("a", null, "user", "one", { time: 1 }),
        message("b", null, "user", "two", { time: 2 }),
        message("c", "d", "user", "cycle", { time: 3 }),
        message("d", "c", "user", "cycle", { time: 4 }),
      ),
    );
    const o = new SessionOutline(s, "default");
    // The active leaf (the last entry, in the cycle) is under no root: no branch is active, timestamp order stays.
    assert.deepEqual(shape(o.items(null)), [
      ["branch", "a", 1, 2, false],
      ["branch", "b", 2, 2, false],
    ]);
    assert.deepEqual(s.detached.sort(), ["c", "d"]);
    assert.equal(o.nearestVisible("c"), "c");
  });

  it("a turn folds the replies and tools after its prompt; compactions and branch summaries stand alone", () => {
    //  u1 user "fix it"
    //  └─ a1 assistant → read
    //     └─ r1 tool result
    //        └─ a2 assistant "done"
    //           ├─ bs1 branch summary (an abandoned branch, summarized)
    //           └─ c1 compaction, kept from u1
    //              └─ u2 user "next"   ◀ leaf (the last line)
    const s = parseOk(
      jsonl(
        header(),
        message("u1", null, "user", "fix it"),
        toolCall("a1", "u1", "read", { path: "a.ts" }),
        toolResult("r1", "a1", "a1", "read", "export const a = 1;"),
        message("a2", "r1", "assistant", "done"),
        branchSummary("bs1", "a2", "tried b.ts first"),
        compaction("c1", "a2", "u1", { tokensBefore: 4000 }),
        message("u2", "c1", "user", "next"),
      ),
    );
    const o = new SessionOutline(s, "default");
    // The prompt folds everything up to the branch point; the branch with the leaf comes first.
    assert.deepEqual(shape(o.items(null)), [
      ["turn", "u1", ["a1", "r1", "a2"]],
      ["branch", "c1", 1, 2, true],
      ["branch", "bs1", 2, 2, false],
    ]);
    assert.deepEqual(shape(o.items("c1")), [
      ["entry", "c1"],
      ["turn", "u2", []],
    ]);
    assert.deepEqual(shape(o.items("bs1")), [["entry", "bs1"]]);
    assert.equal(o.visibleLeafId, "u2");
  });

  it("builds one level at a time: the first level of a 20,000-entry session touches only its own chain", () => {
    // 20,000 small entries: a main line of user/assistant pairs, with 50 branch points off it.
    const records: unknown[] = [header({ id: "big" })];
    let parent: string | null = null;
    let t = Date.parse("2026-01-01T00:00:00.000Z");
    const main: string[] = [];
    const msg = (id: string, parentId: string | null, role: string, text: string) => ({
      type: "message",
      id,
      parentId,
      timestamp: new Date((t += 1000)).toISOString(),
      message: { role, content: [{ type: "text", text }] },
    });
    for (let i = 0; records.length <= 15_000; i++) {
      records.push(msg(`u${i}`, parent, "user", `prompt ${i}`), msg(`a${i}`, `u${i}`, "assistant", `reply ${i}`));
      parent = `a${i}`;
      main.push(parent);
    }
    for (let b = 0; b < 50; b++) {
      let p: string = main[b * 100]!;
      for (let j = 0; j < 50; j++) {
        records.push(
          msg(`b${b}u${j}`, p, "user", `side ${b}.${j}`),
          msg(`b${b}a${j}`, `b${b}u${j}`, "assistant", "ok"),
        );
        p = `b${b}a${j}`;
      }
    }
    const s = parseOk(jsonl(...records));
    assert.ok(s.entries.length >= 20_000, `${s.entries.length} entries`);
    const o = new SessionOutline(s, "default");
    let visited = 0;
    const isVisible = o.isVisible.bind(o);
    o.isVisible = (e) => {
      visited++;
      return isVisible(e);
    };
    // The main line forks at u0's reply: the first level is one turn and two branches (the leaf, the last side
    // branch, hangs off the main line), and nothing deeper is walked.
    const top = o.items(null);
    assert.deepEqual(shape(top), [
      ["turn", "u0", ["a0"]],
      ["branch", "u1", 1, 2, true],
      ["branch", "b0u0", 2, 2, false],
    ]);
    assert.ok(visited < 10, `visited ${visited} entries for the first level`);
  });
});

describe("resumeCommand", () => {
  it("pi --session for pi, omp --resume for OMP, shell-quoted when needed", () => {
    assert.equal(
      resumeCommand("pi", "/h/.pi/agent/sessions/--p--/a.jsonl"),
      "pi --session /h/.pi/agent/sessions/--p--/a.jsonl",
    );
    assert.equal(
      resumeCommand("omp", "/h/.omp/agent/sessions/-p/a.jsonl"),
      "omp --resume /h/.omp/agent/sessions/-p/a.jsonl",
    );
    assert.equal(resumeCommand(null, "/h/My Sessions/it's.jsonl"), "pi --session '/h/My Sessions/it'\\''s.jsonl'");
    assert.equal(resumeCommand("pi", "/h/$(rm -rf ~).jsonl"), "pi --session '/h/$(rm -rf ~).jsonl'");
  });
});
