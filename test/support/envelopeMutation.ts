// Byte-level mutations of a JSONL line, for the envelope scan's tests (test/core/envelope.test.ts and
// envelopeRead.test.ts).
import fc from "fast-check";

/** The record keys the scan keeps at the top. */
export const TOP = ["type", "id", "parentId", "timestamp"] as const;

/** Byte-level mutations: each keeps most of the line, so the scan's deeper paths are reached. */
export const mutation = fc.oneof(
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

export type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

/** The line's bytes after the mutation. */
export function mutated(line: string, m: Mutation): Uint8Array {
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
