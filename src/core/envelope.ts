/**
 * The envelope of a large record found by scanning its bytes, for readers that need no body (usage reports): the
 * scan checks the whole line against the JSON grammar, exactly as `JSON.parse` would accept it, and decodes only the
 * few values the reader keeps. It builds no string of the record's body, where `JSON.parse` builds all of them (most
 * of a session's bytes are tool results, which a usage report never reads). Pure: no Node API.
 *
 * Sound, not complete: when the scan answers, the line is valid JSON and the values it gives are those `JSON.parse`
 * gives (the last of duplicate keys wins). When it cannot decide cheaply (an escaped key near the top, a container
 * where a string is expected, a `message` that is not an object, nesting past `MAX_NESTING`) or the line is not
 * valid, it answers null and the caller parses the line in full, which reports any error as always.
 */
import { decodeUtf8, MAX_NESTING } from "./jsonl.js";

/** The record keys kept, and the keys kept of its `message` object. */
const TOP_KEYS = ["type", "id", "parentId", "timestamp", "message", "fromExtension"] as const;
const MESSAGE_KEYS = ["role", "toolName"] as const;
const MESSAGE = TOP_KEYS.indexOf("message");
const FROM_EXTENSION = TOP_KEYS.indexOf("fromExtension");
/** Fields are numbered: top keys first, then message keys. */
const FIELDS = TOP_KEYS.length + MESSAGE_KEYS.length;
const ROLE = TOP_KEYS.length + MESSAGE_KEYS.indexOf("role");
/** `"assistant"` with its quotes: such a record carries usage, and is parsed in full. */
const ASSISTANT = [...'"assistant"'].map((c) => c.charCodeAt(0));

const TOP_BYTES = TOP_KEYS.map((k) => [...k].map((c) => c.charCodeAt(0)));
const MESSAGE_BYTES = MESSAGE_KEYS.map((k) => [...k].map((c) => c.charCodeAt(0)));

/** Byte classes inside a string: 0 plain, 1 quote, 2 backslash, 3 control (not allowed unescaped). */
const IN_STRING = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) IN_STRING[c] = 3;
IN_STRING[0x22] = 1;
IN_STRING[0x5c] = 2;
/** The characters after a backslash that make a two-character escape: " \ / b f n r t. */
const SIMPLE_ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;

// Per-line scan state (one scan at a time: the module is single-threaded).
const spanStart = new Int32Array(FIELDS);
const spanEnd = new Int32Array(FIELDS);
/** Whether the field's value is a string without escapes (decoded as it is, without `JSON.parse`). */
const plainString = new Uint8Array(FIELDS);
/** Open containers: 1 object, 2 array (index = depth). */
const stack = new Uint8Array(MAX_NESTING + 2);
let sawEscape = false;

/**
 * The buffer being scanned as 32-bit words (from its first 4-aligned byte), so that a string's plain bytes are
 * skipped four at a time: most of a record's bytes are inside strings.
 */
let wordsOf: Uint8Array | null = null;
let words: Uint32Array<ArrayBufferLike> = new Uint32Array(0);
/** The index in `wordsOf` of `words[0]`'s first byte. */
let wordsAt = 0;

/** Drop the scanned buffer (the reader calls this after each chunk, so that no chunk is kept alive by the scan). */
export function forgetScanBuffer(): void {
  wordsOf = null;
  words = new Uint32Array(0);
}

function useWords(b: Uint8Array): void {
  if (b === wordsOf) return;
  wordsAt = (4 - (b.byteOffset & 3)) & 3;
  const count = b.length > wordsAt ? (b.length - wordsAt) >> 2 : 0;
  words = count ? new Uint32Array(b.buffer, b.byteOffset + wordsAt, count) : new Uint32Array(0);
  wordsOf = b;
}

/** The index after the string whose opening quote is before `i`, or -1 when it is not a valid JSON string. */
function skipString(b: Uint8Array, i: number, end: number): number {
  sawEscape = false;
  while (i < end) {
    // Four bytes at a time while none is a quote, a backslash or a control byte (each test is exact as a whole:
    // "has a byte below 0x20", "has a zero byte" of the word XOR the byte; bytes of 0x80 and above never match).
    if (((i - wordsAt) & 3) === 0) {
      let w = (i - wordsAt) >> 2;
      const last = Math.min((end - wordsAt) >> 2, words.length);
      while (w < last) {
        const x = words[w]!;
        const q = x ^ 0x22222222;
        const s = x ^ 0x5c5c5c5c;
        if ((((x - 0x20202020) & ~x) | ((q - 0x01010101) & ~q) | ((s - 0x01010101) & ~s)) & 0x80808080) break;
        w++;
      }
      i = wordsAt + (w << 2);
      if (i >= end) break;
    }
    const k = IN_STRING[b[i]!];
    if (k === 0) {
      i++;
      continue;
    }
    if (k === 1) return i + 1;
    if (k === 3) return -1;
    sawEscape = true;
    const d = b[i + 1];
    if (d === 0x75 /* u */) {
      for (let j = 2; j < 6; j++) {
        const h = b[i + j] ?? 0;
        const lower = h | 0x20; // A-F to a-f (and only letters: digits are tested on `h` itself)
        if (!((h >= 0x30 && h <= 0x39) || (lower >= 0x61 && lower <= 0x66))) return -1;
      }
      i += 6;
    } else if (SIMPLE_ESCAPE[d ?? 0]) i += 2;
    else return -1;
  }
  return -1;
}

function skipSpace(b: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = b[i]!;
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
    else break;
  }
  return i;
}

function digitsFrom(b: Uint8Array, i: number, end: number): number {
  while (i < end && b[i]! >= 0x30 && b[i]! <= 0x39) i++;
  return i;
}

/** The index after the number starting at `i`, or -1 when it is not a JSON number. */
function skipNumber(b: Uint8Array, i: number, end: number): number {
  if (b[i] === 0x2d) i++;
  const first = b[i];
  if (first === 0x30) i++;
  else if (first !== undefined && first >= 0x31 && first <= 0x39) i = digitsFrom(b, i + 1, end);
  else return -1;
  if (i < end && b[i] === 0x2e) {
    const from = i + 1;
    i = digitsFrom(b, from, end);
    if (i === from) return -1;
  }
  if (i < end && (b[i] === 0x65 || b[i] === 0x45)) {
    i++;
    if (b[i] === 0x2b || b[i] === 0x2d) i++;
    const from = i;
    i = digitsFrom(b, from, end);
    if (i === from) return -1;
  }
  return i;
}

function literalAt(b: Uint8Array, i: number, word: readonly number[]): boolean {
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return false;
  return true;
}
const TRUE = [0x74, 0x72, 0x75, 0x65];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];

/** Which of `keys` the key bytes [start, end) spell, or -1. */
function keyIndex(b: Uint8Array, start: number, end: number, keys: readonly (readonly number[])[]): number {
  const n = end - start;
  outer: for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    if (key.length !== n) continue;
    for (let j = 0; j < n; j++) if (b[start + j] !== key[j]) continue outer;
    return k;
  }
  return -1;
}

/** Whether the bytes [start, end) are `word`. */
function spanIs(b: Uint8Array, start: number, end: number, word: readonly number[]): boolean {
  return end - start === word.length && literalAt(b, start, word);
}

/** A kept value, as `JSON.parse` gives it. */
function valueOf(b: Uint8Array, field: number): unknown {
  const start = spanStart[field]!;
  const end = spanEnd[field]!;
  if (plainString[field]) return decodeUtf8(b.subarray(start + 1, end - 1));
  return JSON.parse(decodeUtf8(b.subarray(start, end))) as unknown;
}

/**
 * The record on the line bytes [start, end) reduced to its envelope: `type`, `id`, `parentId`, `timestamp`, whether
 * it has `fromExtension`, and of its `message` object `role` and `toolName` (each only when present). Null when the
 * line must be parsed in full (see the module comment), and for an assistant message, which carries usage (its scan
 * stops at its role).
 */
export function scanEnvelope(b: Uint8Array, start: number, end: number): Record<string, unknown> | null {
  spanStart.fill(-1);
  useWords(b);
  let i = skipSpace(b, start, end);
  if (b[i] !== 0x7b /* { */) return null;
  let depth = 0;
  /** The field the next value belongs to (-1: none). */
  let field = -1;
  /** The depth of the open `message` object (-1: not open). */
  let messageDepth = -1;
  let expectValue = true;
  for (;;) {
    i = skipSpace(b, i, end);
    if (i >= end) return null;
    const c = b[i]!;
    if (expectValue) {
      const valueStart = i;
      if (c === 0x7b || c === 0x5b) {
        if (depth >= MAX_NESTING) return null;
        stack[++depth] = c === 0x7b ? 1 : 2;
        if (field >= 0) {
          if (field === MESSAGE && c === 0x7b) messageDepth = depth;
          else return null; // a container where a string is expected, or a message that is not an object
          spanStart[field] = valueStart;
          field = -1;
        }
        i = skipSpace(b, i + 1, end);
        if (b[i] === (c === 0x7b ? 0x7d : 0x5d)) {
          i++;
          if (depth === messageDepth) messageDepth = -1; // an empty message
          depth--;
          expectValue = false;
          if (depth === 0) break;
          continue;
        }
        if (c === 0x7b) {
          i = readKey(b, i, end, depth, messageDepth);
          if (i < 0) return null;
          field = keyField;
        }
        continue;
      }
      if (depth === 0) return null;
      if (c === 0x22) {
        i = skipString(b, i + 1, end);
        if (i < 0) return null;
      } else if (c === 0x74 && literalAt(b, i, TRUE)) i += 4;
      else if (c === 0x66 && literalAt(b, i, FALSE)) i += 5;
      else if (c === 0x6e && literalAt(b, i, NULL)) i += 4;
      else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
        i = skipNumber(b, i, end);
        if (i < 0) return null;
      } else return null;
      if (field >= 0) {
        if (field === MESSAGE) return null; // a message that is not an object
        plainString[field] = c === 0x22 && !sawEscape ? 1 : 0;
        spanStart[field] = valueStart;
        spanEnd[field] = i;
        // An assistant message carries usage: it is parsed in full, so its scan stops here. A role that is not a plain
        // string (escaped, it could spell "assistant"; or no string at all) is left to JSON.parse as well.
        if (field === ROLE && (plainString[field] === 0 || spanIs(b, valueStart, i, ASSISTANT))) return null;
        field = -1;
      }
      expectValue = false;
      continue;
    }
    if (c === 0x2c /* , */) {
      i++;
      if (stack[depth] === 1) {
        i = readKey(b, skipSpace(b, i, end), end, depth, messageDepth);
        if (i < 0) return null;
        field = keyField;
      }
      expectValue = true;
      continue;
    }
    if ((c === 0x7d && stack[depth] === 1) || (c === 0x5d && stack[depth] === 2)) {
      i++;
      if (depth === messageDepth) messageDepth = -1;
      depth--;
      if (depth === 0) break;
      continue;
    }
    return null;
  }
  if (skipSpace(b, i, end) !== end) return null;
  return envelopeOf(b);
}

/** The field of the last key read (-1: not kept). */
let keyField = -1;

/**
 * The key whose opening quote is at `i`, and its colon: the index after the colon (its field in `keyField`), or -1
 * when the text is not a key, or the key is escaped where its name matters (it could spell a kept key).
 */
function readKey(b: Uint8Array, i: number, end: number, depth: number, messageDepth: number): number {
  keyField = -1;
  if (b[i] !== 0x22) return -1;
  const keyEnd = skipString(b, i + 1, end);
  if (keyEnd < 0) return -1;
  if (depth === 1) {
    if (sawEscape) return -1;
    keyField = keyIndex(b, i + 1, keyEnd - 1, TOP_BYTES);
    if (keyField === MESSAGE) for (let f = TOP_KEYS.length; f < FIELDS; f++) spanStart[f] = -1; // the last one wins
  } else if (depth === messageDepth) {
    if (sawEscape) return -1;
    const k = keyIndex(b, i + 1, keyEnd - 1, MESSAGE_BYTES);
    if (k >= 0) keyField = TOP_KEYS.length + k;
  }
  const colon = skipSpace(b, keyEnd, end);
  if (b[colon] !== 0x3a /* : */) return -1;
  return colon + 1;
}

function envelopeOf(b: Uint8Array): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (let f = 0; f < TOP_KEYS.length; f++) {
    if (spanStart[f]! < 0 || f === MESSAGE) continue;
    record[TOP_KEYS[f]!] = f === FROM_EXTENSION ? true : valueOf(b, f);
  }
  if (spanStart[MESSAGE]! >= 0) {
    const message: Record<string, unknown> = {};
    for (let k = 0; k < MESSAGE_KEYS.length; k++) {
      const f = TOP_KEYS.length + k;
      if (spanStart[f]! >= 0) message[MESSAGE_KEYS[k]!] = valueOf(b, f);
    }
    record.message = message;
  }
  return record;
}
