// What pi 1.6's new entries mean, shown where a user reads them (transcript items, exports, tree rows, the Effective
// Context panel, titles), on the real pi 1.6.0 fixtures. Expectations come from the raw files.
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describeEntry } from "../../src/core/entryText.js";
import { exportHtml } from "../../src/core/export/html.js";
import { exportMarkdown } from "../../src/core/export/markdown.js";
import { parseSession, type Session } from "../../src/core/session/index.js";
import { summarize } from "../../src/core/summary.js";
import { transcript, type TranscriptItem } from "../../src/core/transcript.js";
import { contextModel } from "../../src/node/views/context.js";
import { formatTokens } from "../../src/protocol/format.js";
import { header, message, usage } from "../support/builders.js";
import { jsonl, listFiles } from "../support/helpers.js";
import { REAL } from "../support/fixtures.js";

type Raw = Record<string, any>;
const FILES = listFiles(join(REAL, "pi-1.6", "sessions"), ".jsonl");
const raw = (file: string): Raw[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const fileWith = (needle: string) => FILES.find((f) => readFileSync(f, "utf8").includes(needle))!;
function parsed(file: string): Session {
  const r = parseSession(file, readFileSync(file));
  assert.ok(r.ok);
  return r.session;
}
const byEntry = (items: TranscriptItem[], id: string) => items.find((i) => i.entryId === id);

describe("pi 1.6 sessions: what the new entries mean, where a user reads them", () => {
  it("a system message: tree row and transcript card say which sections and tools it sets or removes", () => {
    let seen = 0;
    for (const file of FILES) {
      const session = parsed(file);
      const items = transcript(session, { leafId: session.leafId });
      for (const r of raw(file)) {
        if (r.type !== "message" || r.message.role !== "system") continue;
        const line = describeEntry(session.byId.get(r.id)!);
        for (const t of r.message.toolsAdded ?? []) assert.ok(line.includes(`+${t.name}`), line);
        for (const t of r.message.toolsRemoved ?? []) assert.ok(line.includes(`−${t.name}`), line);
        for (const [name, text] of Object.entries(r.message.sections ?? {}))
          if (text === null) assert.ok(line.includes(`${name} removed`), line);
        const item = byEntry(items, r.id);
        if (!item) continue; // on another branch
        assert.equal(item.kind, "system");
        if (item.kind !== "system") continue;
        assert.deepEqual(
          item.sections.map((s) => [s.name, s.text]),
          Object.entries(r.message.sections ?? {}),
        );
        seen++;
      }
    }
    assert.ok(seen >= 8, `${seen} system messages checked`);
  });

  it("usage entries are a quiet cache-warm line with model, tokens and cost", () => {
    const file = fileWith('"type":"usage"');
    const session = parsed(file);
    const items = transcript(session);
    const usages = raw(file).filter((r) => r.type === "usage");
    assert.ok(usages.length >= 2);
    for (const u of usages) {
      const item = byEntry(items, u.id);
      assert.equal(item?.kind, "note");
      if (item?.kind !== "note") continue;
      assert.ok(item.text.startsWith("cache warm · " + u.model), item.text);
      assert.ok(item.text.includes(`${formatTokens(u.usage.totalTokens)} tokens`), item.text);
    }
  });

  it("a context edit is marked on its target: left out, or replaced by the last edit on the branch", () => {
    let omitted = 0;
    let replaced = 0;
    for (const file of FILES) {
      const session = parsed(file);
      const items = transcript(session);
      const onPath = new Set(items.map((i) => i.entryId));
      const last = new Map<string, Raw>();
      for (const r of raw(file)) if (r.type === "context_edit" && onPath.has(r.id)) last.set(r.targetId, r);
      for (const [target, edit] of last) {
        const item = byEntry(items, target)!;
        assert.equal(item.contextEdit?.id, edit.id);
        if (edit.replacement === null) {
          assert.equal(item.contextEdit?.state, "omitted");
          omitted++;
        } else {
          const want = edit.replacement.content;
          const text = typeof want === "string" ? want : want.map((b: Raw) => b.text).join(" ");
          assert.deepEqual(item.contextEdit, { id: edit.id, state: "replaced", text });
          replaced++;
        }
      }
    }
    assert.ok(omitted >= 1 && replaced >= 1, `${omitted} omitted, ${replaced} replaced`);
  });

  it("the Effective Context panel shows the left-out message with no tokens and the replaced one's original", () => {
    for (const file of FILES) {
      const session = parsed(file);
      const model = contextModel(session, null, "t");
      const edits = raw(file).filter((r) => r.type === "context_edit");
      for (const row of model.rows.filter((r) => r.edit)) {
        const target = raw(file).find((r) => r.id === row.entryId)!;
        assert.ok(edits.some((e) => e.id === row.edit!.id && e.targetId === row.entryId));
        if (row.edit!.state === "omitted") {
          assert.equal(row.tokens, 0);
          assert.equal(row.index, -1);
        } else {
          const original = target.message.content;
          const text = typeof original === "string" ? original : original.map((b: Raw) => b.text ?? "").join(" ");
          assert.ok(row.edit!.original!.startsWith(text.slice(0, 100)), "the original is one click away");
        }
      }
      assert.equal(
        model.totalTokens,
        model.rows.reduce((n, r) => n + r.tokens, 0),
      );
    }
    const all = FILES.flatMap((f) => contextModel(parsed(f), null, "t").rows.filter((r) => r.edit));
    assert.ok(all.some((r) => r.edit!.state === "omitted") && all.some((r) => r.edit!.state === "replaced"));
  });

  it("a codemode result lists its nested calls; pi's own custom entries and reply facts are described", () => {
    const file = fileWith('"nestedCalls"');
    const session = parsed(file);
    const items = transcript(session);
    const rows = raw(file);
    const result = rows.find((r) => r.message?.nestedCalls)!;
    const item = byEntry(items, result.id);
    assert.equal(item?.kind, "toolResult");
    if (item?.kind !== "toolResult") return;
    assert.deepEqual(
      item.nested!.map((c) => [c.name, c.status, c.durationMs, c.path]),
      result.message.nestedCalls.calls.map((c: Raw) => [c.name, c.status, c.durationMs, c.arguments.path ?? null]),
    );
    const bug = rows.find((r) => r.customType === "pi.bug-report")!;
    assert.match((byEntry(items, bug.id) as { text: string }).text, /^bug report saved as zip: "The router/);
    const state = rows.find((r) => r.customType === "pi.virtual-model-state")!;
    assert.equal(
      (byEntry(items, state.id) as { text: string }).text,
      `virtual model router/phased · ${state.data.state.phase}`,
    );
    const reply = rows.find((r) => r.message?.role === "assistant" && r.message.thinkingLevel)!;
    const replyItem = byEntry(items, reply.id);
    assert.equal(replyItem?.kind === "assistant" && replyItem.reply?.thinkingLevel, reply.message.thinkingLevel);
    const md = exportMarkdown({ session, items, leafId: session.leafId });
    assert.ok(md.includes("System prompt") && md.includes("**Nested calls**"));
    assert.ok(md.includes(`thinking ${reply.message.thinkingLevel}`));
    const html = exportHtml({ session, items, leafId: session.leafId }, "bm9uY2U=");
    assert.ok(html.includes("System prompt") && html.includes('<ul class="footer"><li>read docs/rules.md'));
  });

  it("titles skip system messages: the first user prompt, as pi's session list takes it", () => {
    for (const file of FILES) {
      const first = raw(file).find((r) => r.type === "message" && r.message.role === "user")!;
      const content = first.message.content;
      const text = typeof content === "string" ? content : content.find((b: Raw) => b.type === "text").text;
      const summary = summarize(parseSession(file, readFileSync(file)));
      assert.ok(summary.ok);
      assert.equal(summary.firstPrompt, text.slice(0, 200));
    }
  });

  it("a cost the provider billed (cost.totalFromProvider) is shown next to pi's estimate and counted once", () => {
    const cost = { input: 0.01, output: 0.02, cacheRead: 0, cacheWrite: 0, total: 0.05, totalFromProvider: true };
    const text = jsonl(
      header(),
      message("u", null, "user", "hi"),
      message("a", "u", "assistant", "ok", { provider: "openrouter", model: "m", usage: { ...usage(100, 10), cost } }),
    );
    const r = parseSession("/x.jsonl", text);
    assert.ok(r.ok);
    const item = transcript(r.session).find((i) => i.entryId === "a");
    assert.ok(item?.kind === "assistant");
    assert.deepEqual(item.usage?.billed, { estimate: 0.03 });
    assert.equal(item.usage?.cost, 0.05);
    const md = exportMarkdown({ session: r.session, items: [item], leafId: "a" });
    assert.ok(md.includes("$0.05 billed (estimate $0.03)"), md);
    const summary = summarize(r);
    assert.ok(summary.ok);
    assert.equal(summary.cost, 0.05, "the billed total, once");
  });

  it("a tool call without arguments: the Effective Context panel still opens (its size counts the name)", () => {
    const text = jsonl(
      header(),
      message("u", null, "user", "hi"),
      message("a", "u", "assistant", [{ type: "toolCall", id: "c", name: "bash" }], { stopReason: "toolUse" }),
    );
    const r = parseSession("/x.jsonl", text);
    assert.ok(r.ok);
    const model = contextModel(r.session, null, "t");
    assert.equal(model.rows.length, 2);
    assert.equal(model.rows[1]!.tokens, 1, "ceil(4 characters of the name / 4)");
  });
});
