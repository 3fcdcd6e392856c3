// A scanned read of a session (usage reports' reader, issue #21; the scan itself: test/core/envelope.test.ts) against a
// full parse of it: fixtures, fuzzed fixtures, generated sessions of large tool results, a file read in chunks that
// land in the scan's memory, and a scan whose memory cannot grow.
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { generateSession } from "../../bench/generate.js";
import { releaseScanChunk, scanChunk } from "../../src/core/envelope.js";
import { type Entry, parseSession, type ParseResult } from "../../src/core/session/index.js";
import { summarize } from "../../src/core/summary.js";
import { readSessionFileSync } from "../../src/node/fileBodies.js";
import { mutated, mutation } from "../support/envelopeMutation.js";
import { OMP_FIXTURES, PI_FIXTURES } from "../support/fixtures.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 4000);

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

/** How many large tool results `JSON.parse` was given while `read` ran (none when the scan read them). */
function largeToolResultParses(read: () => unknown): number {
  const parse = JSON.parse;
  let n = 0;
  JSON.parse = ((t: string, r?: Parameters<typeof parse>[1]) => {
    if (t.length > 512 && t.includes('"toolResult"')) n++;
    return parse(t, r);
  }) as typeof parse;
  try {
    read();
  } finally {
    JSON.parse = parse;
  }
  return n;
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
      const read = (scan: boolean) => () => parseSession(file, bytes, { validate: false, scan });
      assert.ok(largeToolResultParses(read(false)) > 100, "the session has large tool results");
      assert.equal(largeToolResultParses(read(true)), 0);
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
      const src = (f: string) => JSON.stringify(join(import.meta.dirname, "..", "..", "src", f));
      writeFileSync(
        child,
        [
          `import { readFileSync } from "node:fs";`,
          `import { isDeepStrictEqual } from "node:util";`,
          `import { parseSession } from ${src("core/session/index.ts")};`,
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
      assert.equal(
        largeToolResultParses(() => readSessionFileSync(big, { validate: false, scan: true })),
        0,
      );
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
