/**
 * Branch comparison (`pi-sessions compare`): two branches of a real pi session, a real fork against its parent, and a
 * built fork family, with the fork point, entries, cost, tokens and files computed here from the raw JSON lines.
 */
import { entryLabelIn } from "../../../src/core/entryText.js";
import { strict as assert } from "node:assert";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { run } from "../../../src/cli/main.js";
import { compareBranches } from "../../../src/core/compare.js";
import { applyEdits, compareModel, finalTextOf } from "../../../src/node/views/compare.js";
import { fork, header, label, message, sessionInfo, toolCall, toolResult, usage } from "../../support/builders.js";
import { jsonl, parseOk, withTempDir } from "../../support/helpers.js";
import { piSession } from "../../support/fixtures.js";

async function cli(...args: string[]) {
  let out = "";
  let err = "";
  const code = await run(args, { out: (t) => (out += t + "\n"), err: (t) => (err += t + "\n") });
  return { code, out, err };
}

const PROJ = "--home-u-src-proj--";
const S2 = piSession(PROJ, "2026-11-29T18-50-20-792Z_01a228a4-d4f8-7759-87f6-e1f7077b112f.jsonl");
const S2_FORK = piSession(PROJ, "2026-11-29T18-50-21-130Z_01a228a4-d64a-7145-888a-572546d95234.jsonl");

type Raw = Record<string, any>;
const records = (file: string): Raw[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Raw);

/** The ids from the root to `leaf`, following parentId through the file; the first unknown parent id included. */
function line(file: string, leaf: string): string[] {
  const byId = new Map(records(file).map((r) => [r.id as string, r]));
  const out: string[] = [];
  for (let id: string | null = leaf; id; id = byId.get(id)?.parentId ?? null) {
    out.unshift(id);
    if (!byId.has(id)) break;
  }
  return out;
}

/** What a side of the raw files holds after the fork point. */
function rawSide(file: string, ids: string[]) {
  const byId = new Map(records(file).map((r) => [r.id as string, r]));
  const head = records(file)[0]!;
  const side = {
    entries: ids.length,
    cost: 0,
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    filesModified: [] as string[],
    filesRead: [] as string[],
    lastAssistant: null as string | null,
  };
  for (const id of ids) {
    const m = byId.get(id)!.message;
    if (m?.role !== "assistant") continue;
    if (m.usage) {
      side.cost += m.usage.cost?.total ?? 0;
      for (const k of ["input", "output", "cacheRead", "cacheWrite"] as const) side.tokens[k] += m.usage[k] ?? 0;
    }
    for (const b of m.content ?? []) {
      if (b.type !== "toolCall" || !["read", "edit", "write"].includes(b.name)) continue;
      const p: string = b.arguments.path;
      const abs = p.startsWith("/") ? p : `${head.cwd}/${p}`;
      const list = b.name === "read" ? side.filesRead : side.filesModified;
      if (!list.includes(abs)) list.push(abs);
    }
    const text = (m.content ?? [])
      .filter((b: Raw) => b.type === "text")
      .map((b: Raw) => b.text)
      .join(" ")
      .trim();
    if (text) side.lastAssistant = text;
  }
  return side;
}

function leavesOf(file: string): string[] {
  const rs = records(file).filter((r) => typeof r.id === "string" && r.type !== "session");
  const parents = new Set(rs.map((r) => r.parentId));
  return rs.filter((r) => !parents.has(r.id)).map((r) => r.id as string);
}

function approx(actual: { cost: number }, expected: { cost: number }) {
  assert.ok(Math.abs(actual.cost - expected.cost) < 1e-12, `${actual.cost} ≈ ${expected.cost}`);
}

describe("compare: two branches side by side", () => {
  it("two leaves of a real pi session: the fork point and each side as the raw file says", async () => {
    const [x, y] = leavesOf(S2);
    assert.ok(x && y, "the fixture has a branch");
    const lx = line(S2, x);
    const ly = line(S2, y);
    let shared = 0;
    while (lx[shared] === ly[shared]) shared++;
    const { code, out } = await cli("compare", S2, "--leaf", x, "--leaf", y, "--json");
    assert.equal(code, 0);
    const json = JSON.parse(out);
    assert.deepEqual(Object.keys(json), ["forkPoint", "sides"]);
    assert.equal(json.forkPoint, lx[shared - 1]);
    for (const [i, ids] of [lx.slice(shared), ly.slice(shared)].entries()) {
      const { cost, ...want } = rawSide(S2, ids);
      const { cost: gotCost, leaf, ...got } = json.sides[i];
      assert.equal(leaf, i === 0 ? x : y);
      assert.deepEqual(got, want);
      approx({ cost: gotCost }, { cost });
    }
    assert.ok(
      json.sides.some((s: { filesModified: string[] }) => s.filesModified.length),
      "a side edits a file",
    );
  });

  it("the panel titles each side by its branch at the fork point, and gives the fork point's time", () => {
    const session = parseOk(readFileSync(S2, "utf8"), S2);
    const leaf = records(S2).at(-1)!.id as string;
    const other = leavesOf(S2).find((l) => l !== leaf && !line(S2, leaf).includes(l))!;
    const [la, lb] = [line(S2, leaf), line(S2, other)];
    let shared = 0;
    while (la[shared] === lb[shared]) shared++;
    const byId = new Map(records(S2).map((r) => [r.id as string, r]));
    const firstPrompt = (ids: string[]) => {
      const m = ids.map((id) => byId.get(id)!.message).find((x) => x?.role === "user");
      const text = typeof m.content === "string" ? m.content : m.content.find((b: Raw) => b.type === "text").text;
      // As a label shows it: Markdown's code marks dropped (the prompts here hold no other marks).
      return (text as string).replace(/`/g, "");
    };
    const model = compareModel(
      { session, leafId: leaf, file: S2, title: "t", role: "active" },
      { session, leafId: other, file: S2, title: "t", role: "branch" },
    );
    // The side holding the session's leaf is branch 1 (pi's /tree lists it first), the other 2 of 2.
    assert.deepEqual(
      model.sides.map((sd) => sd.branch),
      [
        { number: 1, of: 2, name: firstPrompt(la.slice(shared)) },
        { number: 2, of: 2, name: firstPrompt(lb.slice(shared)) },
      ],
    );
    // Each side's end named by its last entry's words (its prompt or reply), not its id.
    assert.deepEqual(
      model.sides.map((sd) => sd.leafLabel === entryLabelIn(session.byId, session.byId.get(sd.leafId!)!, 60)),
      [true, true],
    );
    // Not by ids: neither the leaf's own nor, for a label, the id of the entry it marks.
    assert.ok(model.sides.every((sd) => !sd.leafLabel!.includes(sd.leafId!) && !/→ [0-9a-f]{8}$/.test(sd.leafLabel!)));
    assert.deepEqual(
      model.sides.map((sd) => sd.firstPrompt),
      [firstPrompt(la.slice(shared)), firstPrompt(lb.slice(shared))],
    );
    assert.equal(model.forkTime, Date.parse(byId.get(la[shared - 1]!)!.timestamp));
  });

  it("a real fork against its parent: the fork shares the parent's path up to where it forked", async () => {
    const fork = records(S2_FORK);
    const parentFile = join(S2.slice(0, -basename(S2).length), basename(fork[0]!.parentSession));
    assert.equal(parentFile, S2);
    const parentLeaf = records(S2).at(-1)!.id as string;
    const forkLeaf = fork.at(-1)!.id as string;
    const lp = line(S2, parentLeaf);
    const lf = line(S2_FORK, forkLeaf);
    const forkPoint = [...lf].reverse().find((id) => lp.includes(id))!;
    assert.ok(forkPoint, "the fork shares an entry with its parent's active path");
    const { out } = await cli("compare", S2, "--leaf", "active", "--leaf", S2_FORK, "--json");
    const json = JSON.parse(out);
    assert.equal(json.forkPoint, forkPoint);
    const after = (l: string[]) => l.slice(l.indexOf(forkPoint) + 1);
    for (const [i, [file, ids]] of [
      [S2, after(lp)],
      [S2_FORK, after(lf)],
    ].entries()) {
      const { cost, ...want } = rawSide(file as string, ids as string[]);
      const { cost: gotCost, leaf: _leaf, ...got } = json.sides[i];
      assert.deepEqual(got, want, `side ${i}`);
      approx({ cost: gotCost }, { cost });
    }
  });

  it("a fork family built here: costs, tokens and files after the fork point, and the text table", async () => {
    await withTempDir(async (dir) => {
      const slug = join(dir, "sessions", "--app--");
      mkdirSync(slug, { recursive: true });
      const parent = join(slug, "parent.jsonl");
      const child = join(slug, "child.jsonl");
      const shared = [
        message("u1", null, "user", "make math", { time: 1 }),
        toolCall("a1", "u1", "write", { path: "src/m.ts", content: "a\n" }, { time: 2, usage: usage(10, 5, 0.5) }),
        toolResult("r1", "a1", "a1", "write", "ok", { time: 3 }),
      ];
      writeFileSync(
        parent,
        jsonl(
          header({ id: "p", cwd: "/app", time: 0 }),
          ...shared,
          toolCall(
            "a2",
            "r1",
            "edit",
            { path: "src/m.ts", oldText: "a", newText: "b" },
            { time: 4, usage: usage(7, 3, 0.25) },
          ),
          toolResult("r2", "a2", "a2", "edit", "ok", { time: 5 }),
          message("a3", "r2", "assistant", "parent done", { time: 6, usage: usage(1, 1, 0.125) }),
        ),
      );
      writeFileSync(
        child,
        jsonl(
          fork(parent, { id: "c", cwd: "/app", time: 7 }),
          ...shared,
          message("u2", "r1", "user", "other way", { time: 8 }),
          toolCall("b1", "u2", "read", { path: "/app/README.md" }, { time: 9, usage: usage(20, 2, 1) }),
          toolResult("s1", "b1", "b1", "read", "text", { time: 10 }),
          toolCall("b2", "s1", "write", { path: "./src/m.ts", content: "c\n" }, { time: 11, usage: usage(2, 2, 2) }),
          toolResult("s2", "b2", "b2", "write", "ok", { time: 12 }),
        ),
      );
      const { out } = await cli("compare", parent, "--leaf", "active", "--leaf", child, "--json");
      assert.deepEqual(JSON.parse(out), {
        forkPoint: "r1",
        sides: [
          {
            leaf: "a3",
            entries: 3,
            cost: 0.375,
            tokens: { input: 8, output: 4, cacheRead: 0, cacheWrite: 0 },
            filesModified: ["/app/src/m.ts"],
            filesRead: [],
            lastAssistant: "parent done",
          },
          {
            leaf: "s2",
            entries: 5,
            cost: 3,
            tokens: { input: 22, output: 4, cacheRead: 0, cacheWrite: 0 },
            filesModified: ["/app/src/m.ts"],
            filesRead: ["/app/README.md"],
            lastAssistant: null,
          },
        ],
      });
      // The final texts both sides left in the file: the parent's write with its edit applied, the child's write.
      const p = parseOk(readFileSync(parent, "utf8"), parent);
      const c = parseOk(readFileSync(child, "utf8"), child);
      const cmp = compareBranches({ session: p, leafId: p.leafId }, { session: c, leafId: c.leafId });
      assert.equal(finalTextOf(cmp.sides[0], p, "/app/src/m.ts"), "b\n");
      assert.equal(finalTextOf(cmp.sides[1], c, "/app/src/m.ts"), "c\n");
      const text = await cli("compare", parent, "--leaf", "active", "--leaf", child);
      assert.match(text.out, /fork point r1/);
      assert.match(text.out, /cost\s+\$0\.38\s+\$3\.00/);
      // The panel's model: the same figures, files relative to the cwd, the shared file marked, both final texts known.
      const model = compareModel(
        { session: p, leafId: p.leafId, file: parent, title: "parent", role: "parent" },
        { session: c, leafId: c.leafId, file: child, title: "child", role: "fork" },
      );
      assert.equal(model.forkPrompt, "make math");
      assert.deepEqual(
        model.sides.map((sd) => sd.filesModified),
        [
          [{ path: "/app/src/m.ts", label: "src/m.ts", shared: true }],
          [{ path: "/app/src/m.ts", label: "src/m.ts", shared: true }],
        ],
      );
      assert.deepEqual(model.sides[1].filesRead, [{ path: "/app/README.md", label: "README.md", shared: false }]);
      assert.deepEqual(model.bothEdited, [{ path: "/app/src/m.ts", diffable: true }]);
      assert.deepEqual(
        model.sides[1].turns.map((t) => [t.kind, t.text]),
        [
          ["user", "other way"],
          ["tool", "read /app/README.md"],
          ["tool", "write ./src/m.ts"],
        ],
      );
      assert.equal(model.sides[0].durationMs, 2000);
    });
  });

  it("a final text is unknown without a write, or when an edit does not apply; a failed edit changed nothing", () => {
    const s = parseOk(
      jsonl(
        header({ cwd: "/app" }),
        message("u1", null, "user", "go", { time: 1 }),
        toolCall("a1", "u1", "edit", { path: "x.ts", oldText: "q", newText: "r" }, { time: 2 }),
        toolResult("r1", "a1", "a1", "edit", "ok", { time: 3 }),
        toolCall("a2", "r1", "write", { path: "y.ts", content: "one two" }, { time: 4 }),
        toolResult("r2", "a2", "a2", "write", "ok", { time: 5 }),
        toolCall("a3", "r2", "edit", { path: "y.ts", oldText: "zzz", newText: "!" }, { time: 6 }),
        toolResult("r3", "a3", "a3", "edit", "Could not find the text", { time: 7, isError: true }),
        toolCall("a4", "r3", "edit", { path: "y.ts", edits: [{ oldText: "two", newText: "2" }] }, { time: 8 }),
        toolResult("r4", "a4", "a4", "edit", "ok", { time: 9 }),
        toolCall("a5", "r4", "write", { path: "z.ts", content: "abc" }, { time: 10 }),
        toolResult("r5", "a5", "a5", "write", "ok", { time: 11 }),
        toolCall("a6", "r5", "edit", { path: "z.ts", oldText: "nope", newText: "x" }, { time: 12 }),
      ),
    );
    const side = compareBranches({ session: s, leafId: s.leafId }, { session: s, leafId: "u1" }).sides[0];
    assert.equal(finalTextOf(side, s, "/app/x.ts"), null);
    assert.equal(finalTextOf(side, s, "/app/y.ts"), "one 2");
    assert.equal(finalTextOf(side, s, "/app/z.ts"), null);
  });

  it("a name or label written days later stretches no branch's duration", () => {
    const s = parseOk(
      jsonl(
        header({ cwd: "/app" }),
        message("u1", null, "user", "start", { time: 1 }),
        message("u2", "u1", "user", "try this", { time: 2 }),
        message("a2", "u2", "assistant", "done", { time: 62 }),
        label("l1", "a2", "u2", "tried", { time: 5 * 86_400 }),
        sessionInfo("n1", "l1", "Named later", { time: 6 * 86_400 }),
      ),
    );
    const side = compareBranches({ session: s, leafId: s.leafId }, { session: s, leafId: "u1" }).sides[0];
    // From the raw times: the branch's work ran from the prompt (2 s) to the answer (62 s).
    assert.equal(side.lastTime - side.firstTime, 60_000);
  });

  it("applies an edit's replacements as pi does: all against the text before the call, each exactly once", () => {
    const e = (oldText: string, newText: string, all?: true) => ({ oldText, newText, ...(all ? { all } : {}) });
    // Matched against the original, not one after another (one after another would give "C A B").
    assert.equal(applyEdits("A B", [e("A", "B A"), e("B", "C")]), "B A C");
    assert.equal(applyEdits("one two", [e("two", "2")]), "one 2");
    assert.equal(applyEdits("x x", [e("x", "y")]), null, "not unique: pi refuses");
    assert.equal(applyEdits("x x", [e("x", "y", true)]), "y y", "OMP's replace_all");
    assert.equal(applyEdits("abc", [e("ab", "1"), e("bc", "2")]), null, "overlapping: pi refuses");
    assert.equal(applyEdits("abc", [e("zz", "1")]), null, "not found (pi might match fuzzily): unknown");
    assert.equal(applyEdits("a\r\nb\r\n", [e("a\nb", "c")]), "c\n", "line endings as LF");
    assert.equal(applyEdits("abc", [e("", "1")]), null);
  });

  it("two calls without ids in one message stay two calls", () => {
    const content = [
      { type: "toolCall", id: "", name: "write", arguments: { path: "a.ts", content: "first" } },
      { type: "toolCall", id: "", name: "write", arguments: { path: "a.ts", content: "second" } },
    ];
    const s = parseOk(
      jsonl(
        header({ cwd: "/app" }),
        message("u1", null, "user", "go"),
        message("a1", "u1", "assistant", content),
        // Results without ids pair with the calls by order (each call has its result, in order).
        message("r1", "a1", "toolResult", [{ type: "text", text: "ok" }], {
          extra: { toolCallId: "", isError: false },
        }),
        message("r2", "r1", "toolResult", [{ type: "text", text: "ok" }], {
          extra: { toolCallId: "", isError: false },
        }),
      ),
    );
    const side = compareBranches({ session: s, leafId: s.leafId }, { session: s, leafId: "u1" }).sides[0];
    assert.deepEqual(
      side.touches.map((t) => [t.index, t.toolCallId]),
      [
        [0, ""],
        [1, ""],
      ],
    );
    assert.equal(finalTextOf(side, s, "/app/a.ts"), "second");
    // One result for two calls without ids: which call failed cannot be told, so the text is unknown.
    const half = parseOk(
      jsonl(
        header({ cwd: "/app" }),
        message("u1", null, "user", "go"),
        message("a1", "u1", "assistant", content),
        message("r1", "a1", "toolResult", [{ type: "text", text: "no" }], { extra: { toolCallId: "", isError: true } }),
      ),
    );
    const halfSide = compareBranches({ session: half, leafId: half.leafId }, { session: half, leafId: "u1" }).sides[0];
    assert.equal(finalTextOf(halfSide, half, "/app/a.ts"), null);
  });

  it("the text table is not escaped colour: cells are inert, the header bold on a colour terminal", async () => {
    let out = "";
    const code = await run(["compare", S2, "--leaf", "active", "--leaf", leavesOf(S2)[0]!], {
      out: (t) => (out += t + "\n"),
      err: () => {},
      color: true,
      columns: 200,
    });
    assert.equal(code, 0);
    assert.doesNotMatch(out, /\\x1b/);
    assert.match(out, /\x1b\[1m/);
  });

  it("needs two --leaf options; an unknown leaf is a usage error", async () => {
    assert.equal((await cli("compare", S2, "--leaf", "active")).code, 64);
    const r = await cli("compare", S2, "--leaf", "active", "--leaf", "nope-not-an-id");
    assert.equal(r.code, 64);
    assert.match(r.err, /--leaf nope-not-an-id/);
  });
});
