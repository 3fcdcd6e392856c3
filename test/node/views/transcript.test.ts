// The transcript view's rows (issue #16): planned from the envelopes, built on request, clipped, sent in a first chunk
// under its budget; branch switching, a fork's folded copies, compaction cards that hide what they replaced, and
// images served only as raster data: URIs (OMP blobs only from the session's own agent dir). Expectations come from
// the raw files and the records written here.
import * as assert from "node:assert/strict";
import { cpSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSession } from "../../../src/core/session/index.js";
import { ROW_CAPS, ROW_LIMITS } from "../../../src/core/transcriptRows.js";
import { FIRST_CHUNK_BYTES, TranscriptDocument } from "../../../src/node/views/transcript.js";
import { findOnBranch } from "../../../src/node/views/transcriptFind.js";
import type { TranscriptRow } from "../../../src/protocol/transcript.js";
import { compaction, header, message, toolCall, toolResult } from "../../support/builders.js";
import { loadFixture, piSession, REAL } from "../../support/fixtures.js";
import { ownedStore, writeForkFamily } from "../../support/forkFamily.js";
import { jsonl, parseOk, withTempDir } from "../../support/helpers.js";

const S2 = piSession(
  "--home-u-src-proj--",
  readdirSync(join(REAL, "pi", "sessions", "--home-u-src-proj--")).find((f) => f.includes("d4f8"))!,
);
interface Raw {
  type: string;
  id: string;
  parentId: string | null;
  message?: { role?: string; content?: unknown };
}
const raw = (file: string): Raw[] =>
  readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .slice(1)
    .map((l) => JSON.parse(l) as Raw);
const ids = (doc: TranscriptDocument) =>
  doc.rows(0, doc.plan.rows.length).map((r) => (r.kind === "item" ? r.item.entryId : `inherited:${r.entries}`));
const item = (r: TranscriptRow | null) => {
  assert.ok(r && r.kind === "item");
  return r;
};

describe("transcript view rows", () => {
  it("the active branch of a real session: one row per entry with something to read, results with their call", () => {
    const list = raw(S2);
    const byId = new Map(list.map((r) => [r.id, r]));
    const path: Raw[] = [];
    for (let r = byId.get(list[list.length - 1]!.id); r; r = r.parentId ? byId.get(r.parentId) : undefined)
      path.unshift(r);
    const expected = path
      .filter(
        (r, i) =>
          r.type !== "custom" && !(r.message?.role === "toolResult" && path[i - 1]?.message?.role === "assistant"),
      )
      .map((r) => r.id);
    const doc = new TranscriptDocument(loadFixture(S2), undefined, undefined);
    assert.deepEqual(ids(doc), expected);
    // The assistant that called a tool carries its result.
    const withResult = path.findIndex((r) => r.message?.role === "toolResult");
    const row = item(doc.row(doc.plan.rowOf.get(path[withResult - 1]!.id)!));
    assert.deepEqual(
      row.results.map((r) => r.entryId),
      [path[withResult]!.id],
    );
    assert.equal(doc.header().activeLeaf, true);
  });

  it("branch points: the switcher's position and count, the choices, and switching to the other branch", () => {
    const list = raw(S2);
    const doc = new TranscriptDocument(loadFixture(S2), undefined, undefined);
    // The label cba5122d has two children, in file order (their timestamps tie or ascend); the second holds the leaf,
    // so pi's /tree lists it first.
    const kids = list.filter((r) => r.parentId === "cba5122d").map((r) => r.id);
    assert.equal(kids.length, 2);
    const onPath = item(doc.row(doc.plan.rowOf.get(kids[1]!)!));
    assert.deepEqual(onPath.branch, { position: 1, count: 2 });
    const subtree = (id: string) => {
      const out = new Set([id]);
      for (const r of list) if (r.parentId && out.has(r.parentId)) out.add(r.id);
      return list.filter((r) => out.has(r.id));
    };
    const choices = doc.branches(kids[1]!);
    assert.deepEqual(
      choices.map((c) => [c.entryId, c.number, c.of, c.entries, c.leafId, c.current, c.active]),
      [kids[1]!, kids[0]!].map((k, i) => [k, i + 1, 2, subtree(k).length, subtree(k).pop()!.id, i === 0, i === 0]),
    );
    const firstUser = subtree(kids[0]!).find((r) => r.message?.role === "user")!;
    // As a label shows it: Markdown's code marks dropped (the prompt holds no other marks).
    assert.equal(choices[1]!.name, (firstUser.message!.content as { text: string }[])[0]!.text.replace(/`/g, ""));
    doc.switchTo(choices[1]!.leafId);
    const header = doc.header();
    assert.equal(header.leafId, choices[1]!.leafId);
    assert.equal(header.activeLeaf, false);
    assert.ok(ids(doc).includes(kids[0]!) && !ids(doc).includes(kids[1]!));
  });

  it("a compaction hides the entries it replaced; its card shows them dimmed; revealing one opens the card", () => {
    const session = parseOk(
      jsonl(
        header(),
        message("u1", null, "user", "first"),
        toolCall("a1", "u1", "read", { path: "x.ts" }),
        toolResult("r1", "a1", "a1", "read", "text of x"),
        message("u2", "r1", "user", "second"),
        compaction("c1", "u2", "u2", { tokensBefore: 4200 }),
        message("u3", "c1", "user", "third"),
      ),
    );
    const doc = new TranscriptDocument(session, undefined, undefined);
    assert.deepEqual(ids(doc), ["u2", "c1", "u3"]);
    const card = item(doc.row(doc.plan.rowOf.get("c1")!));
    assert.equal(card.expanded, false);
    assert.equal(card.item.kind === "compaction" && card.item.replaced, 3); // u1, a1, r1
    doc.toggleCompaction("c1");
    assert.deepEqual(ids(doc), ["u1", "a1", "u2", "c1", "u3"]);
    assert.deepEqual(
      doc.rows(0, 5).map((r) => r.kind === "item" && r.dimmed),
      [true, true, false, false, false],
    );
    doc.toggleCompaction("c1");
    assert.equal(doc.reveal("r1"), doc.plan.rowOf.get("a1"), "a result is revealed in its call's row");
    assert.ok(doc.expanded.has("c1"));
  });

  it("find reaches every entry of the branch: one a compaction replaced, a tool's output; not other branches", () => {
    const session = parseOk(
      jsonl(
        header(),
        message("u1", null, "user", "first: the Zebra question"),
        toolCall("a1", "u1", "read", { path: "x.ts" }),
        toolResult("r1", "a1", "a1", "read", "text of x with a zebra in it"),
        message("u2", "r1", "user", "second"),
        compaction("c1", "u2", "u2", { tokensBefore: 4200, summary: "no stripes here" }),
        message("u3", "c1", "user", "third"),
        message("o1", "u2", "user", "another branch's zebra"),
      ),
    );
    const doc = new TranscriptDocument(session, undefined, undefined);
    doc.switchTo("u3");
    assert.deepEqual(ids(doc), ["u2", "c1", "u3"], "u1 and r1 are behind the compaction's card");
    assert.equal(doc.header().replaced, 3, "u1, a1 and r1: the header says so");
    // "Show them from the first prompt": every card opens; the branch reads from its start.
    const shown = new TranscriptDocument(session, undefined, undefined);
    shown.switchTo("u3");
    shown.showReplaced();
    assert.deepEqual(ids(shown), ["u1", "a1", "u2", "c1", "u3"]);
    assert.equal(shown.header().replaced, 0);
    const found = findOnBranch(doc.plan, "ZEBRA");
    assert.deepEqual(
      found.hits.map((h) => [h.entryId, h.role, h.hidden, h.snippet]),
      [
        ["u1", "user", true, "first: the «Zebra» question"],
        ["r1", "tool", true, "text of x with a «zebra» in it"],
      ],
    );
    assert.equal(found.more, false);
    assert.deepEqual(findOnBranch(doc.plan, "  ").hits, []);
    // What choosing a hit does: the card opens and the entry has a row.
    assert.equal(doc.reveal("u1"), doc.plan.rowOf.get("u1"));
    assert.equal(findOnBranch(doc.plan, "zebra").hits[0]!.hidden, false);
    assert.equal(doc.header().replaced, 0);
    // Lower-casing "İ" makes two characters of one: the mark still falls on the match, found in the text itself.
    const turkish = new TranscriptDocument(
      parseOk(jsonl(header(), message("t1", null, "user", `${"İ".repeat(10)} needle here`))),
      undefined,
      undefined,
    );
    assert.equal(findOnBranch(turkish.plan, "NEEDLE").hits[0]!.snippet, `${"İ".repeat(10)} «needle» here`);
  });

  it("a fork's copies fold into one row (the store's rule), and unfold when one is revealed", async () => {
    await withTempDir(async (dir) => {
      const { agent, child } = writeForkFamily(dir);
      const store = await ownedStore(agent);
      const stored = store.sessions.find((s) => s.file === child)!;
      const r = parseSession(child, readFileSync(child));
      assert.ok(r.ok);
      const doc = new TranscriptDocument(r.session, stored, undefined);
      assert.deepEqual(ids(doc), ["inherited:2", "u2"]);
      assert.equal(doc.header().fork?.inherited, 2);
      assert.equal(doc.reveal("a1"), 1);
      assert.deepEqual(ids(doc), ["u1", "a1", "u2"]);
      assert.deepEqual(
        doc.rows(0, 3).map((x) => x.kind === "item" && x.item.inherited),
        [true, true, false],
      );
    });
  });

  it("long texts are clipped in a row and whole on request; the first message stays under its budget", () => {
    const big = "x".repeat(100_000);
    const records: unknown[] = [header(), message("u0", null, "user", "start")];
    for (let i = 1; i <= 300; i++) {
      records.push(toolCall(`a${i}`, i === 1 ? "u0" : `r${i - 1}`, "bash", { command: `echo ${i}` }));
      records.push(toolResult(`r${i}`, `a${i}`, `a${i}`, "bash", i === 300 ? big : "y".repeat(10_000)));
    }
    const doc = new TranscriptDocument(parseOk(jsonl(...records)), undefined, undefined);
    const last = doc.plan.rows.length - 1;
    const clipped = item(doc.row(last));
    assert.equal(clipped.clipped, true);
    assert.equal(clipped.results[0]!.text.length, ROW_LIMITS.output);
    assert.equal(item(doc.row(last, true)).results[0]!.text, big);
    const first = doc.firstChunk(null);
    assert.ok(JSON.stringify(first.rows).length <= FIRST_CHUNK_BYTES, "under the budget");
    assert.equal(first.rows[first.rows.length - 1]!.index, last, "it ends at the end of the branch");
    const mid = doc.firstChunk(150);
    assert.ok(mid.start <= 150 && mid.rows.some((r) => r.index === 150));
  });

  it("images: raster base64 as data: URIs; never SVG, bad base64, or blobs outside the agent dir", async () => {
    const png = "iVBORw0KGgoAAAANSUhEUg==";
    const session = parseOk(
      jsonl(
        header(),
        message("u1", null, "user", [
          { type: "image", mimeType: "image/png", data: png },
          { type: "image", mimeType: "image/svg+xml", data: "PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+" },
          { type: "image", mimeType: "image/png", data: 'x" onerror="alert(1)' },
          { type: "image", mimeType: "image/png", data: `blob:sha256:${"a".repeat(64)}` },
        ]),
      ),
    );
    const doc = new TranscriptDocument(session, undefined, undefined);
    const row = item(doc.row(0));
    assert.ok(row.item.kind === "user");
    assert.deepEqual(
      row.item.images.map((i) => [i.ref, i.data]),
      [
        [0, null],
        [1, null],
        [2, null],
        [3, null],
      ],
      "rows carry no image data",
    );
    assert.equal(await doc.image(0, 0), `data:image/png;base64,${png}`);
    assert.equal(await doc.image(0, 1), null, "SVG is not shown");
    assert.equal(await doc.image(0, 2), null, "not base64");
    assert.equal(await doc.image(0, 3), null, "a session outside an agent dir has no blobs");
    assert.equal(await doc.image(0, 9), null);
  });

  it("an OMP blob image is served from the session's own agent dir (real fixture)", async () => {
    await withTempDir(async (dir) => {
      const agent = join(dir, "agent");
      cpSync(join(REAL, "omp-blob"), agent, { recursive: true });
      const slug = readdirSync(join(agent, "sessions"))[0]!;
      const file = join(agent, "sessions", slug, readdirSync(join(agent, "sessions", slug))[0]!);
      const oracle = JSON.parse(readFileSync(join(REAL, "omp-blob", "oracle.json"), "utf8")) as { imageBase64: string };
      const doc = new TranscriptDocument(loadFixture(file), undefined, undefined);
      const at = doc
        .rows(0, doc.plan.rows.length)
        .find((r) => r.kind === "item" && r.item.kind === "user" && r.item.images.length);
      assert.ok(at);
      assert.equal(await doc.image(at.index, 0), `data:image/png;base64,${oracle.imageBase64}`);
    });
  });

  it("Open as Diff gets an edit's two texts and a write's content, whole", () => {
    const long = "z".repeat(ROW_LIMITS.output + 10);
    const session = parseOk(
      jsonl(
        header(),
        toolCall("a1", null, "edit", { path: "src/a.ts", edits: [{ oldText: "let a", newText: long }] }),
        toolCall("a2", "a1", "write", { path: "b.ts", content: "export {}" }),
      ),
    );
    const doc = new TranscriptDocument(session, undefined, undefined);
    assert.deepEqual(doc.editTexts("a1", 0, 0), { path: "src/a.ts", before: "let a", after: long });
    assert.deepEqual(doc.editTexts("a2", 0, null), { path: "b.ts", before: "", after: "export {}" });
    assert.equal(doc.editTexts("a2", 1, null), null);
    assert.equal(doc.editTexts("a1", 0, 3), null);
  });
});

describe("transcript view rows on hostile shapes", () => {
  it("a parent-id cycle under a branch point does not hang the branch switcher", () => {
    // a ↔ b form a cycle; c hangs off a. The path to c is [b, a, c] and a has two children.
    const session = parseOk(
      jsonl(header(), message("a", "b", "user", "A"), message("b", "a", "user", "B"), message("c", "a", "user", "C")),
    );
    const doc = new TranscriptDocument(session, undefined, undefined);
    for (const id of ["a", "b", "c"]) {
      const choices = doc.branches(id);
      assert.ok(
        choices.every((c) => c.entries >= 1 && c.entries <= 3),
        JSON.stringify(choices),
      );
    }
  });

  it("a row's lists are capped (results, images, edits) and what was left out is counted", () => {
    const manyImages = Array.from({ length: 1000 }, () => ({ type: "image", mimeType: "image/png", data: "AAAA" }));
    const edits = Array.from({ length: 300 }, (_, i) => ({ oldText: `a${i}`, newText: `b${i}` }));
    const records: unknown[] = [
      header(),
      message("u1", null, "user", manyImages),
      toolCall("a1", "u1", "edit", { path: "x.ts", edits }),
    ];
    for (let i = 0; i < 120; i++) records.push(toolResult(`r${i}`, i ? `r${i - 1}` : "a1", "a1", "edit", "ok"));
    const doc = new TranscriptDocument(parseOk(jsonl(...records)), undefined, undefined);
    const user = item(doc.row(0));
    assert.ok(user.item.kind === "user");
    assert.equal(user.item.images.length, ROW_CAPS.images);
    assert.deepEqual(user.omitted, { images: 1000 - ROW_CAPS.images, edits: 0, blocks: 0 });
    const call = item(doc.row(1));
    assert.equal(call.results.length, ROW_CAPS.results, "results beyond the cap start rows of their own");
    assert.equal(doc.plan.rows.length, 2 + (120 - ROW_CAPS.results));
    const block = call.item.kind === "assistant" ? call.item.blocks[0] : undefined;
    assert.equal(block?.type === "toolCall" ? block.edits?.length : 0, ROW_CAPS.edits);
    assert.equal(call.omitted?.edits, 300 - ROW_CAPS.edits);
  });

  it("a chosen branch is followed again once the agent goes on from it", () => {
    const base = [
      header(),
      message("u1", null, "user", "root"),
      message("x", "u1", "user", "x"),
      message("y", "u1", "user", "y"),
    ];
    const doc = new TranscriptDocument(parseOk(jsonl(...base)), undefined, undefined);
    doc.switchTo("x");
    assert.equal(doc.header().leafId, "x");
    doc.rebuild(parseOk(jsonl(...base, message("z", "x", "user", "after x"))));
    assert.equal(doc.leafId, undefined, "following the active leaf again");
    assert.equal(doc.header().leafId, "z");
  });
});
