/**
 * The envelope scan of core/envelope.ts, in AssemblyScript compiled to WebAssembly (scripts/build-wasm.ts writes
 * src/core/envelopeScan.generated.ts from it): the bytes of one line, in this module's memory from `dataStart()` on
 * (the caller copies them there, or reads a file's chunk there), are checked against the whole JSON grammar exactly
 * as `JSON.parse` accepts them; which of the values the reader keeps are present is written to `spanStarts()` and
 * `plains()`, and the values themselves where the caller asks. Inside strings, 16 bytes are tested at a time with
 * SIMD: most of a record's bytes are in strings, and this is what makes the scan several times faster than
 * `JSON.parse`.
 *
 * Sound, not complete, as the module it serves: `scan` answers 0 whenever the line is not valid, and also when it
 * cannot decide cheaply (an escaped key at a level whose keys matter, a container where a string is expected, a
 * `message` that is not an object, nesting past `MAX_NESTING`, a role that is not a plain string).
 * A read past the line's end never makes an answer 1: every such path ends in 0.
 *
 * Fields, numbered as in core/envelope.ts: the record's type, id, parentId, timestamp, message, fromExtension, then
 * its message's role, toolName, provider, model, responseModel and usage (an assistant message's usage facts). The
 * message's values other than the role may be of any kind; the others must be scalars.
 */
const FIELDS: i32 = 12;
const MESSAGE: i32 = 4;
const ROLE: i32 = 6;
const FROM_EXTENSION: i32 = 5;
const TOP_COUNT: i32 = 6;
const USAGE: i32 = 11;
/** The usage numbers' keys follow the fields' in the key table; `cost` is an object, `total` is in it. */
const NUMBER_KEYS: i32 = FIELDS;
const COST: i32 = 5;
const TOTAL: i32 = 6;
/** core/jsonl.ts MAX_NESTING (test/core/envelope.test.ts checks that the two agree). */
const MAX_NESTING: i32 = 1000;

/**
 * The kept keys' bytes: the fields' (type id parentId timestamp message fromExtension role toolName provider model
 * responseModel usage), then the usage numbers' (input output cacheRead cacheWrite totalTokens cost, and cost's total).
 */
const KEY_BYTES = memory.data<u8>([
  0x74, 0x79, 0x70, 0x65, 0x69, 0x64, 0x70, 0x61, 0x72, 0x65, 0x6e, 0x74, 0x49, 0x64, 0x74, 0x69, 0x6d, 0x65, 0x73,
  0x74, 0x61, 0x6d, 0x70, 0x6d, 0x65, 0x73, 0x73, 0x61, 0x67, 0x65, 0x66, 0x72, 0x6f, 0x6d, 0x45, 0x78, 0x74, 0x65,
  0x6e, 0x73, 0x69, 0x6f, 0x6e, 0x72, 0x6f, 0x6c, 0x65, 0x74, 0x6f, 0x6f, 0x6c, 0x4e, 0x61, 0x6d, 0x65, 0x70, 0x72,
  0x6f, 0x76, 0x69, 0x64, 0x65, 0x72, 0x6d, 0x6f, 0x64, 0x65, 0x6c, 0x72, 0x65, 0x73, 0x70, 0x6f, 0x6e, 0x73, 0x65,
  0x4d, 0x6f, 0x64, 0x65, 0x6c, 0x75, 0x73, 0x61, 0x67, 0x65, 0x69, 0x6e, 0x70, 0x75, 0x74, 0x6f, 0x75, 0x74, 0x70,
  0x75, 0x74, 0x63, 0x61, 0x63, 0x68, 0x65, 0x52, 0x65, 0x61, 0x64, 0x63, 0x61, 0x63, 0x68, 0x65, 0x57, 0x72, 0x69,
  0x74, 0x65, 0x74, 0x6f, 0x74, 0x61, 0x6c, 0x54, 0x6f, 0x6b, 0x65, 0x6e, 0x73, 0x63, 0x6f, 0x73, 0x74, 0x74, 0x6f,
  0x74, 0x61, 0x6c,
]);
const KEY_AT = memory.data<u8>([0, 4, 6, 14, 23, 30, 43, 47, 55, 63, 68, 81, 86, 91, 97, 106, 116, 127, 131]);
const KEY_LEN = memory.data<u8>([4, 2, 8, 9, 7, 13, 4, 8, 8, 5, 13, 5, 5, 6, 9, 10, 11, 4, 5]);
const SPAN_START = memory.data(FIELDS * 4, 4);
const SPAN_END = memory.data(FIELDS * 4, 4);
const PLAIN = memory.data(FIELDS);
const STACK = memory.data(MAX_NESTING + 2);
const NUMBER_START = memory.data(7 * 4, 4);
const NUMBER_END = memory.data(7 * 4, 4);

/** Whether the last string skipped had an escape (its value is then decoded by `JSON.parse`). */
let sawEscape = false;
/** The field of the last key read (-1: not kept). */
let keyField: i32 = -1;

/**
 * An assistant message's usage object, read as the numbers its facts are made of (core/facts.ts): which usage
 * number the last key read names (-1: none), the depths of the open usage and cost objects (-1: not open), which
 * numbers were found (bit k: number k; bit COST: a cost object), and whether the usage is regular: one usage object,
 * whose kept keys are unescaped, each once, with a number (a cost object for `cost`). An irregular usage is given as
 * its JSON text, for `JSON.parse`.
 */
let numberKey: i32 = -1;
let usageDepth: i32 = -1;
let costDepth: i32 = -1;
let usageBits: i32 = 0;
let usageObjects: i32 = 0;
let usageRegular = true;
export function usageNumbers(): i32 {
  return usageBits;
}

/** The number named `key` (its text at [start, end)), or an irregular usage when it came before. */
function keepNumber(key: i32, start: i32, end: i32): void {
  if (usageBits & (1 << key)) usageRegular = false;
  usageBits |= 1 << key;
  store<i32>(NUMBER_START + (key << 2), start);
  store<i32>(NUMBER_END + (key << 2), end);
}

/** Where the spans are written, and where the line is put (after the static data, 16-aligned). */
export function spanStarts(): usize {
  return SPAN_START;
}
export function plains(): usize {
  return PLAIN;
}
export function dataStart(): usize {
  return (__heap_base + 15) & ~15;
}

function at(i: i32): i32 {
  return <i32>load<u8>(<usize>i);
}

/** The index after the string whose opening quote is before `i`, or -1 when it is not a valid JSON string. */
function skipString(i: i32, end: i32): i32 {
  sawEscape = false;
  const quote = i8x16.splat(0x22);
  const slash = i8x16.splat(0x5c);
  const control = i8x16.splat(0x20);
  while (true) {
    // 16 bytes at a time while none is a quote, a backslash or a control byte (unsigned: 0x80 and above pass).
    while (i + 16 <= end) {
      const v = v128.load(<usize>i);
      const m = v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, slash)), i8x16.lt_u(v, control));
      if (v128.any_true(m)) {
        i += ctz(i8x16.bitmask(m));
        break;
      }
      i += 16;
    }
    if (i >= end) return -1;
    const c = at(i);
    if (c == 0x22) return i + 1;
    if (c < 0x20) return -1;
    if (c == 0x5c) {
      sawEscape = true;
      const d = at(i + 1);
      if (d == 0x75) {
        for (let j = 2; j < 6; j++) {
          const h = at(i + j);
          if (!(<u32>(h - 0x30) < 10 || <u32>((h | 0x20) - 0x61) < 6)) return -1;
        }
        i += 6;
      } else if (d == 0x22 || d == 0x5c || d == 0x2f || d == 0x62 || d == 0x66 || d == 0x6e || d == 0x72 || d == 0x74) {
        i += 2;
      } else return -1;
      continue;
    }
    i++;
  }
  return -1;
}

function skipSpace(i: i32, end: i32): i32 {
  while (i < end) {
    const c = at(i);
    if (c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d) i++;
    else break;
  }
  return i;
}

function digitsFrom(i: i32, end: i32): i32 {
  while (i < end && <u32>(at(i) - 0x30) < 10) i++;
  return i;
}

/** The index after the number starting at `i`, or -1 when it is not a JSON number. */
function skipNumber(i: i32, end: i32): i32 {
  if (at(i) == 0x2d) i++;
  const first = at(i);
  if (first == 0x30) i++;
  else if (first >= 0x31 && first <= 0x39) i = digitsFrom(i + 1, end);
  else return -1;
  if (i < end && at(i) == 0x2e) {
    const from = i + 1;
    i = digitsFrom(from, end);
    if (i == from) return -1;
  }
  if (i < end && (at(i) == 0x65 || at(i) == 0x45)) {
    i++;
    if (at(i) == 0x2b || at(i) == 0x2d) i++;
    const from = i;
    i = digitsFrom(from, end);
    if (i == from) return -1;
  }
  return i;
}

/** Which of the `count` keys from `first` the bytes [start, end) spell, or -1. */
function keyIndex(start: i32, end: i32, first: i32, count: i32): i32 {
  const n = end - start;
  for (let k = first; k < first + count; k++) {
    if (<i32>load<u8>(KEY_LEN + k) != n) continue;
    if (memory.compare(KEY_BYTES + <usize>load<u8>(KEY_AT + k), <usize>start, n) == 0) return k;
  }
  return -1;
}

/**
 * The key whose opening quote is at `i`, and its colon: the index after the colon (its field in `keyField`), or -1
 * when the text is not a key, or the key is escaped where its name matters (it could spell a kept key).
 */
function readKey(i: i32, end: i32, depth: i32, messageDepth: i32): i32 {
  keyField = -1;
  numberKey = -1;
  if (at(i) != 0x22) return -1;
  const keyEnd = skipString(i + 1, end);
  if (keyEnd < 0) return -1;
  if (depth == 1) {
    if (sawEscape) return -1;
    keyField = keyIndex(i + 1, keyEnd - 1, 0, TOP_COUNT);
    if (keyField == MESSAGE) for (let f = TOP_COUNT; f < FIELDS; f++) store<i32>(SPAN_START + (f << 2), -1);
  } else if (depth == messageDepth) {
    if (sawEscape) return -1;
    keyField = keyIndex(i + 1, keyEnd - 1, TOP_COUNT, FIELDS - TOP_COUNT);
  } else if (depth == usageDepth || depth == costDepth) {
    // An escaped key here could spell a usage number: the usage is then parsed.
    if (sawEscape) usageRegular = false;
    else if (depth == usageDepth) {
      const k = keyIndex(i + 1, keyEnd - 1, NUMBER_KEYS, COST + 1);
      if (k >= 0) numberKey = k - NUMBER_KEYS;
    } else if (keyIndex(i + 1, keyEnd - 1, NUMBER_KEYS + TOTAL, 1) >= 0) numberKey = TOTAL;
  }
  const colon = skipSpace(keyEnd, end);
  if (at(colon) != 0x3a) return -1;
  return colon + 1;
}

/** The depth of the open container that is a kept message value, and its field (-1: none open). */
let valueDepth: i32 = -1;
let valueField: i32 = -1;

/** A container at `depth` closed before `i`: the end of a kept message value's span. */
function close(depth: i32, i: i32): void {
  if (depth == costDepth) costDepth = -1;
  if (depth == usageDepth) usageDepth = -1;
  if (depth != valueDepth) return;
  store<i32>(SPAN_END + (valueField << 2), i);
  store<u8>(PLAIN + valueField, 0);
  valueDepth = -1;
}

/**
 * Scan the `len` bytes at `start` (16 bytes after them must be memory, of any content): 0 when the line must be
 * parsed in full, else the length + 1 of the values written at `out` (`collect`; room for `len` + 16 bytes, apart
 * from the line).
 */
export function scan(start: i32, len: i32, out: i32): i32 {
  const end = start + len;
  for (let f = 0; f < FIELDS; f++) store<i32>(SPAN_START + (f << 2), -1);
  valueDepth = -1;
  usageDepth = -1;
  costDepth = -1;
  usageBits = 0;
  usageObjects = 0;
  usageRegular = true;
  let i = skipSpace(start, end);
  if (at(i) != 0x7b) return 0;
  let depth = 0;
  let field = -1;
  /** The usage number the next value is (-1: none). */
  let number = -1;
  let messageDepth = -1;
  let expectValue = true;
  while (true) {
    i = skipSpace(i, end);
    if (i >= end) return 0;
    const c = at(i);
    if (expectValue) {
      const valueStart = i;
      if (c == 0x7b || c == 0x5b) {
        if (depth >= MAX_NESTING) return 0;
        depth++;
        store<u8>(STACK + depth, c == 0x7b ? 1 : 2);
        if (field >= 0) {
          // The message object, or a message value other than the role (its span ends where it closes). Anything
          // else, a container where a string is expected or a message that is not an object, is parsed in full.
          if (field == MESSAGE && c == 0x7b) messageDepth = depth;
          else if (field > ROLE) {
            valueDepth = depth;
            valueField = field;
            if (field == USAGE && c == 0x7b) {
              usageDepth = depth;
              usageBits = 0;
              if (++usageObjects > 1) usageRegular = false;
            }
          } else return 0;
          store<i32>(SPAN_START + (field << 2), valueStart);
          field = -1;
        }
        if (number >= 0) {
          // The cost object, once; any other container where a usage number is expected makes the usage irregular.
          if (number == COST && c == 0x7b) {
            if (usageBits & (1 << COST)) usageRegular = false;
            usageBits |= 1 << COST;
            costDepth = depth;
          } else usageRegular = false;
          number = -1;
        }
        i = skipSpace(i + 1, end);
        if (at(i) == (c == 0x7b ? 0x7d : 0x5d)) {
          i++;
          close(depth, i);
          if (depth == messageDepth) messageDepth = -1;
          depth--;
          expectValue = false;
          if (depth == 0) break;
          continue;
        }
        if (c == 0x7b) {
          i = readKey(i, end, depth, messageDepth);
          if (i < 0) return 0;
          field = keyField;
          number = numberKey;
        }
        continue;
      }
      if (depth == 0) return 0;
      if (c == 0x22) {
        i = skipString(i + 1, end);
        if (i < 0) return 0;
      } else if (c == 0x74 && at(i + 1) == 0x72 && at(i + 2) == 0x75 && at(i + 3) == 0x65) i += 4;
      else if (c == 0x66 && at(i + 1) == 0x61 && at(i + 2) == 0x6c && at(i + 3) == 0x73 && at(i + 4) == 0x65) i += 5;
      else if (c == 0x6e && at(i + 1) == 0x75 && at(i + 2) == 0x6c && at(i + 3) == 0x6c) i += 4;
      else if (c == 0x2d || <u32>(c - 0x30) < 10) {
        i = skipNumber(i, end);
        if (i < 0) return 0;
      } else return 0;
      if (number >= 0) {
        if (number != COST && (c == 0x2d || <u32>(c - 0x30) < 10)) keepNumber(number, valueStart, i);
        else usageRegular = false;
        number = -1;
      }
      if (field >= 0) {
        if (field == MESSAGE) return 0;
        const plain = c == 0x22 && !sawEscape;
        store<u8>(PLAIN + field, plain ? 1 : 0);
        store<i32>(SPAN_START + (field << 2), valueStart);
        store<i32>(SPAN_END + (field << 2), i);
        // A role that is not a plain string (escaped, it could spell "assistant") is left to JSON.parse.
        if (field == ROLE && !plain) return 0;
        field = -1;
      }
      expectValue = false;
      continue;
    }
    if (c == 0x2c) {
      i++;
      if (load<u8>(STACK + depth) == 1) {
        i = readKey(skipSpace(i, end), end, depth, messageDepth);
        if (i < 0) return 0;
        field = keyField;
        number = numberKey;
      }
      expectValue = true;
      continue;
    }
    const open = <i32>load<u8>(STACK + depth);
    if ((c == 0x7d && open == 1) || (c == 0x5d && open == 2)) {
      i++;
      close(depth, i);
      if (depth == messageDepth) messageDepth = -1;
      depth--;
      if (depth == 0) break;
      continue;
    }
    return 0;
  }
  if (skipSpace(i, end) != end) return 0;
  return collect(<usize>out);
}

/** A regular usage's numbers, in key order, each followed by a zero byte (`usageNumbers()` tells which). */
function collectNumbers(o: usize): usize {
  store<u8>(PLAIN + USAGE, 2);
  for (let k = 0; k <= TOTAL; k++) {
    if (k == COST || !(usageBits & (1 << k))) continue;
    const from = load<i32>(NUMBER_START + (k << 2));
    const length = <usize>(load<i32>(NUMBER_END + (k << 2)) - from);
    memory.copy(o, <usize>from, length);
    o += length;
    store<u8>(o++, 0);
  }
  return o;
}

/**
 * The kept values, in field order, each followed by a zero byte (no value holds one: JSON allows no raw control
 * byte), so that the caller decodes them all at once: a plain string without its quotes, any other value as its
 * JSON text, a regular usage as its numbers (`collectNumbers`). The message (read by its fields) and
 * `fromExtension` (only its presence counts) are left out. They go
 * at `out`. Returns their length + 1.
 */
function collect(out: usize): i32 {
  let o = out;
  for (let f = 0; f < FIELDS; f++) {
    const from = load<i32>(SPAN_START + (f << 2));
    if (from < 0 || f == MESSAGE || f == FROM_EXTENSION) continue;
    if (f == USAGE && usageRegular && at(from) == 0x7b) {
      o = collectNumbers(o);
      continue;
    }
    const plain = <i32>load<u8>(PLAIN + f);
    const to = load<i32>(SPAN_END + (f << 2)) - plain;
    memory.copy(o, <usize>(from + plain), <usize>(to - from - plain));
    o += <usize>(to - from - plain);
    store<u8>(o++, 0);
  }
  return <i32>(o - out) + 1;
}
