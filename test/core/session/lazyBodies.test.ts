// Lazily parsed record bodies: a record held as bytes reads back exactly like one held parsed.
import * as assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildContext } from "../../../src/core/context/index.js";
import { parseSession, type Session, settingsAt } from "../../../src/core/session/index.js";
import { summarize } from "../../../src/core/summary.js";
import { usageRecords } from "../../../src/core/usage.js";
import { parseSessionSliced, wholeLineSlices } from "../../../src/node/readSession.js";
import { SessionTracker } from "../../../src/node/tracker.js";
import { jsonl, plain } from "../../support/helpers.js";
import { OMP_FIXTURES, PI_FIXTURES, rel } from "../../support/fixtures.js";
import { header } from "../../support/builders.js";

function parse(bytes: Uint8Array | string, retainBytes: number): Session {
  const r = parseSession("x.jsonl", bytes, { retainBytes });
  if (!r.ok) throw new Error(r.rejection.message);
  return r.session;
}

describe("lazy record bodies", () => {
  for (const file of [...PI_FIXTURES, ...OMP_FIXTURES]) {
    it(`${rel(file)}: every record, its facts, usage, settings, summary and context equal the fully held parse`, () => {
      const bytes = readFileSync(file);
      const r = parseSession(file, bytes);
      if (!r.ok) return assert.ok(!parseSession(file, bytes, { retainBytes: 0 }).ok, "rejected either way");
      const lazy = parse(bytes, 0);
      const held = parse(bytes, Number.POSITIVE_INFINITY);
      // Every record as bytes, but the kinds the tree's index reads (always held parsed).
      const indexKinds = new Set(["compaction", "label", "session_info", "title_change", "model_change"]);
      assert.ok(
        (lazy.entries.every((e) => e.retained === indexKinds.has(e.type)) && held.entries.every((e) => e.retained)) ||
          held.version < 2,
      );
      assert.deepEqual(
        lazy.entries.map((e) => [e.id, e.role, e.usage, e.provider, e.model, e.data]),
        held.entries.map((e) => [e.id, e.role, e.usage, e.provider, e.model, e.data]),
      );
      assert.deepEqual(usageRecords(lazy), usageRecords(held));
      assert.deepEqual(settingsAt(lazy), settingsAt(held));
      assert.deepEqual(plain(summarize({ ok: true, session: lazy })), plain(summarize({ ok: true, session: held })));
      if (held.leafId) assert.deepEqual(plain(buildContext(lazy, held.leafId)), plain(buildContext(held, held.leafId)));
    });
  }

  it("only records over the threshold are held as bytes; reading one twice gives equal objects", () => {
    const big = "x".repeat(3000);
    const text = jsonl(
      header({ id: "s" }),
      {
        type: "message",
        id: "a",
        parentId: null,
        timestamp: "2026-01-01T00:00:01.000Z",
        message: { role: "user", content: "short" },
      },
      {
        type: "message",
        id: "b",
        parentId: "a",
        timestamp: "2026-01-01T00:00:02.000Z",
        message: {
          role: "assistant",
          provider: "openai",
          model: "gpt-5",
          content: [{ type: "text", text: big }],
          usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cost: { total: 0.5 } },
        },
      },
    );
    const s = parse(text, 1024);
    assert.deepEqual(
      s.entries.map((e) => e.retained),
      [true, false],
    );
    assert.ok(s.entries[1]!.byteLength > 3000);
    assert.equal((s.entries[1]!.data.message as { content: { text: string }[] }).content[0]!.text, big);
    assert.deepEqual(s.entries[1]!.data, s.entries[1]!.data);
    assert.deepEqual(s.entries[1]!.usage, {
      source: "assistant",
      provider: "openai",
      model: "gpt-5",
      input: 10,
      output: 5,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 15,
      cost: 0.5,
    });
    assert.deepEqual(settingsAt(s).model, { provider: "openai", modelId: "gpt-5" });
  });

  it("a v2 hookMessage read back from bytes is migrated to the custom role, as pi does", () => {
    const text = jsonl(header({ version: 2, id: "s" }), {
      type: "message",
      id: "h",
      parentId: null,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: { role: "hookMessage", customType: "x", content: "y".repeat(2000), display: true },
    });
    for (const retain of [0, Number.POSITIVE_INFINITY]) {
      const e = parse(text, retain).entries[0]!;
      assert.equal(e.role, "custom");
      assert.equal((e.data.message as { role: string }).role, "custom");
    }
  });

  it("multi-byte text survives the byte offsets (lines are split on bytes, decoded one by one)", () => {
    const text = `\uFEFF${jsonl(header({ id: "s" }), {
      type: "message",
      id: "a",
      parentId: null,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: { role: "user", content: `héllo — 你好 🎉 ${"é".repeat(1200)}` },
    }).replace(/\n/g, "\r\n")}`;
    const s = parse(text, 0);
    assert.equal(s.diagnostics[0]?.code, "bom");
    assert.equal((s.entries[0]!.data.message as { content: string }).content, `héllo — 你好 🎉 ${"é".repeat(1200)}`);
  });
});

describe("sliced reading (the event loop runs between slices of a large file)", () => {
  it("slices end after a newline, cover the bytes exactly, and keep an over-long line whole", () => {
    const bytes = Buffer.from(`a\nbb\n${"c".repeat(50)}\nddd\nee`);
    for (const size of [1, 2, 3, 7, 40, 1000]) {
      const slices = [...wholeLineSlices(bytes, size)];
      assert.deepEqual(Buffer.concat(slices), bytes);
      for (const sl of slices.slice(0, -1)) assert.equal(sl[sl.length - 1], 10);
      assert.ok(slices.some((sl) => Buffer.from(sl).includes("c".repeat(50))));
    }
  });

  for (const file of [...PI_FIXTURES, ...OMP_FIXTURES].slice(0, 40)) {
    it(`${rel(file)}: a parse in 512-byte slices equals the whole parse`, async () => {
      const bytes = readFileSync(file);
      const whole = parseSession(file, bytes);
      const sliced = await parseSessionSliced(file, bytes, {}, 512);
      assert.deepEqual(plain(viewOf(sliced)), plain(viewOf(whole)));
    });
  }

  it("two updates at once on a new tracker read the file once (updates are queued)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pse-lazy-"));
    try {
      const file = join(dir, "s.jsonl");
      const records = [header({ id: "s" })];
      for (let i = 0; i < 200; i++)
        records.push({
          type: "message",
          id: `m${i}`,
          parentId: i ? `m${i - 1}` : null,
          timestamp: "2026-01-01T00:00:01.000Z",
          message: { role: "user", content: "x".repeat(i * 40) },
        } as never);
      writeFileSync(file, jsonl(...records));
      const t = new SessionTracker(file);
      const [a, b] = await Promise.all([t.update(), t.update()]);
      assert.deepEqual([a.change, b.change], ["initial", "unchanged"]);
      const r = t.result();
      assert.ok(r.ok);
      assert.equal(r.session.entries.length, 200);
      assert.equal(t.totalBytesRead, statSync(file).size);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function viewOf(r: ReturnType<typeof parseSession>) {
  if (!r.ok) return r;
  const s = r.session;
  return {
    entries: s.entries.map((e) => [e.id, e.parentId, e.line, e.shadowed, e.usage, e.data]),
    roots: s.roots,
    children: [...s.children],
    diagnostics: s.diagnostics,
    leaf: s.leafId,
    name: s.name,
    truncatedTail: s.truncatedTail,
    endsWithNewline: s.endsWithNewline,
  };
}
