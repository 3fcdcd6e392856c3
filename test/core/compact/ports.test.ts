// Compact branch, the pure parts: our port of pi-ai's Responses serializer, proven against the real package (pi-ai
// 0.73.1's streamSimple with an onPayload probe that throws, so nothing is sent). The port of prepareCompaction is
// proven against pi 1.6.0 in prepare.pi16.test.ts.
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { getModel, streamSimple } from "@mariozechner/pi-ai";
import { convertToLlm as piConvertToLlm } from "@mariozechner/pi-coding-agent";
import { buildContext } from "../../../src/core/context/index.js";
import { contextInput, type TargetModel } from "../../../src/core/compact/responses.js";
import { serializeConversation } from "../../../src/core/compact/llmSummary.js";
import { convertToLlm } from "../../../src/core/compact/responses.js";
import { readFileSync } from "node:fs";
import { serializeConversation as piSerializeConversation } from "@mariozechner/pi-coding-agent";
// @ts-expect-error: a plain ESM script (no type declarations)
import { compactionData } from "../../../scripts/gen-compaction-data.mjs";
import type { Session } from "../../../src/core/session/index.js";
import { jsonl, parseOk } from "../../support/helpers.js";
import { loadFixture, PI_FIXTURES, rel, ROOT } from "../../support/fixtures.js";
import { fakeCodexToken } from "../../support/mockProvider.js";
import { header } from "../../support/builders.js";

const V3 = PI_FIXTURES.filter((f) => !f.includes("quirks") && loadFixture(f).version >= 2);

// A synthetic pi session with what the fixtures lack: OpenAI reasoning items, v1 text signatures, images, an aborted
// turn and an orphaned tool call, so the serializer's OpenAI-specific paths are exercised.
function openaiSession(): Session {
  const t = (n: number) => `2026-01-01T00:00:${String(n).padStart(2, "0")}.000Z`;
  const usage = {
    input: 10,
    output: 5,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 15,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
  const a = (id: string, parentId: string, content: unknown[], extra: Record<string, unknown> = {}) => ({
    type: "message",
    id,
    parentId,
    timestamp: t(Number(id.slice(1))),
    message: {
      role: "assistant",
      content,
      api: "openai-responses",
      provider: "openai",
      model: "gpt-5.1",
      usage,
      stopReason: "stop",
      timestamp: 1,
      ...extra,
    },
  });
  const reasoning = JSON.stringify({
    type: "reasoning",
    id: "rs_1",
    summary: [],
    encrypted_content: "gAAAAAB-reasoning",
  });
  return parseOk(
    jsonl(
      header({ id: "oa" }),
      {
        type: "message",
        id: "u1",
        parentId: null,
        timestamp: t(1),
        message: {
          role: "user",
          content: [
            { type: "text", text: "look at this" },
            { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
          ],
          timestamp: 1,
        },
      },
      a("a2", "u1", [
        { type: "thinking", thinking: "", thinkingSignature: reasoning },
        {
          type: "text",
          text: "Reading it.",
          textSignature: JSON.stringify({ v: 1, id: "msg_abc", phase: "commentary" }),
        },
        { type: "toolCall", id: "call_1|fc_1", name: "read", arguments: { path: "a.ts" } },
      ]),
      {
        type: "message",
        id: "r3",
        parentId: "a2",
        timestamp: t(3),
        message: {
          role: "toolResult",
          toolCallId: "call_1|fc_1",
          toolName: "read",
          content: [{ type: "text", text: "const a = 1;\ud800" }],
          isError: false,
          timestamp: 1,
        },
      },
      a("a4", "r3", [{ type: "text", text: "half", textSignature: "legacy_id" }], { stopReason: "aborted" }),
      {
        type: "message",
        id: "u5",
        parentId: "a4",
        timestamp: t(5),
        message: { role: "user", content: "go on", timestamp: 1 },
      },
      a("a6", "u5", [{ type: "toolCall", id: "call_2|fc_2", name: "bash", arguments: { command: "ls" } }]),
      {
        type: "message",
        id: "u7",
        parentId: "a6",
        timestamp: t(7),
        message: { role: "user", content: "never mind", timestamp: 1 },
      },
      a(
        "a8",
        "u7",
        [
          { type: "text", text: "OK." },
          { type: "toolCall", id: "call_3|fc_3", name: "read", arguments: { path: "b.ts" } },
        ],
        { model: "gpt-5.1-codex" },
      ),
      {
        type: "message",
        id: "r9",
        parentId: "a8",
        timestamp: t(9),
        message: {
          role: "toolResult",
          toolCallId: "call_3|fc_3",
          toolName: "read",
          content: [
            { type: "text", text: "b" },
            { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
          ],
          isError: false,
          timestamp: 1,
        },
      },
    ),
  );
}

async function probe(
  model: unknown,
  messages: unknown[],
  apiKey: string,
): Promise<{ input: unknown[] } & Record<string, unknown>> {
  let captured: ({ input: unknown[] } & Record<string, unknown>) | undefined;
  const stream = streamSimple(model as never, { messages: messages as never }, {
    apiKey,
    sessionId: "sess-1",
    onPayload: (payload: unknown) => {
      captured = structuredClone(payload) as typeof captured;
      throw new Error("probe complete: nothing is sent");
    },
  } as never);
  for await (const _ of stream) {
    // drain: the provider reports the probe's throw as an error event
  }
  assert.ok(captured, "the probe captured the payload");
  return captured;
}

const SURFACES: [string, string, string][] = [
  ["openai", "gpt-5.1", "sk-test"],
  ["azure-openai-responses", "gpt-5.1", "az-test"],
  ["openai-codex", "gpt-5.1", fakeCodexToken()],
];

describe("Responses serializer port is byte-identical to pi-ai (golden, per surface)", () => {
  const sessions: [string, Session][] = [
    ["synthetic OpenAI session", openaiSession()],
    ...V3.map((f) => [rel(f), loadFixture(f)] as [string, Session]),
  ];
  for (const [provider, id, key] of SURFACES) {
    it(`${provider}: every item of every fixture's context, by JSON text`, async () => {
      const model = getModel(provider as never, id as never) as unknown as TargetModel & { baseUrl: string };
      if (provider === "azure-openai-responses")
        (model as { baseUrl: string }).baseUrl = "https://res.openai.azure.com/openai/v1";
      let items = 0;
      for (const [name, s] of sessions) {
        const messages = buildContext(s).messages;
        const payload = await probe(model, piConvertToLlm(messages as never), key);
        const ours = contextInput(model, messages);
        assert.deepEqual(
          ours.map((i) => JSON.stringify(i)),
          (payload.input as unknown[]).map((i) => JSON.stringify(i)),
          name,
        );
        items += ours.length;
      }
      assert.ok(items > 50, `${items} items compared`);
    });
  }
});

describe("LLM summary inputs come from pi", () => {
  it("pi-data.json holds pi's prompts and pi-ai's prices as installed (scripts/gen-compaction-data.mjs)", () => {
    assert.deepEqual(
      JSON.parse(readFileSync(join(ROOT, "src", "core", "compact", "pi-data.json"), "utf8")),
      compactionData(),
    );
  });

  it("serializeConversation equals pi's on every fixture's context", () => {
    for (const file of V3) {
      const messages = convertToLlm(buildContext(loadFixture(file)).messages);
      assert.equal(serializeConversation(messages), piSerializeConversation(messages as never), rel(file));
    }
  });
});
