// Property-based fuzzing of the reader (fast-check) over mutations of the real fixtures. `npm test` runs a few
// thousand cases; `npm run fuzz` runs FUZZ_RUNS (default there: 100,000) and reports the count.
import * as assert from "node:assert/strict";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { run } from "../../../src/cli/main.js";
import { buildContext } from "../../../src/core/context/index.js";
import { nestingExceeds } from "../../../src/core/jsonl.js";
import { parseSession, type ParseResult, SessionReader } from "../../../src/core/session/index.js";
import { treeJson } from "../../../src/core/treeJson.js";
import { ChunkFeeder, FileBodySource } from "../../../src/node/fileBodies.js";
import { feedInChunks, plain } from "../../support/helpers.js";
import { OMP_FIXTURES, PI_FIXTURES } from "../../support/fixtures.js";

const TOTAL = Number(process.env.FUZZ_RUNS ?? 3000);
const SMALL = [...PI_FIXTURES, ...OMP_FIXTURES]
  .filter((f) => readFileSync(f).length < 20_000)
  .map((f) => readFileSync(f));
let cases = 0;

const enc = (s: string) => Buffer.from(s, "utf8");
const lines = (b: Buffer) => b.toString("utf8").split("\n");
const join_ = (ls: string[]) => enc(ls.join("\n"));

/** Mutations of a fixture's bytes (each keeps some structure, so the reader's deeper paths are reached). */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant("truncate"), at: fc.nat() }),
  fc.record({ kind: fc.constant("flip"), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({
    kind: fc.constant("invalidUtf8"),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 4 }).map((a) => a.map((x) => x | 0x80)),
  }),
  fc.record({ kind: fc.constant("swap"), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant("duplicate"), a: fc.nat() }),
  fc.record({ kind: fc.constant("reuseId"), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant("reparent"), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant("selfParent"), a: fc.nat() }),
  fc.record({ kind: fc.constant("hugeLine"), a: fc.nat(), size: fc.integer({ min: 100_000, max: 600_000 }) }),
  fc.constant({ kind: "empty" }),
  fc.constant({ kind: "bom" }),
  fc.record({ kind: fc.constant("crlf"), every: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant("titleGarbage"), garbage: fc.string({ maxLength: 40 }) }),
  fc.record({ kind: fc.constant("secondHeader"), a: fc.nat() }),
  // Nesting around the bound (MAX_NESTING) and far past it, closed or not, inside a record or as a bare line.
  fc.record({
    kind: fc.constant("deepNest"),
    a: fc.nat(),
    depth: fc.oneof(fc.integer({ min: 1, max: 1200 }), fc.integer({ min: 1200, max: 60_000 })),
    open: fc.constantFrom("[", '{"a":'),
    closed: fc.boolean(),
    inRecord: fc.boolean(),
  }),
  // A huge line of one character (a run of `[`, `{` or `"`), up to 2 MB.
  fc.record({
    kind: fc.constant("bracketRun"),
    a: fc.nat(),
    char: fc.constantFrom("[", "{", '"', "]"),
    size: fc.integer({ min: 1, max: 2_000_000 }),
  }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

function editRecord(
  b: Buffer,
  index: number,
  edit: (r: Record<string, unknown>, all: Record<string, unknown>[]) => void,
): Buffer {
  const ls = lines(b);
  const records = ls.map((l) => {
    try {
      // A line past the nesting bound is left as it is (re-serializing it would overflow the stack).
      return nestingExceeds(l) ? null : JSON.parse(l);
    } catch {
      return null;
    }
  });
  const entries = records
    .map((r, i) => [r, i] as const)
    .filter(([r]) => r && typeof r === "object" && typeof r.id === "string" && r.type !== "session");
  if (!entries.length) return b;
  const [target, at] = entries[index % entries.length]!;
  edit(
    target,
    entries.map(([r]) => r),
  );
  ls[at] = JSON.stringify(target);
  return join_(ls);
}

function apply(src: Buffer, m: Mutation): Buffer {
  const b = Buffer.from(src);
  const ls = lines(b);
  switch (m.kind) {
    case "truncate":
      return b.subarray(0, m.at % (b.length + 1));
    case "flip": {
      if (!b.length) return b;
      b[m.at % b.length]! ^= 1 << m.bit;
      return b;
    }
    case "invalidUtf8": {
      const at = m.at % (b.length + 1);
      return Buffer.concat([b.subarray(0, at), Buffer.from(m.bytes), b.subarray(at)]);
    }
    case "swap": {
      const a = m.a % ls.length;
      const c = m.b % ls.length;
      [ls[a], ls[c]] = [ls[c]!, ls[a]!];
      return join_(ls);
    }
    case "duplicate": {
      const a = m.a % ls.length;
      ls.splice(a, 0, ls[a]!);
      return join_(ls);
    }
    case "reuseId":
      return editRecord(b, m.a, (r, all) => (r.id = all[m.b % all.length]!.id));
    case "reparent":
      return editRecord(b, m.a, (r, all) => (r.parentId = all[m.b % all.length]!.id));
    case "selfParent":
      return editRecord(b, m.a, (r) => (r.parentId = r.id));
    case "hugeLine": {
      const a = m.a % ls.length;
      ls.splice(
        a,
        0,
        JSON.stringify({
          type: "message",
          id: "huge0001",
          parentId: null,
          timestamp: "2026-01-01T00:00:00.000Z",
          message: { role: "toolResult", content: [{ type: "text", text: "x".repeat(m.size) }] },
        }),
      );
      return join_(ls);
    }
    case "empty":
      return Buffer.alloc(0);
    case "bom":
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]);
    case "crlf":
      return join_(ls.map((l, i) => (i % m.every === 0 ? `${l}\r` : l)));
    case "titleGarbage":
      return Buffer.concat([
        enc(`${JSON.stringify({ type: "title", v: 1, title: "t", source: "user" })}\n${m.garbage}\n`),
        b,
      ]);
    case "deepNest": {
      const close = m.open === "[" ? "]" : "}";
      const inner = m.open === "[" ? "" : "1";
      const nested = `${m.open.repeat(m.depth)}${inner}${m.closed ? close.repeat(m.depth) : ""}`;
      const record = JSON.stringify({
        type: "message",
        id: "deep0001",
        parentId: null,
        timestamp: "2026-01-01T00:00:00.000Z",
        message: { role: "toolResult", content: [{ type: "text", text: "x" }], details: "DEEP" },
      });
      ls.splice(m.a % ls.length, 0, m.inRecord ? record.replace('"DEEP"', nested) : nested);
      return join_(ls);
    }
    case "bracketRun":
      ls.splice(m.a % ls.length, 0, m.char.repeat(m.size));
      return join_(ls);
    case "secondHeader": {
      const header = ls.find((l) => l.includes('"type":"session"'));
      if (header) ls.splice((m.a % ls.length) + 1, 0, header);
      return join_(ls);
    }
  }
}

/** The reader's promises, checked on one input. */
function check(bytes: Buffer): ParseResult {
  cases++;
  const r = parseSession("fuzz.jsonl", bytes);
  const diags = r.ok ? r.session.diagnostics : [...r.diagnostics, r.rejection];
  for (const d of diags)
    assert.ok(Number.isInteger(d.line) && d.line >= 0, `diagnostic without a line: ${JSON.stringify(d)}`);
  if (r.ok) {
    const s = r.session;
    // Every entry is reachable from a root, or reported as detached (a parent cycle).
    const reached = new Set<string>();
    const stack = [...s.roots];
    while (stack.length) {
      const id = stack.pop()!;
      if (reached.has(id)) continue;
      reached.add(id);
      stack.push(...(s.children.get(id) ?? []));
    }
    const detached = new Set(s.detached);
    for (const e of s.entries)
      if (!e.shadowed)
        assert.ok(reached.has(e.id) || detached.has(e.id), `entry ${e.id} is neither reachable nor detached`);
    assert.equal(s.byId.size, reached.size + detached.size);
    // Whatever was kept can be walked: serialized whole, its context built, every body read.
    JSON.stringify(treeJson(s));
    JSON.stringify(buildContext(s));
    for (const e of s.entries) JSON.stringify(e.data);
  }
  return r;
}

const view = (r: ParseResult) =>
  r.ok
    ? plain({
        ids: r.session.entries.map((e) => [e.id, e.parentId, e.line, !!e.shadowed, e.role, e.usage, e.data]),
        children: [...r.session.children],
        roots: r.session.roots,
        detached: r.session.detached,
        leaf: r.session.leafId,
        labels: [...r.session.labels],
        name: r.session.name,
        compactions: r.session.compactions,
        diagnostics: r.session.diagnostics,
      })
    : plain({ rejection: r.rejection, diagnostics: r.diagnostics });

describe(`fuzzing the reader (${TOTAL} cases)`, function () {
  this.timeout(0);
  after(() => console.log(`      fuzz: ${cases} inputs checked`));

  it("never throws; every diagnostic has a line; every accepted entry is reachable or detached", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: SMALL.length - 1 }),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        (i, ms) => {
          check(ms.reduce(apply, SMALL[i]!));
        },
      ),
      { numRuns: Math.ceil(TOTAL * 0.6), seed: Number(process.env.FUZZ_SEED ?? 42) },
    );
  });

  it("the same bytes fed in random chunks, bodies parsed lazily, give the answer of reading them whole", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: SMALL.length - 1 }),
        mutation,
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 20 }),
        (i, m, sizes) => {
          const bytes = apply(SMALL[i]!, m);
          const whole = check(bytes);
          // Every record held as bytes and parsed again on read, against the default (small records held parsed).
          const reader = new SessionReader("fuzz.jsonl", { retainBytes: 0 });
          const ends = feedInChunks(reader, bytes, sizes, () => reader.result());
          assert.deepEqual(view(reader.result(ends)), view(whole));
        },
      ),
      { numRuns: Math.ceil(TOTAL * 0.3), seed: Number(process.env.FUZZ_SEED ?? 42) },
    );
  });

  it("the same bytes as a file, fed in random chunks with bodies read back from the file, give the same answer", () => {
    const dir = mkdtempSync(join(tmpdir(), "pse-fuzz-file-"));
    const file = join(dir, "fuzz.jsonl");
    try {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: SMALL.length - 1 }),
          mutation,
          fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 20 }),
          (i, m, sizes) => {
            const bytes = apply(SMALL[i]!, m);
            writeFileSync(file, bytes);
            const whole = check(bytes);
            // Every record's body read back from the file (retainBytes 0), the file cut at random places.
            const reader = new SessionReader(file, { retainBytes: 0 });
            const source = new FileBodySource(file);
            const st = statSync(file, { bigint: true });
            source.identify(st.dev, st.ino);
            const feeder = new ChunkFeeder(reader, source);
            for (let at = 0, k = 0; at < bytes.length; k++) {
              const n = sizes[k % sizes.length]!;
              feeder.push(bytes.subarray(at, at + n));
              at += n;
            }
            feeder.finish();
            assert.deepEqual(view(reader.result(feeder.endsWithNewline)), view(whole));
          },
        ),
        { numRuns: Math.ceil(TOTAL * 0.15), seed: Number(process.env.FUZZ_SEED ?? 42) },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("truncation at every byte offset of three small files", () => {
    const small = [...SMALL].sort((a, b) => a.length - b.length).slice(0, 3);
    for (const bytes of small) for (let at = 0; at <= bytes.length; at++) check(bytes.subarray(0, at));
  });

  it("the CLI exits 0 or 2, never otherwise", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-fuzz-"));
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: SMALL.length - 1 }),
          mutation,
          fc.constantFrom("tree", "lint", "context"),
          async (i, m, command) => {
            cases++;
            const file = join(dir, "f.jsonl");
            writeFileSync(file, apply(SMALL[i]!, m));
            const code = await run([command, file, "--json"], { out: () => {}, err: () => {} });
            assert.ok(code === 0 || code === 2, `${command} exited ${code}`);
          },
        ),
        { numRuns: Math.ceil(TOTAL * 0.1), seed: Number(process.env.FUZZ_SEED ?? 42) },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
