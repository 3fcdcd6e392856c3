// Hardening 3 (issue #32, item 2): Compare Branches pairs each call with its result once per message (it filtered all
// calls per call), works out every file's final text in one walk, and runs off the extension host's thread for a large
// pair (the built dist/summaryWorker.cjs, started with `{ compare }`). Expectations come from the raw lines: which
// result names which call.
import * as assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compareBranches } from "../../../src/core/compare.js";
import { parseSession } from "../../../src/core/session/index.js";
import fc from "fast-check";
import { applyEdits, compareModel, finalTextOf, type CompareEnd } from "../../../src/node/views/compare.js";
import { compareInWorker, doCompareWork } from "../../../src/node/views/compareWork.js";
import { header, message } from "../../support/builders.js";
import { jsonl, withTempDir } from "../../support/helpers.js";

const write = (id: string, path: string, content: string) => ({
  type: "toolCall",
  id,
  name: "write",
  arguments: { path, content },
});
const result = (id: string, parentId: string, callId: string, isError = false) =>
  message(id, parentId, "toolResult", [{ type: "text", text: isError ? "failed" : "ok" }], {
    extra: { toolCallId: callId, toolName: "write", isError },
  });

/** Each file written once (ok), then one message that writes all of them again, its results out of order. */
function pairing(): string {
  const files = ["f1", "f2", "f3", "f4", "f5", "f6"];
  const first = files.map((f, i) => write(`w${i}`, `/w/${f}`, `old ${f}`));
  const again = [
    write("a", "/w/f1", "new f1"), // its one result is an error: the file keeps its old text
    write("dup", "/w/f2", "new f2"), // an id two calls share, results not in call order: unknown
    write("dup", "/w/f3", "new f3"),
    write("", "/w/f4", "new f4"), // no id, results not in call order: unknown
    write("b", "/w/f5", "new f5"), // two results name it: unknown
    write("c", "/w/f6", "new f6"), // one ok result: the new text
  ];
  const firstResults = files.map((_, i) => result(`fr${i}`, i ? `fr${i - 1}` : "m1", `w${i}`));
  return jsonl(
    header({ cwd: "/w" }),
    message("u1", null, "user", "go"),
    message("m1", "u1", "assistant", first),
    ...firstResults,
    message("m2", "fr5", "assistant", again),
    result("r1", "m2", "dup"),
    result("r2", "r1", "a", true),
    result("r3", "r2", "dup"),
    result("r4", "r3", ""),
    result("r5", "r4", "b"),
    result("r6", "r5", "b"),
    result("r7", "r6", "c"),
    message("x", "r7", "assistant", "side x"),
    message("y", "r7", "assistant", "side y"),
  );
}

describe("hardening 3: compare", function () {
  this.timeout(60_000);

  it("pairs results with calls by a unique id, else by order only when every call has its result in order", () => {
    const r = parseSession("pairing.jsonl", Buffer.from(pairing()), { validate: false });
    assert.ok(r.ok);
    const c = compareBranches({ session: r.session, leafId: "x" }, { session: r.session, leafId: "y" });
    const text = (f: string) => finalTextOf(c.sides[0], r.session, `/w/${f}`, "/home/u");
    assert.deepEqual(["f1", "f2", "f3", "f4", "f5", "f6"].map(text), ["old f1", null, null, null, null, "new f6"]);
    // The other side of the same path says the same.
    assert.equal(finalTextOf(c.sides[1], r.session, "/w/f6", "/home/u"), "new f6");
  });

  it("edits that multiply a text, or replay a letter's replace_all, are given up as unknown, not worked out", () => {
    const edit = (id: string, path: string, edits: unknown[]) => ({
      type: "toolCall",
      id,
      name: "edit",
      arguments: { path, edits },
    });
    const records: unknown[] = [header({ cwd: "/w" }), message("u1", null, "user", "go")];
    let parent = "u1";
    const turn = (id: string, block: unknown) => {
      records.push(message(id, parent, "assistant", [block]), result(`${id}r`, id, (block as { id: string }).id));
      parent = `${id}r`;
    };
    // 22 files of 100 KB, each multiplied 2,500 times by one replace_all (it took 4.5 GB and crashed the process).
    for (let f = 0; f < 22; f++) {
      turn(`w${f}`, write(`cw${f}`, `/w/f${f}`, "a".repeat(99_999)));
      turn(`e${f}`, edit(`ce${f}`, `/w/f${f}`, [{ oldText: "a", newText: "b".repeat(2500), replace_all: true }]));
    }
    // 600 replace_alls of every letter of a 100 KB file (16 s of spans).
    turn("g", write("cg", "/w/g", "a".repeat(99_999)));
    for (let i = 0; i < 600; i++)
      turn(`r${i}`, edit(`cr${i}`, "/w/g", [{ oldText: "a", newText: "a", replace_all: true }]));
    // 100 files of 10 KB, each grown to 32 MB by one replace_all (4.3 GB, then out of memory).
    for (let f = 0; f < 100; f++) {
      turn(`m${f}`, write(`cm${f}`, `/w/m${f}`, "a".repeat(10_000)));
      turn(`n${f}`, edit(`cn${f}`, `/w/m${f}`, [{ oldText: "a", newText: "b".repeat(3200), replace_all: true }]));
    }
    const fork = parent;
    for (const side of ["x", "y"]) {
      parent = fork;
      turn(side, edit(`c${side}`, "/w/f0", [{ oldText: "zzz", newText: side }]));
    }
    const r = parseSession("multiply.jsonl", Buffer.from(jsonl(...records)), { validate: false });
    assert.ok(r.ok);
    const c = compareBranches({ session: r.session, leafId: "xr" }, { session: r.session, leafId: "yr" });
    for (const f of ["/w/f0", "/w/f21", "/w/g", "/w/m0", "/w/m99"])
      assert.equal(finalTextOf(c.sides[0], r.session, f, "/h"), null, f);
  });

  it("a long old text is found as indexOf finds it (KMP past 200 characters), on random texts", () => {
    // Texts over a two-letter alphabet with long runs: where a naive search is slowest and a KMP table is busiest.
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", "aaaa", "ab"), { maxLength: 400 }).map((p) => p.join("")),
        fc.integer({ min: 201, max: 600 }),
        fc.integer({ min: 0, max: 400 }),
        fc.boolean(),
        (text, length, at, all) => {
          const base = `${text}${"a".repeat(300)}${text}`;
          const oldText = base.slice(Math.min(at, base.length - length), Math.min(at, base.length - length) + length);
          if (oldText.length < 201) return;
          // The reference: pi's rule with indexOf.
          const first = base.indexOf(oldText);
          const unique = base.indexOf(oldText, first + 1) < 0;
          const expected = all ? base.split(oldText).join("X") : unique ? base.replace(oldText, "X") : null;
          const got = applyEdits(base, [{ oldText, newText: "X", ...(all ? { all: true as const } : {}) }], true);
          assert.equal(got, expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("the worker's model and final texts equal the host's, and a changed file is said, not guessed", async () => {
    const worker = join(import.meta.dirname, "..", "..", "..", "dist", "summaryWorker.cjs");
    assert.ok(existsSync(worker), "npm test builds dist/summaryWorker.cjs before the unit tests");
    await withTempDir(async (dir) => {
      const file = join(dir, "s.jsonl");
      writeFileSync(file, pairing());
      const r = parseSession(file, Buffer.from(pairing()), { validate: false });
      assert.ok(r.ok);
      const end = (leafId: string, role: CompareEnd["role"]): CompareEnd => ({
        session: r.session,
        leafId,
        file,
        title: leafId,
        role,
      });
      const [a, b] = [end("x", "active"), end("y", "branch")];
      const spec = ({ session: _s, ...rest }: CompareEnd) => rest;
      const sides: [ReturnType<typeof spec>, ReturnType<typeof spec>] = [spec(a), spec(b)];
      const model = await compareInWorker(worker, { kind: "model", sides, home: "/home/u" });
      assert.deepEqual(model, { ok: true, model: compareModel(a, b, "/home/u") });
      const texts = await compareInWorker(worker, { kind: "finalTexts", sides, path: "/w/f6", home: "/home/u" });
      assert.deepEqual(texts, { ok: true, texts: ["new f6", "new f6"] });
      writeFileSync(file, jsonl(header({ cwd: "/w" }), message("u1", null, "user", "rewritten")));
      const gone = await doCompareWork({ kind: "model", sides });
      assert.deepEqual(gone, { ok: false, message: `${file} has no entry x now (it changed while it was compared)` });
    });
  });
});
