// The scan of usage reports' reader (issue #21): a large record is checked against the JSON grammar and reduced to
// its envelope by a WebAssembly scan of its bytes (src/core/envelope.ts), not parsed. Its answers are checked against
// `JSON.parse` itself on generated, mutated and hand-made lines; test/core/envelopeRead.test.ts checks whole reads.
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { scanEnvelope, scannerAvailable } from "../../src/core/envelope.js";
import { MAX_NESTING } from "../../src/core/jsonl.js";
import { isPlainObject } from "../../src/core/facts.js";
import { mutated, mutation, TOP } from "../support/envelopeMutation.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 4000);
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
/** The message's values the envelope keeps: what `usageFacts` reads of an assistant message. */
const MESSAGE_KEYS = ["role", "toolName", "provider", "model", "responseModel", "usage"] as const;

/** JSON.parse of the bytes as the reader decodes them, or undefined when it throws. */
function parsed(bytes: Uint8Array): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(decoder.decode(bytes)) as unknown };
  } catch {
    return undefined;
  }
}

/** What `usageFacts` reads of a usage value (the envelope keeps only that of a usage object). */
function usageRead(u: unknown): unknown {
  if (!isPlainObject(u)) return u;
  const read: Record<string, unknown> = {};
  for (const k of ["input", "output", "cacheRead", "cacheWrite", "totalTokens"]) if (k in u) read[k] = u[k];
  if ("cost" in u) read.cost = isPlainObject(u.cost) ? ("total" in u.cost ? { total: u.cost.total } : {}) : u.cost;
  return read;
}

/** The scan's answer agrees with `JSON.parse` on every value it gives. */
function checkAgainstParse(bytes: Uint8Array): Record<string, unknown> | null {
  const envelope = scanEnvelope(bytes, 0, bytes.length);
  if (envelope === null) return null;
  const p = parsed(bytes);
  assert.ok(p, `scanned as valid, JSON.parse rejects: ${decoder.decode(bytes).slice(0, 200)}`);
  const v = p.value;
  assert.ok(isPlainObject(v), "an envelope for a line that is not an object");
  for (const k of TOP) {
    assert.equal(k in envelope, k in v, `presence of ${k}`);
    assert.deepEqual(envelope[k], v[k], k);
  }
  assert.equal("fromExtension" in envelope, "fromExtension" in v, "fromExtension");
  assert.equal("message" in envelope, "message" in v, "message");
  if ("message" in v) {
    assert.ok(isPlainObject(v.message), "an envelope for a message that is not an object");
    const m = envelope.message as Record<string, unknown>;
    for (const k of MESSAGE_KEYS) {
      assert.equal(k in m, k in v.message, `presence of message.${k}`);
      if (k === "usage") assert.deepEqual(usageRead(m[k]), usageRead(v.message[k]), "message.usage");
      else assert.deepEqual(m[k], v.message[k], `message.${k}`);
    }
  }
  return envelope;
}

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: fc.constantFrom("a", '"', "\\", "\n", "\t", "\u0000", "\u2028", "é", "😀", "\ud800", "/") }),
);
const scalar = fc.oneof(text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null));
const role = fc.oneof(fc.constantFrom("user", "toolResult", "assistant", "custom", "bashExecution"), scalar);
const message = fc.oneof(
  fc.record(
    {
      role,
      toolName: fc.oneof(fc.constantFrom("read", "task", "bash"), scalar),
      content: fc.oneof(text, fc.array(fc.record({ type: fc.constant("text"), text }))),
      provider: fc.oneof(fc.constantFrom("openai", "anthropic"), fc.jsonValue({ maxDepth: 1 })),
      model: fc.oneof(fc.constantFrom("gpt-5.1", "claude-sonnet-4-5"), fc.jsonValue({ maxDepth: 1 })),
      responseModel: fc.oneof(text, fc.jsonValue({ maxDepth: 1 })),
      usage: fc.oneof(
        fc.record({ input: fc.nat(), output: fc.nat(), cacheRead: fc.nat(), cost: fc.record({ total: fc.double() }) }),
        fc.jsonValue({ maxDepth: 3 }),
      ),
      details: fc.jsonValue({ maxDepth: 3 }),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue({ maxDepth: 2 }),
);
/** A record: the kept keys (values of any kind, mostly the expected one) among others, in any order. */
const record = fc
  .record(
    {
      type: fc.oneof(fc.constantFrom("message", "custom", "model_usage", "label", "branch_summary"), scalar),
      id: fc.oneof(fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 1, maxLength: 12 }), scalar),
      parentId: fc.oneof(
        fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 1, maxLength: 12 }),
        fc.constant(null),
        scalar,
      ),
      timestamp: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        scalar,
      ),
      message,
      fromExtension: fc.jsonValue({ maxDepth: 1 }),
      other: fc.jsonValue({ maxDepth: 3 }),
    },
    { requiredKeys: [] },
  )
  .chain((r) => fc.shuffledSubarray(Object.keys(r), { minLength: Object.keys(r).length }).map((keys) => ({ r, keys })))
  .map(({ r, keys }) => JSON.stringify(Object.fromEntries(keys.map((k) => [k, r[k as keyof typeof r]]))));
describe("the envelope scan (usage reports' reader)", () => {
  it("answers only for lines JSON.parse accepts, with the values JSON.parse gives", function () {
    this.timeout(120_000);
    let answered = 0;
    fc.assert(
      fc.property(record, mutation, (line, m) => {
        if (checkAgainstParse(mutated(line, m))) answered++;
      }),
      { numRuns: RUNS },
    );
    assert.ok(answered > RUNS / 10, `the scan answered ${answered} of ${RUNS}: it must decide the common lines`);
  });

  it("decides the lines agents write, and leaves the rest to JSON.parse", () => {
    const toolResult = {
      type: "message",
      id: "a1b2c3d4",
      parentId: "f0e1d2c3",
      timestamp: "2026-11-30T10:00:00.123Z",
      message: {
        role: "toolResult",
        toolCallId: "call_1",
        toolName: "read",
        content: [{ type: "text", text: "x\n".repeat(500) }],
      },
    };
    const line = (v: unknown) => Buffer.from(JSON.stringify(v), "utf8");
    assert.deepEqual(checkAgainstParse(line(toolResult)), {
      type: "message",
      id: "a1b2c3d4",
      parentId: "f0e1d2c3",
      timestamp: "2026-11-30T10:00:00.123Z",
      message: { role: "toolResult", toolName: "read" },
    });
    // An assistant message: its envelope holds what its usage facts are made of, not its text and tool calls.
    const usage = { input: 3, output: 4, cacheRead: 5, cacheWrite: 0, totalTokens: 12, cost: { total: 0.25 } };
    const reply = {
      role: "assistant",
      content: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a.ts" } }],
      provider: "openai",
      model: "gpt-5.1",
      usage,
      stopReason: "toolUse",
    };
    assert.deepEqual(checkAgainstParse(line({ ...toolResult, message: reply })), {
      type: "message",
      id: "a1b2c3d4",
      parentId: "f0e1d2c3",
      timestamp: "2026-11-30T10:00:00.123Z",
      message: { role: "assistant", provider: "openai", model: "gpt-5.1", usage },
    });
    // A usage whose numbers are not plain (a duplicate key, an escaped key, a value of another kind, a second usage
    // object, a cost that is no object, a cost twice) is given whole, as JSON.parse reads it.
    const usageText = (u: string) =>
      `{"type":"message","id":"u","message":{"role":"assistant","usage":${u},"content":"${"x".repeat(600)}"}}`;
    for (const u of [
      '{"input":1,"input":2,"output":3}',
      '{"inp\\u0075t":1,"output":2}',
      '{"input":"7","output":2}',
      '{"input":[1],"cost":{"total":0.5}}',
      '{"input":1,"cost":5}',
      '{"input":1,"cost":{"total":1},"cost":{"input":2}}',
      '{"input":1,"cost":{"total":1,"total":-0}}',
      '{"input":1,"cost":{"tot\\u0061l":2}}',
      '{"input":-0,"output":1e400,"cacheRead":0.1e-2,"totalTokens":12E+2,"cost":{"total":1.7976931348623157e308}}',
      '{"reasoning":{"input":9},"cost":{"sub":{"total":9},"total":3},"total":4}',
      "{}",
      '{"cost":{}}',
      "[1,2]",
      "null",
      '"usage"',
    ]) {
      const bytes = Buffer.from(usageText(u), "utf8");
      const m = checkAgainstParse(bytes)?.message as Record<string, unknown> | undefined;
      assert.ok(m, u);
      assert.deepEqual(usageRead(m.usage), usageRead(JSON.parse(u)), u);
    }
    const twice = Buffer.from(usageText('{"input":1},"usage":{"output":2}'), "utf8");
    assert.deepEqual((checkAgainstParse(twice)?.message as Record<string, unknown>).usage, { output: 2 });
    // Left to JSON.parse: an escaped role (it could spell "assistant"), an escaped top key, a container id, deep
    // nesting, a BOM.
    const escapedAssistant = JSON.stringify({ ...toolResult, message: { role: "ROLE", usage: { input: 3 } } }).replace(
      '"ROLE"',
      '"assist\\u0061nt"',
    );
    assert.equal(JSON.parse(escapedAssistant).message.role, "assistant");
    assert.equal(scanEnvelope(Buffer.from(escapedAssistant), 0, escapedAssistant.length), null);
    for (const text of [
      '{"typ\\u0065":"message","id":"x"}',
      '{"type":"message","id":["x"]}',
      `{"type":"message","id":"x","deep":${"[".repeat(1001)}${"]".repeat(1001)}}`,
      `\ufeff${JSON.stringify(toolResult)}`,
      '{"type":"message","message":"text"}',
    ])
      assert.equal(scanEnvelope(Buffer.from(text, "utf8"), 0, Buffer.byteLength(text)), null, text.slice(0, 60));
    // Invalid lines are never answered: a raw control byte in a string, a bad escape, a trailing comma, two values.
    for (const text of [
      '{"id":"a\tb"}',
      '{"id":"\\x41"}',
      '{"id":"a",}',
      '{"id":"a"} {}',
      '{"id":01}',
      '{"id":"\\u\u0010000"}',
      '{"id":1.}',
      '{"id":-}',
    ])
      assert.equal(scanEnvelope(Buffer.from(text, "utf8"), 0, text.length), null, text);
    // Within a larger buffer: only [start, end) is the line.
    const two = Buffer.from(`${JSON.stringify(toolResult)}\n{"id":"next"}`, "utf8");
    const end = two.indexOf(10);
    assert.equal(checkAgainstParse(two.subarray(0, end))?.id, "a1b2c3d4");
    assert.equal(scanEnvelope(two, 0, end)?.id, "a1b2c3d4");
    assert.equal(scanEnvelope(two, 0, end + 3), null);
  });

  it("decides a string's every byte in every position of its 16-byte blocks, as JSON.parse does", () => {
    // The scan tests 16 bytes of a string at a time: each special byte goes at each offset of strings from 0 to 70
    // bytes long, behind prefixes that move the string across the blocks.
    const escapes = ["\\", "\\n", '\\"', "\\u00e9", "\\u12G4", "\\x"];
    const specials = ['"', ...escapes, "\t", "\u0000", "\u001f", " ", "é", "\u007f"];
    let answered = 0;
    for (const pad of ["", "x", "xyz", "0123456789abcde"])
      for (let len = 0; len <= 70; len++)
        for (let at = 0; at <= len; at++)
          for (const s of specials) {
            const body = "a".repeat(at) + s + "b".repeat(len - at);
            const bytes = Buffer.from(`{"type":"custom","${pad}":0,"id":"${body}","more":"${body}"}`, "utf8");
            // Complete here too: no escaped key, no container where a kept value is: a valid line is answered.
            const answer = checkAgainstParse(bytes);
            assert.equal(answer !== null, parsed(bytes) !== undefined, bytes.toString());
            if (answer) answered++;
          }
    assert.ok(answered > 20000, `only ${answered} lines answered`);
  });

  it("answers up to the reader's nesting bound (core/jsonl.ts MAX_NESTING) and no deeper", () => {
    const nested = (depth: number) =>
      Buffer.from(`{"type":"custom","id":"x","deep":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`);
    assert.equal(checkAgainstParse(nested(MAX_NESTING))?.id, "x");
    assert.equal(scanEnvelope(nested(MAX_NESTING + 1), 0, nested(MAX_NESTING + 1).length), null);
  });

  it("leaves a line over 8 MB to JSON.parse, so that its memory stays bounded", () => {
    const line = (n: number) => Buffer.from(`{"type":"custom","id":"x","data":"${"y".repeat(n)}"}`);
    const under = line(8 * 1024 * 1024 - 64);
    assert.equal(scanEnvelope(under, 0, under.length)?.id, "x");
    const over = line(8 * 1024 * 1024);
    assert.equal(scanEnvelope(over, 0, over.length), null);
  });

  it("runs the WebAssembly module compiled from wasm/envelopeScan.ts (the generated file is up to date)", async () => {
    const { compileEnvelopeScan, generatedSource, GENERATED } = await import("../../scripts/build-wasm.js");
    const fresh = generatedSource(await compileEnvelopeScan());
    assert.equal(readFileSync(GENERATED, "utf8"), fresh, "run `npm run build:wasm`");
    assert.ok(scannerAvailable());
  });
});
