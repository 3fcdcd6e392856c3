// Tail-first reading of a large session (src/node/tailPreview.ts): the latest stretch of the active branch, read from
// the end of the file. Expectations come from the raw lines: the branch is walked by parentId over the lines that lie
// whole in the last bytes read.
import * as assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { contentText } from "../../src/core/entryText.js";
import { isPlainObject } from "../../src/core/session/index.js";
import { readTailPreview } from "../../src/node/tailPreview.js";
import { header, iso, message, titleSlot } from "../support/builders.js";
import { jsonl, withTempDir } from "../support/helpers.js";

const TAIL = 16 * 1024;
const pad = (i: number) => `prompt ${i} ${"x".repeat(300)}`;

/**
 * A session of 600 turns on one branch, with an abandoned branch near the end (a reply the user went back from), the
 * active leaf last in the file.
 */
function records(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let parent: string | null = null;
  for (let i = 0; i < 600; i++) {
    out.push(message(`u${i}`, parent, "user", pad(i), { time: iso(2 * i) }));
    out.push(message(`a${i}`, `u${i}`, "assistant", `reply ${i}`, { time: iso(2 * i + 1) }));
    parent = `a${i}`;
    // An abandoned reply to the 590th prompt: a second child of u590, written before the reply that stayed.
    if (i === 590)
      out.splice(out.length - 1, 0, message("a590-old", "u590", "assistant", "abandoned", { time: iso(1) }));
  }
  return out;
}

/** The ids on the branch from the last line up, over the lines whole in the file's last `TAIL` bytes. */
function expectedBranch(text: string): string[] {
  const bytes = Buffer.from(text);
  const tail = bytes.subarray(bytes.length - TAIL);
  const lines = tail
    .subarray(tail.indexOf(10) + 1)
    .toString("utf8")
    .trimEnd()
    .split("\n");
  const parents = new Map(
    lines.map((l) => JSON.parse(l) as { id: string; parentId: string }).map((r) => [r.id, r.parentId]),
  );
  const ids: string[] = [];
  for (let id = (JSON.parse(lines.at(-1)!) as { id: string }).id; parents.has(id); id = parents.get(id)!) ids.push(id);
  return ids.reverse();
}

describe("tail-first preview of a large session", () => {
  it("the active branch from the leaf up, over the lines whole in the last bytes; no line numbers", async () => {
    await withTempDir(async (dir) => {
      for (const [name, head] of [
        ["pi", [header({ id: "big" })]],
        ["omp", [titleSlot("Big one"), header({ id: "big-omp" })]],
      ] as const) {
        const file = join(dir, `${name}.jsonl`);
        const text = jsonl(...head, ...records());
        writeFileSync(file, text);
        const s = await readTailPreview(file, TAIL);
        assert.ok(s, name);
        const want = expectedBranch(text);
        assert.ok(want.length > 20 && want.includes("a590") && want.at(-1) === "a599", `${want.length} entries`);
        assert.deepEqual(s.roots, [want[0]], name);
        const walked: string[] = [];
        for (let id: string | undefined = s.roots[0]; id; id = s.children.get(id)?.[0]) walked.push(id);
        assert.deepEqual(walked, want, name);
        assert.equal(s.leafId, "a599");
        assert.ok(!s.children.get("u590")!.includes("a590-old"), "the abandoned reply is no child on the branch");
        assert.ok(s.entries.every((e) => e.line === 0));
        assert.deepEqual([s.header.id, s.diagnostics, s.detached], [head.at(-1)!.id, [], []]);
        // A long prompt's text is read back whole.
        const m = s.byId.get("u598")!.data.message;
        assert.equal(isPlainObject(m) ? contentText(m.content) : null, pad(598));
      }
    });
  });

  it("a file that starts with a BOM; a last line still being written is left for the full read", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "bom.jsonl");
      const writing = JSON.stringify(message("u600", "a599", "user", "half")); // complete JSON, no newline yet
      writeFileSync(file, `\ufeff${jsonl(header({ id: "bom" }), ...records())}${writing}`);
      const s = await readTailPreview(file, TAIL);
      assert.ok(s);
      assert.deepEqual([s.header.id, s.leafId, s.byId.has("u600")], ["bom", "a599", false]);
    });
  });

  it("none for a v1 session, a file no longer than the two reads, or a header out of reach", async () => {
    await withTempDir(async (dir) => {
      const write = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
      const body =
        records()
          .map((r) => JSON.stringify(r))
          .join("\n") + "\n";
      assert.equal(await readTailPreview(write("v1.jsonl", jsonl(header({ version: 1 })) + body), TAIL), null);
      const small = jsonl(header(), ...records().slice(0, 100));
      assert.equal(await readTailPreview(write("small.jsonl", small), TAIL), null);
      const late = jsonl(message("x", null, "user", "x".repeat(70_000)), header()) + body;
      assert.equal(await readTailPreview(write("late.jsonl", late), TAIL), null);
      const noHeader = jsonl(message("x", null, "user", "hi")) + body;
      assert.equal(await readTailPreview(write("none.jsonl", noHeader), TAIL), null);
    });
  });
});
