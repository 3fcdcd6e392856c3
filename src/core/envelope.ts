/**
 * The envelope of a large record found by scanning its bytes, for readers that need no body (usage reports): the
 * scan checks the whole line against the JSON grammar, exactly as `JSON.parse` would accept it, and decodes only the
 * few values the reader keeps. It builds no string of the record's body, where `JSON.parse` builds all of them (most
 * of a session's bytes are tool results, and the text and tool calls of assistant messages, which a usage report never
 * reads). The scan itself is WebAssembly with SIMD (wasm/envelopeScan.ts, compiled into envelopeScan.generated.ts):
 * a JavaScript scan could not be much faster than the parse it replaces (bench/RESULTS.md, issue #21). Pure: no Node
 * API.
 *
 * Sound, not complete: when the scan answers, the line is valid JSON and the values it gives are those `JSON.parse`
 * gives (the last of duplicate keys wins). When it cannot decide cheaply (an escaped key near the top, a container
 * where a string is expected, a `message` that is not an object, nesting past `MAX_NESTING`, a line over
 * `MAX_SCANNED_BYTES`), where WebAssembly is not available, or when the line is not valid, it answers null and the
 * caller parses the line in full, which reports any error as always.
 */
import { ENVELOPE_SCAN_WASM } from "./envelopeScan.generated.js";
import { decodeUtf8 } from "./jsonl.js";

/** The record keys kept, and the keys kept of its `message` object. */
const TOP_KEYS = ["type", "id", "parentId", "timestamp", "message", "fromExtension"] as const;
/** An assistant message's usage facts come from these (core/facts.ts usageFacts); values of any kind but the role. */
const MESSAGE_KEYS = ["role", "toolName", "provider", "model", "responseModel", "usage"] as const;
const MESSAGE = TOP_KEYS.indexOf("message");
const FROM_EXTENSION = TOP_KEYS.indexOf("fromExtension");
/**
 * A regular usage object comes as the numbers its facts are made of (core/facts.ts): these, in this order (bits 0 to
 * 4), then whether it has a cost object (bit 5), and that object's `total` (bit 6). Any other usage comes as its JSON.
 */
const REGULAR_USAGE = 2;
const USAGE_NUMBERS = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"] as const;
const COST_OBJECT = 1 << 5;
const COST_TOTAL = 1 << 6;
/** Fields are numbered: top keys first, then message keys. */
const FIELDS = TOP_KEYS.length + MESSAGE_KEYS.length;
/**
 * Longer lines are parsed in full: the scan's memory grows to the longest line it is given and is never given back,
 * so it is bounded (the agents' lines are far shorter; a line this long is an image or a file, parsed rarely).
 */
const MAX_SCANNED_BYTES = 8 * 1024 * 1024;

/** What the scan uses of WebAssembly (typed here: the project's libraries do not declare it). */
interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (binary: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/**
 * The compiled scan (wasm/envelopeScan.ts) and its memory: from `data` on, the chunk a reader reads a file into
 * (`scanChunk`; `chunk` bytes, 0 until one is asked for), then the work area: a line copied there to be scanned, and
 * the values the scan writes after it.
 */
interface Scanner {
  memory: WasmMemory;
  /** 0: parse the line in full; else the length + 1 of the values written at `out`. */
  scan: (start: number, len: number, out: number) => number;
  /** Which numbers of a regular usage were written (wasm/envelopeScan.ts `collectNumbers`). */
  usageNumbers: () => number;
  data: number;
  chunk: number;
  /** Where the spans' starts and the plain flags are written (byte offsets in `memory`). */
  starts: number;
  plains: number;
  bytes: Uint8Array;
  words: Int32Array;
}

/** Undefined until the first scan; null where WebAssembly (with SIMD) is not available: every line is parsed. */
let scanner: Scanner | null | undefined;

function loadScanner(): Scanner | null {
  try {
    const binary = Uint8Array.from(atob(ENVELOPE_SCAN_WASM), (c) => c.charCodeAt(0));
    const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    if (!wasm) return null;
    const e = new wasm.Instance(new wasm.Module(binary), {}).exports;
    const memory = e.memory as WasmMemory;
    const at = (name: string) => (e[name] as () => number)();
    return {
      memory,
      scan: e.scan as (start: number, len: number, out: number) => number,
      usageNumbers: e.usageNumbers as () => number,
      data: at("dataStart"),
      chunk: 0,
      starts: at("spanStarts"),
      plains: at("plains"),
      bytes: new Uint8Array(memory.buffer),
      words: new Int32Array(memory.buffer),
    };
  } catch {
    return null;
  }
}

/** Whether lines can be scanned here (false: the reader parses every line, with the same results). */
export function scannerAvailable(): boolean {
  if (scanner === undefined) scanner = loadScanner();
  return scanner !== null;
}

/** Where the work area starts: after the chunk (and the 16 bytes a read past a line at its end may touch). */
const workArea = (s: Scanner) => s.data + s.chunk + (s.chunk ? 16 : 0);

/**
 * Room in the work area for a line of `len` bytes, the 16 bytes a read just past it may touch, and the values the
 * scan writes after it (at most the line again, a zero byte per field, and alignment); false when the memory could
 * not grow (the line is then parsed). Growing the memory detaches every view of it: a reader's chunk must never see
 * that, so a chunk is handed out with room for the longest line.
 */
function reserve(s: Scanner, len: number): boolean {
  const need = workArea(s) + 2 * len + 64;
  if (need <= s.bytes.length) return true;
  try {
    s.memory.grow(Math.ceil((need - s.bytes.length) / 65536));
  } catch {
    return false;
  }
  s.bytes = new Uint8Array(s.memory.buffer);
  s.words = new Int32Array(s.memory.buffer);
  return true;
}

/** Whether a reader holds the chunk (`scanChunk` until `releaseScanChunk`). */
let chunkHeld = false;

/**
 * A buffer of `size` bytes in the scan's own memory for a reader to read a file's chunks into: its lines are then
 * scanned where they are, not copied. The same buffer each time, so one reader at a time holds it, until
 * `releaseScanChunk`; nothing may keep it (the reader keeps file offsets, not bytes: core/bodySource.ts). Null (the
 * reader then uses a buffer of its own) where there is no scan, while another reader holds it, or when the memory
 * cannot grow.
 */
export function scanChunk(size: number): Uint8Array | null {
  if (chunkHeld || !scannerAvailable()) return null;
  const s = scanner!;
  if (size > s.chunk) {
    const before = s.chunk;
    s.chunk = Math.ceil(size / 16) * 16;
    if (!reserve(s, MAX_SCANNED_BYTES)) {
      s.chunk = before;
      return null;
    }
  }
  chunkHeld = true;
  return new Uint8Array(s.memory.buffer, s.data, size);
}

export function releaseScanChunk(): void {
  chunkHeld = false;
}

/**
 * The record on the line bytes [start, end) reduced to its envelope: `type`, `id`, `parentId`, `timestamp`, whether
 * it has `fromExtension`, and of its `message` object `role`, `toolName`, and what an assistant message's usage
 * facts are made of: `provider`, `model`, `responseModel` and `usage` (each only when present; of a usage object,
 * only what its facts read: its numbers and its cost's total). Null when the line must be parsed in full (see the
 * module comment).
 */
export function scanEnvelope(b: Uint8Array, start: number, end: number): Record<string, unknown> | null {
  const len = end - start;
  if (len > MAX_SCANNED_BYTES || !scannerAvailable()) return null;
  const s = scanner!;
  let at: number;
  let out: number;
  if (b.buffer === s.memory.buffer && b.byteOffset + end <= s.data + s.chunk) {
    // A line of the reader's chunk (`scanChunk`): scanned where it is.
    at = b.byteOffset + start;
    out = workArea(s);
  } else {
    if (!reserve(s, len)) return null;
    at = workArea(s);
    // A plain Uint8Array over the line: a Node Buffer's own `subarray` is several times slower.
    s.bytes.set(new Uint8Array(b.buffer, b.byteOffset + start, len), at);
    out = (at + len + 31) & ~15;
  }
  const answer = s.scan(at, len, out);
  if (answer === 0) return null;
  // The kept values, decoded at once and cut at their zero bytes, one per present field in field order
  // (wasm/envelopeScan.ts `collect`).
  const text = decodeUtf8(s.bytes.subarray(out, out + answer - 1));
  const starts = s.starts >> 2;
  const record: Record<string, unknown> = {};
  let message: Record<string, unknown> = record;
  let from = 0;
  for (let f = 0; f < FIELDS; f++) {
    if (s.words[starts + f]! < 0) continue;
    if (f === MESSAGE) record.message = message = {};
    else if (f === FROM_EXTENSION) record.fromExtension = true;
    else {
      const kind = s.bytes[s.plains + f];
      let value: unknown;
      if (kind === REGULAR_USAGE) {
        // What usageFacts reads of it: the numbers, and the cost's total (`Number` reads a JSON number exactly as
        // `JSON.parse` does).
        const bits = s.usageNumbers();
        const usage: Record<string, unknown> = {};
        for (let k = 0; k < USAGE_NUMBERS.length; k++) {
          if (!(bits & (1 << k))) continue;
          const to = text.indexOf("\0", from);
          usage[USAGE_NUMBERS[k]!] = Number(text.slice(from, to));
          from = to + 1;
        }
        if (bits & COST_OBJECT) {
          let total: Record<string, unknown> = {};
          if (bits & COST_TOTAL) {
            const to = text.indexOf("\0", from);
            total = { total: Number(text.slice(from, to)) };
            from = to + 1;
          }
          usage.cost = total;
        }
        value = usage;
      } else {
        const to = text.indexOf("\0", from);
        const raw = text.slice(from, to);
        from = to + 1;
        value = kind ? raw : (JSON.parse(raw) as unknown);
      }
      if (f < MESSAGE) record[TOP_KEYS[f]!] = value;
      else message[MESSAGE_KEYS[f - TOP_KEYS.length]!] = value;
    }
  }
  return record;
}
