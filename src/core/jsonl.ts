/**
 * Decoding and parsing one JSONL line. Lines are split on bytes by `SessionReader.feedChunk`, which handles CRLF,
 * blank lines, a BOM and a half-written last line. Pure: no Node API.
 */

// ignoreBOM keeps a leading BOM in the text so the reader can report it.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Decode UTF-8 like Node's `readFileSync(path, "utf8")`: invalid sequences become U+FFFD. */
export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

export type ParsedLine = { ok: true; value: unknown } | { ok: false; error: string; tooDeep?: true };

/**
 * Records nested deeper than this are not parsed. The agents write a few dozen levels at most; a deeper line would
 * overflow the stack of whatever walks it later (serializing, validating, estimating), and a long run of `[` costs
 * the JSON parser far more time and memory than its length.
 */
export const MAX_NESTING = 1000;

/**
 * Whether `text` opens more than `max` levels of arrays and objects at once. Cheap for ordinary lines: a valid line
 * this deep is longer than `2 * max`, and holds more than `max` brackets (counted natively) before the exact,
 * string-aware scan runs.
 */
export function nestingExceeds(text: string, max = MAX_NESTING): boolean {
  if (text.length <= 2 * max) return false;
  let opens = 0;
  for (const ch of ["[", "{"]) {
    for (let at = text.indexOf(ch); at >= 0 && opens <= max; at = text.indexOf(ch, at + 1)) opens++;
  }
  if (opens <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}

/** `JSON.parse` within the nesting bound: a deeper text is an error, never parsed. */
export function parseLine(text: string): ParsedLine {
  if (nestingExceeds(text))
    return { ok: false, error: `nested deeper than ${MAX_NESTING} levels; not parsed`, tooDeep: true };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
