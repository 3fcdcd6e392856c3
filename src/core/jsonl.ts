/**
 * Physical-line JSONL scanning. Keeps 1-based line numbers and tolerates what agents really leave on
 * disk: CRLF endings, blank lines, a BOM, a malformed middle line, a half-written last line, and very
 * long lines (multi-MB tool outputs). Pure: no Node API, works on a string or on UTF-8 bytes.
 */

export interface JsonlLine {
  /** 1-based physical line number. */
  line: number;
  /** The line's text without its terminator ("\n" or "\r\n"). */
  text: string;
  /** True for the final line when the file does not end with "\n" (agent mid-write, or a crash). */
  unterminated: boolean;
}

export interface ScanResult {
  lines: JsonlLine[];
  hadBom: boolean;
  /** True when the content is empty or ends with "\n". */
  endsWithNewline: boolean;
}

// ignoreBOM keeps a leading BOM in the text so the reader can report it.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Decode UTF-8 like Node's `readFileSync(path, "utf8")`: invalid sequences become U+FFFD. */
export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * Split into physical lines. Whitespace-only lines are dropped (they are not records) but keep numbering.
 * `firstLine` numbers a chunk that continues a file (appended bytes); only a file's first chunk can carry a BOM.
 */
export function scanLines(content: string, firstLine = 1): ScanResult {
  let text = content;
  let hadBom = false;
  if (firstLine === 1 && text.charCodeAt(0) === 0xfeff) {
    text = text.slice(1);
    hadBom = true;
  }
  const lines: JsonlLine[] = [];
  const endsWithNewline = text.length === 0 || text.endsWith("\n");
  let start = 0;
  let lineNo = firstLine - 1;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    const unterminated = end === -1;
    if (unterminated) end = text.length;
    lineNo++;
    let lineEnd = end;
    if (lineEnd > start && text.charCodeAt(lineEnd - 1) === 13 /* \r */) lineEnd--;
    const lineText = text.slice(start, lineEnd);
    if (!isBlank(lineText)) lines.push({ line: lineNo, text: lineText, unterminated });
    start = end + 1;
  }
  return { lines, hadBom, endsWithNewline };
}

function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13 && c !== 10) return false;
  }
  return true;
}

export type ParsedLine = { ok: true; value: unknown } | { ok: false; error: string };

export function parseLine(text: string): ParsedLine {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
