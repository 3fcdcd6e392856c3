// The scanned reader of usage reports (issue #21): a large record that carries no usage is checked against the JSON
// grammar and reduced to its envelope by a scan of its bytes (src/core/envelope.ts), not parsed. Its answers are
// checked against `JSON.parse` itself on generated and mutated lines, and a scanned read of a session against a full
// parse of it: fixtures, fuzzed fixtures and a generated session of large tool results.
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { generateSession } from "../bench/generate.js";
import { releaseScanChunk, scanChunk, scanEnvelope, scannerAvailable } from "../src/core/envelope.js";
import { MAX_NESTING } from "../src/core/jsonl.js";
import { isPlainObject } from "../src/core/facts.js";
import { type Entry, parseSession, type ParseResult } from "../src/core/session.js";
import { summarize } from "../src/core/summary.js";
import { readSessionFileSync } from "../src/node/fileBodies.js";
import { OMP_FIXTURES, PI_FIXTURES } from "./fixtures.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 4000);
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const TOP = ["type", "id", "parentId", "timestamp"] as const;
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

/** Byte-level mutations: each keeps most of the line, so the scan's deeper paths are reached. */
const mutation = fc.oneof(
  fc.constant({ kind: "none" as const }),
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({
    kind: fc.constant("insert" as const),
    at: fc.nat(),
    byte: fc.oneof(
      fc.constantFrom(
        0x22,
        0x5c,
        0x7b,
        0x7d,
        0x5b,
        0x5d,
        0x2c,
        0x3a,
        0x20,
        0x09,
        0x0d,
        0x00,
        0x1f,
        0x30,
        0x2d,
        0x2e,
        0x65,
      ),
      fc.nat(255),
    ),
  }),
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant("duplicateKey" as const),
    key: fc.constantFrom(...TOP, "message", "role"),
    value: fc.jsonValue({ maxDepth: 1 }),
  }),
  fc.record({ kind: fc.constant("escapeKey" as const), key: fc.constantFrom("type", "id", "role", "other") }),
  fc.constant({ kind: "escapeValue" as const }),
);

type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

/** The line's bytes after the mutation. */
function mutated(line: string, m: Mutation): Uint8Array {
  const b = Buffer.from(line, "utf8");
  const at = "at" in m ? m.at % (b.length + 1) : 0;
  switch (m.kind) {
    case "none":
      return b;
    case "flip":
      if (b.length) b[at % b.length]! ^= 1 << m.bit;
      return b;
    case "insert":
      return Buffer.concat([b.subarray(0, at), Buffer.from([m.byte]), b.subarray(at)]);
    case "delete":
      return Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
    case "truncate":
      return b.subarray(0, at);
    case "duplicateKey": {
      // The key again: last at the top (JSON.parse keeps the last), or first inside the message.
      const value = JSON.stringify(m.value);
      const text =
        m.key === "role"
          ? line.replace('"message":{', `"message":{"role":${value},`)
          : line.replace(/}$/, `,${JSON.stringify(m.key)}:${value}}`);
      return Buffer.from(text, "utf8");
    }
    case "escapeValue":
      // A string value with a letter escaped (JSON.parse reads the same string): "assist\u0061nt" is "assistant".
      return Buffer.from(
        line.replace(/(:"[^"\\]*?)([a-z])([^"\\]*")/, (_, a, c, z) => `${a}\\u00${c.charCodeAt(0).toString(16)}${z}`),
        "utf8",
      );
    case "escapeKey": {
      // The same key with its last letter escaped: JSON.parse reads it as the key itself.
      const last = m.key.charCodeAt(m.key.length - 1).toString(16);
      return Buffer.from(line.replace(`"${m.key}":`, `"${m.key.slice(0, -1)}\\u00${last}":`), "utf8");
    }
  }
}

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
    const { compileEnvelopeScan, generatedSource, GENERATED } = await import("../scripts/build-wasm.js");
    const fresh = generatedSource(await compileEnvelopeScan());
    assert.equal(readFileSync(GENERATED, "utf8"), fresh, "run `npm run build:wasm`");
    assert.ok(scannerAvailable());
  });
});

/** Everything a reader keeps of an entry, its body parsed again when read. */
function entryFacts(e: Entry) {
  let data: unknown;
  try {
    data = e.data;
  } catch (err) {
    data = String(err);
  }
  const { id, parentId, type, line, timestamp, known, role, shadowed, usage, provider, model, fromExtension } = e;
  return { id, parentId, type, line, timestamp, known, role, shadowed, usage, provider, model, fromExtension, data };
}

/** What a read gives: its leaf, diagnostics and every entry's facts, or its rejection. */
function readFacts(r: ParseResult) {
  return r.ok
    ? { leaf: r.session.leafId, diagnostics: r.session.diagnostics, entries: r.session.entries.map(entryFacts) }
    : r;
}

function assertSameRead(file: string, bytes: Uint8Array): void {
  const full = parseSession(file, bytes, { validate: false });
  const scanned = parseSession(file, bytes, { validate: false, scan: true });
  assert.deepEqual(readFacts(scanned), readFacts(full), file);
  // The usage report's summary: a scanned read fills no file touches (the report reads none).
  assert.deepEqual(summarize(scanned, { touches: false }), summarize(full, { touches: false }), file);
}

describe("a scanned read of a session", () => {
  it("keeps the usage of an assistant message whose role is written escaped", () => {
    const assistant = JSON.stringify({
      type: "message",
      id: "a1",
      parentId: null,
      timestamp: "2026-11-30T10:00:00.000Z",
      message: {
        role: "ROLE",
        content: [{ type: "text", text: "x".repeat(700) }],
        provider: "openai",
        model: "gpt-5.1",
        usage: { input: 10, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 30, cost: { total: 0.5 } },
      },
    }).replace('"ROLE"', '"assist\\u0061nt"');
    const head = JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-11-30T09:00:00Z", cwd: "/p" });
    const text = `${head}\n${assistant}\n`;
    const bytes = Buffer.from(text, "utf8");
    assertSameRead("escaped.jsonl", bytes);
    const summary = summarize(parseSession("escaped.jsonl", bytes, { validate: false, scan: true }));
    assert.ok(summary.ok);
    assert.deepEqual(
      summary.usage.map((u) => [u.totalTokens, u.cost]),
      [[30, 0.5]],
    );
  });

  it("equals a full parse on every fixture", () => {
    for (const file of [...PI_FIXTURES, ...OMP_FIXTURES]) assertSameRead(file, readFileSync(file));
  });

  it("equals a full parse on fuzzed fixtures and lines", function () {
    this.timeout(120_000);
    const files = [...PI_FIXTURES, ...OMP_FIXTURES].map((f) => readFileSync(f)).filter((b) => b.length < 200_000);
    fc.assert(
      fc.property(fc.nat(files.length - 1), fc.array(fc.tuple(fc.nat(), mutation), { maxLength: 4 }), (k, ms) => {
        const text = files[k]!.toString("utf8").split("\n");
        const lines: Uint8Array[] = text.map((l) => Buffer.from(l, "utf8"));
        for (const [at, m] of ms) {
          const i = at % lines.length;
          // The line made large, so that the scan reads it (records of 512 bytes or less are parsed).
          lines[i] = mutated(text[i]!.replace(/}$/, `,"pad":"${"p".repeat(600)}"}`), m);
        }
        const newline = Buffer.from("\n");
        assertSameRead("fuzz.jsonl", Buffer.concat(lines.flatMap((l, i) => (i ? [newline, l] : [l]))));
      }),
      { numRuns: Math.max(200, RUNS / 10) },
    );
  });

  it("equals a full parse on a generated session of large tool results", async function () {
    this.timeout(120_000);
    const dir = mkdtempSync(join(tmpdir(), "pi-envelope-"));
    try {
      const file = join(dir, "big.jsonl");
      await generateSession(file, { targetBytes: 4 * 1024 * 1024, branchPoints: 5, seed: 7 });
      const bytes = readFileSync(file);
      assertSameRead(file, bytes);
      // The scan read its large tool results: JSON.parse saw none of them.
      const largeParses = (scan: boolean) => {
        const parse = JSON.parse;
        let n = 0;
        JSON.parse = ((t: string, r?: Parameters<typeof parse>[1]) => {
          if (t.length > 512 && t.includes('"toolResult"')) n++;
          return parse(t, r);
        }) as typeof parse;
        try {
          parseSession(file, bytes, { validate: false, scan });
        } finally {
          JSON.parse = parse;
        }
        return n;
      };
      assert.ok(largeParses(false) > 100, "the session has large tool results");
      assert.equal(largeParses(true), 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("equals a full parse when the scan's memory cannot grow (in a process of its own)", function () {
    this.timeout(120_000);
    const dir = mkdtempSync(join(tmpdir(), "pi-envelope-"));
    try {
      // Every grow of a WebAssembly memory fails from the start: no chunk in the scan's memory, no line copied
      // there; every read still gives a full parse's answers.
      const child = join(dir, "nogrow.mts");
      const src = (f: string) => JSON.stringify(join(import.meta.dirname, "..", "src", f));
      writeFileSync(
        child,
        [
          `import { readFileSync } from "node:fs";`,
          `import { isDeepStrictEqual } from "node:util";`,
          `import { parseSession } from ${src("core/session.ts")};`,
          `import { summarize } from ${src("core/summary.ts")};`,
          `import { readSessionFileSync } from ${src("node/fileBodies.ts")};`,
          `WebAssembly.Memory.prototype.grow = () => { throw new RangeError("no memory"); };`,
          `let same = 0;`,
          `for (const f of JSON.parse(process.argv[2])) {`,
          `  const full = summarize(parseSession(f, readFileSync(f), { validate: false }), { touches: false });`,
          `  const scanned = summarize(readSessionFileSync(f, { validate: false, scan: true }), { touches: false });`,
          `  if (isDeepStrictEqual(full, scanned)) same++; else console.log("differs:", f);`,
          `}`,
          `console.log(same);`,
        ].join("\n"),
      );
      const files = [...PI_FIXTURES, ...OMP_FIXTURES];
      const r = spawnSync(process.execPath, ["--import", "tsx", child, JSON.stringify(files)], { encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.trim(), String(files.length));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("read from a file in chunks that land in the scan's memory, equals a full parse", async function () {
    // readSessionFileSync reads a usage reader's 4 MB chunks into the scan's own memory (`scanChunk`) and scans their
    // lines where they are; a line cut by a chunk's end is joined and copied. 9 MB: three chunks, two cuts.
    this.timeout(120_000);
    const dir = mkdtempSync(join(tmpdir(), "pi-envelope-"));
    try {
      const big = join(dir, "big.jsonl");
      await generateSession(big, { targetBytes: 9 * 1024 * 1024, branchPoints: 5, seed: 11 });
      for (const file of [big, ...PI_FIXTURES, ...OMP_FIXTURES]) {
        const full = parseSession(file, readFileSync(file), { validate: false });
        const scanned = readSessionFileSync(file, { validate: false, scan: true });
        assert.deepEqual(readFacts(scanned), readFacts(full), file);
        assert.deepEqual(summarize(scanned, { touches: false }), summarize(full, { touches: false }), file);
      }
      // The chunks' lines were scanned where they are: JSON.parse saw no large tool result.
      const parse = JSON.parse;
      let parsedLarge = 0;
      JSON.parse = ((t: string, r?: Parameters<typeof parse>[1]) => {
        if (t.length > 512 && t.includes('"toolResult"')) parsedLarge++;
        return parse(t, r);
      }) as typeof parse;
      try {
        readSessionFileSync(big, { validate: false, scan: true });
      } finally {
        JSON.parse = parse;
      }
      assert.equal(parsedLarge, 0);
      // While a reader holds the chunk, another read uses a buffer of its own (and the first keeps its chunk).
      const held = scanChunk(64);
      assert.ok(held);
      try {
        assert.equal(scanChunk(64), null);
        const inner = readSessionFileSync(big, { validate: false, scan: true });
        assert.deepEqual(readFacts(inner), readFacts(parseSession(big, readFileSync(big), { validate: false })));
      } finally {
        releaseScanChunk();
      }
      // A small file after a big one: the same answers.
      const small = PI_FIXTURES[0]!;
      const again = summarize(readSessionFileSync(small, { validate: false, scan: true }), { touches: false });
      assert.deepEqual(
        again,
        summarize(parseSession(small, readFileSync(small), { validate: false }), { touches: false }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
