// A long session is summarized as it streams past (core/leanSummary.ts), without its tree: the summary must be the
// one `summarize(parse(file))` makes, field for field, in both modes (a listing's and a usage report's). Compared on
// every fixture file (real pi, pi 1.6 and OMP sessions, quirks), on generated sessions with branches and compactions,
// and on files made to stress the tree's rules (duplicate ids, cycles, orphans, self-parents, labels set and cleared,
// both forms of model change, names, titles, forks, a torn last line).
import * as assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { summarizeFileSync, unpackSummary } from "../../../src/node/store/index.js";
import { generateSession } from "../../../bench/generate.js";
import { header, fork, label, message, sessionInfo, toolCall, toolResult, usage } from "../../support/builders.js";
import { jsonl } from "../../support/helpers.js";
import { ROOT } from "../../support/fixtures.js";

const fixtureFiles = readdirSync(join(ROOT, "fixtures"), { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".jsonl"))
  .map((f) => join(ROOT, "fixtures", f));

/** A summary's fields as values (an unpacked summary decodes its details in getters). */
function plainSummary(s: unknown): unknown {
  if (typeof s !== "object" || s === null) return s;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(s)) out[key] = (s as Record<string, unknown>)[key];
  return out;
}

function same(file: string): void {
  for (const mode of ["full", "usage"] as const) {
    const lean = summarizeFileSync(file, mode, 0);
    const whole = summarizeFileSync(file, mode, Infinity);
    assert.ok(typeof whole !== "string" && !("packed" in whole));
    // The lean summary comes packed, as the cache and the worker threads carry it: compared as they read it.
    const read = typeof lean === "string" || !("packed" in lean) ? lean : unpackSummary(lean);
    assert.deepStrictEqual(plainSummary(read), plainSummary(whole), `${file} (${mode})`);
  }
}

describe("lean summaries: the same summary without the tree", function () {
  this.timeout(120_000);
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), "pi-lean-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(`every fixture file (${fixtureFiles.length})`, () => {
    assert.ok(fixtureFiles.length > 50);
    for (const f of fixtureFiles) same(f);
  });

  it("generated sessions with branch points, compactions, labels and model changes", async () => {
    for (const seed of [1, 2, 3, 4]) {
      const file = join(dir, `gen-${seed}.jsonl`);
      await generateSession(file, { targetBytes: 400_000 * seed, branchPoints: 10 * seed, seed });
      same(file);
    }
  });

  it("mutated sessions: lines repeated, dropped, moved and re-parented at random (seeded)", async () => {
    const base = join(dir, "base.jsonl");
    await generateSession(base, { targetBytes: 300_000, branchPoints: 8, seed: 9 });
    const lines = readFileSync(base, "utf8").trimEnd().split("\n");
    let seed = 38;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
    const ids = lines.slice(1).map((l) => (JSON.parse(l) as { id: string }).id);
    for (let k = 0; k < 30; k++) {
      const body = lines.slice(1);
      for (let m = 0; m < 12; m++) {
        const i = Math.floor(rand() * body.length);
        const op = rand();
        if (op < 0.25) body.splice(i, 0, body[Math.floor(rand() * body.length)]!);
        else if (op < 0.45) body.splice(i, 1);
        else if (op < 0.75) {
          const r = JSON.parse(body[i]!) as { parentId: string | null };
          r.parentId = rand() < 0.2 ? null : rand() < 0.2 ? "missing" : pick(ids);
          body[i] = JSON.stringify(r);
        } else if (op < 0.9) body.push(body.splice(i, 1)[0]!);
        else body.splice(i, 0, "{ not json");
      }
      const file = join(dir, `mutated-${k}.jsonl`);
      writeFileSync(file, `${[lines[0], ...body].join("\n")}\n`);
      same(file);
    }
  });

  it("the tree's rules: duplicate ids, cycles, orphans, labels, names, titles, models, forks, torn tails", () => {
    const t = (n: number) => ({ time: n });
    const files: Record<string, string> = {
      duplicates: jsonl(
        header({ id: "dup" }),
        message("u1", null, "user", "first prompt", t(1)),
        message("a1", "u1", "assistant", "reply", { ...t(2), usage: usage(10, 5, 0.5) }),
        message("a1", "u1", "assistant", "the same id again", { ...t(3), usage: usage(20, 5, 0.25) }),
        message("u2", "a1", "user", "next", t(4)),
      ),
      cycles: jsonl(
        header({ id: "cyc" }),
        message("u1", null, "user", "root", t(1)),
        message("x1", "x2", "user", "in a cycle", t(2)),
        message("x2", "x1", "assistant", "also in it", { ...t(3), usage: usage(1, 1, 0.1) }),
        message("y1", "x2", "user", "hangs off the cycle", t(4)),
        message("s1", "s1", "user", "its own parent", t(5)),
        message("o1", "gone", "user", "an orphan", t(6)),
        message("late", "later", "user", "parent comes later", t(7)),
        message("later", "u1", "assistant", "the later parent", { ...t(8), usage: usage(2, 2, 0.2) }),
      ),
      metadata: jsonl(
        header({ id: "meta" }),
        message("u1", null, "user", "hello", t(1)),
        {
          type: "model_change",
          id: "m1",
          parentId: "u1",
          timestamp: "2026-01-01T00:00:02.000Z",
          provider: "anthropic",
          modelId: "claude",
        },
        message("a1", "m1", "assistant", "hi", { ...t(3), provider: "openai", model: "gpt-5" }),
        label("l1", "a1", "u1", "first"),
        label("l2", "l1", "a1", "second"),
        label("l3", "l2", "u1", "first again"),
        label("l4", "l3", "a1", ""),
        sessionInfo("n1", "l4", "A name"),
        sessionInfo("n2", "n1", "  "),
        sessionInfo("n3", "n2", "The name"),
        message("b1", "u1", "user", "a branch", t(20)),
        {
          type: "model_change",
          id: "m2",
          parentId: "b1",
          timestamp: "2026-01-01T00:00:21.000Z",
          model: "openai/gpt-6",
          role: "default",
        },
        {
          type: "compaction",
          id: "c1",
          parentId: "m2",
          timestamp: "2026-01-01T00:00:22.000Z",
          summary: "s",
          firstKeptEntryId: "b1",
          tokensBefore: 100,
        },
        toolCall("tc", "c1", "edit", { path: "src/a.ts", oldText: "a", newText: "b" }, t(23)),
        toolResult("tr", "tc", "tc", "edit", "ok", t(24)),
        label("l5", "tr", "tc", "last"),
      ),
      omp: jsonl(
        { type: "title", v: 1, title: "slot title", source: "user", updatedAt: "2026-01-01T00:00:00.000Z", pad: "   " },
        header({ id: "omp" }),
        { type: "session_init", id: "i1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", task: "x" },
        {
          type: "title_change",
          id: "t1",
          parentId: "i1",
          timestamp: "2026-01-01T00:00:02.000Z",
          title: "auto",
          source: "auto",
        },
        {
          type: "model_change",
          id: "m1",
          parentId: "t1",
          timestamp: "2026-01-01T00:00:03.000Z",
          model: "a/b",
          role: "default",
        },
        message("a1", "m1", "assistant", "omp reply", { ...t(4), provider: "x", model: "y" }),
        {
          type: "model_usage",
          id: "mu",
          parentId: "a1",
          timestamp: "2026-01-01T00:00:05.000Z",
          provider: "p",
          model: "m",
          usage: usage(3, 3, 0.3),
        },
      ),
      fork: jsonl(
        fork("/elsewhere/parent.jsonl", { id: "frk", time: 10 }),
        message("u1", null, "user", "copied prompt", t(1)),
        message("a1", "u1", "assistant", "copied reply", t(2)),
        message("u2", "a1", "user", "   ", t(11)),
        message("u3", "a1", "user", "its own prompt", t(12)),
        message("u4", "u3", "user", "the last prompt", t(13)),
      ),
      torn:
        jsonl(
          header({ id: "torn" }),
          message("u1", null, "user", "hi", t(1)),
          "not json at all",
          message("a1", "u1", "assistant", "yo", t(2)),
        ) + '{"type":"message","id":"half',
      empty: "",
      headerless: jsonl(message("u1", null, "user", "no header", t(1))),
      onlyHeader: jsonl(header({ id: "alone" })),
      // Ids the details' JSON escapes (written straight to bytes: core/jsonBytes.ts), one repeated.
      escapedIds: jsonl(
        header({ id: "esc" }),
        message('q"1', null, "user", "quote", t(1)),
        message("b\\2", 'q"1', "assistant", "backslash", { ...t(2), usage: usage(4, 2, 0.2) }),
        message("tab\t3", "b\\2", "user", "tab", t(3)),
        message("é😀\ud800", "tab\t3", "assistant", "unicode, a lone surrogate", { ...t(4), usage: usage(1, 1, 0.1) }),
        message('q"1', "é😀\ud800", "user", "the quote's id again", t(5)),
      ),
    };
    for (const [name, text] of Object.entries(files)) {
      const file = join(dir, `${name}.jsonl`);
      writeFileSync(file, text);
      same(file);
    }
  });
});
