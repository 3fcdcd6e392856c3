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

export type ParsedLine = { ok: true; value: unknown } | { ok: false; error: string };

export function parseLine(text: string): ParsedLine {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
