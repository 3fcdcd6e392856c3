// Lazily parsed record bodies: a record held as bytes reads back exactly like one held parsed.
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { buildContext } from "../src/core/context.js";
import { parseSession, type Session, settingsAt } from "../src/core/session.js";
import { summarize } from "../src/core/summary.js";
import { usageRecords } from "../src/core/usage.js";
import { jsonl, OMP_FIXTURES, PI_FIXTURES, plain, rel } from "./helpers.js";

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
      assert.ok(lazy.entries.every((e) => !e.retained) && held.entries.every((e) => e.retained) || held.version < 2);
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
      { type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" },
      { type: "message", id: "a", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "short" } },
      { type: "message", id: "b", parentId: "a", timestamp: "2026-01-01T00:00:02.000Z", message: { role: "assistant", provider: "openai", model: "gpt-5", content: [{ type: "text", text: big }], usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cost: { total: 0.5 } } } },
    );
    const s = parse(text, 1024);
    assert.deepEqual(s.entries.map((e) => e.retained), [true, false]);
    assert.ok(s.entries[1]!.byteLength > 3000);
    assert.equal(((s.entries[1]!.data.message as { content: { text: string }[] }).content[0]!.text), big);
    assert.deepEqual(s.entries[1]!.data, s.entries[1]!.data);
    assert.deepEqual(s.entries[1]!.usage, { source: "assistant", provider: "openai", model: "gpt-5", input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: 0.5 });
    assert.deepEqual(settingsAt(s).model, { provider: "openai", modelId: "gpt-5" });
  });

  it("a v2 hookMessage read back from bytes is migrated to the custom role, as pi does", () => {
    const text = jsonl(
      { type: "session", version: 2, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" },
      { type: "message", id: "h", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "hookMessage", customType: "x", content: "y".repeat(2000), display: true } },
    );
    for (const retain of [0, Number.POSITIVE_INFINITY]) {
      const e = parse(text, retain).entries[0]!;
      assert.equal(e.role, "custom");
      assert.equal((e.data.message as { role: string }).role, "custom");
    }
  });

  it("multi-byte text survives the byte offsets (lines are split on bytes, decoded one by one)", () => {
    const text = `\uFEFF${jsonl(
      { type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" },
      { type: "message", id: "a", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: `héllo — 你好 🎉 ${"é".repeat(1200)}` } },
    ).replace(/\n/g, "\r\n")}`;
    const s = parse(text, 0);
    assert.equal(s.diagnostics[0]?.code, "bom");
    assert.equal((s.entries[0]!.data.message as { content: string }).content, `héllo — 你好 🎉 ${"é".repeat(1200)}`);
  });
});
