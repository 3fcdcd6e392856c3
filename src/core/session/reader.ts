/**
 * The session reader: lines of a Pi or OMP session file, fed whole or in chunks, into the session model.
 *
 * Reading rules follow what the agents do (docs/session-format.md, with its traps T1–T27), with the fail-closed
 * header rules of our spec. Files are never rewritten: v1/v2 migrations happen in memory only.
 */
import type { Diagnostic, Rejection } from "../diagnostics.js";
import { isPlainObject } from "../jsonShape.js";
import { scanEnvelope } from "../envelope.js";
import { decodeUtf8, parseLine } from "../jsonl.js";
import {
  headerEnvelopeSchema,
  type SessionHeader,
  type TitleSlot,
  titleSlotSchema,
  validateHeader,
} from "../schema.js";
import { type Entry, migrateHook } from "./entry.js";
import type { ChunkOrigin, ParseOptions, ParseResult } from "./model.js";
import { checkEnvelope, makeEntry, missingType, type RawRecord, validateOne } from "./records.js";
import { buildIndex, extendIndex, type Index, sessionOf } from "./treeIndex.js";

/** Records up to this many bytes keep their parsed object; longer ones are parsed again from their bytes when read. */
const RETAIN_BYTES = 512;
/**
 * Records the tree's index reads while it is built (names, labels, titles, compactions, model changes) are always held
 * parsed, whatever their size: `result()` then never reads a body back, so it cannot fail when the file has changed.
 */
const ALWAYS_HELD = new Set(["compaction", "label", "session_info", "title_change", "model_change"]);

const encoder = new TextEncoder();

/** Parse one session file's content. Never throws for any input. */
export function parseSession(file: string, content: string | Uint8Array, options: ParseOptions = {}): ParseResult {
  const bytes = typeof content === "string" ? encoder.encode(content) : content;
  const reader = new SessionReader(file, options);
  const fed = reader.feedChunk(bytes);
  return reader.result(fed.endsWithNewline);
}

/**
 * The incremental form of `parseSession`: chunks of whole lines are fed as they arrive (a live session grows by
 * appends), each line is JSON-parsed, validated and turned into an entry once; `result()` assembles the tree from the
 * entries held so far, without parsing anything again. Feeding a file in chunks gives the same result as parsing it
 * whole. Without an origin the chunks are held (large records are read again from them by byte offset), so they
 * must not be reused; with one (`ChunkOrigin`), large records are read again from the file and no chunk is held.
 */
export class SessionReader {
  private readonly validate: boolean;
  private readonly retainBytes: number;
  private readonly scan: boolean;
  private header: SessionHeader | undefined;
  private headerLine = 0;
  private version = 1;
  private titleSlot: TitleSlot | null = null;
  private sawTitleRecord = false;
  private truncatedTail = false;
  private rejection: Rejection | null = null;
  private lastLine = 0;
  /** The model in effect, in file order (the last model change or assistant reply): a compaction's summary model. */
  private lastModel: { provider: string; model: string } | null = null;
  private sawLine = false;
  private readonly lineDiagnostics: Diagnostic[] = [];
  private readonly entries: Entry[] = [];
  /** Tree indexes of the entries so far, extended on appends. */
  private index: Index | null = null;
  // v1 (docs/session-format.md#t6): ids are synthesized and parents chain in file order; pi indexes
  // firstKeptEntryIndex into the parsed records with the header at index 0.
  private v1Prev: string | null = null;
  /** Where the chunk being fed lies in its file, when large bodies are read back from the file. */
  private origin: ChunkOrigin | null = null;
  private readonly v1RecordIds: (string | null)[] = [null];
  /** Streaming: each entry goes here and is not kept (`ParseOptions.onEntry`). */
  private readonly onEntry: ((entry: Entry, header: SessionHeader) => void) | undefined;

  constructor(
    readonly file: string,
    options: ParseOptions = {},
  ) {
    this.validate = options.validate ?? true;
    this.retainBytes = options.retainBytes ?? RETAIN_BYTES;
    this.scan = options.scan === true && !this.validate;
    this.onEntry = options.onEntry;
  }

  /** An entry read: kept for the tree, or given to the stream. */
  private add(entry: Entry): void {
    // Entries come after the header (a record before it rejects the file).
    if (this.onEntry) this.onEntry(entry, this.header!);
    else this.entries.push(entry);
  }

  /** The last physical line number fed so far. */
  get linesFed(): number {
    return this.lastLine;
  }

  /** Entries so far, in file order (shared, not copied). */
  get entryCount(): number {
    return this.entries.length;
  }

  /**
   * Feed a chunk of UTF-8 bytes holding whole physical lines, the first numbered `firstLine` (only a file's first
   * chunk can carry a BOM). The last line may lack its newline only at the end of the file. Blank lines are not
   * records but keep their numbers; CRLF endings are accepted.
   */
  feedChunk(bytes: Uint8Array, firstLine = 1, origin?: ChunkOrigin): { lines: number; endsWithNewline: boolean } {
    this.origin = origin ?? null;
    const n = bytes.length;
    let start = 0;
    if (firstLine === 1 && n >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
      this.lineDiagnostics.push({
        line: 1,
        severity: "warning",
        code: "bom",
        message: "file starts with a UTF-8 byte order mark; the agents do not write one",
      });
      start = 3;
    }
    const endsWithNewline = start === n || bytes[n - 1] === 10;
    let line = firstLine - 1;
    while (start < n) {
      let end = bytes.indexOf(10, start);
      const unterminated = end < 0;
      if (unterminated) end = n;
      line++;
      let stop = end;
      if (stop > start && bytes[stop - 1] === 13) stop--;
      if (bytes[start] === 123 /* { */ || !isBlank(bytes, start, stop)) {
        this.lastLine = line;
        this.sawLine = true;
        if (!this.rejection) this.feedLine(line, bytes, start, stop, unterminated);
      }
      start = end + 1;
    }
    return { lines: line - firstLine + 1, endsWithNewline };
  }

  private reject(line: number, code: Rejection["code"], message: string): void {
    this.rejection = { line, code, message };
  }

  private feedLine(line: number, bytes: Uint8Array, start: number, end: number, unterminated: boolean): void {
    if (this.scan && this.header && this.version >= 2 && end - start > this.retainBytes) {
      const envelope = scanEnvelope(bytes, start, end);
      if (envelope && !wholeRecordNeeded(envelope)) return this.feedRecord(line, envelope, bytes, start, end);
    }
    const diagnostics = this.lineDiagnostics;
    const lineText = decodeUtf8(bytes.subarray(start, end));
    const parsed = parseLine(lineText);
    if (!parsed.ok && parsed.tooDeep) {
      diagnostics.push({ line, severity: "error", code: "too-deep", message: `${parsed.error}; line skipped` });
      return;
    }
    if (!parsed.ok) {
      if (unterminated) {
        this.truncatedTail = true;
        diagnostics.push({
          line,
          severity: "warning",
          code: "truncated-last-line",
          message:
            `last line is incomplete (${lineText.length} characters, no newline): ` +
            "the agent is writing or crashed; skipped",
        });
      } else {
        diagnostics.push({
          line,
          severity: "error",
          code: "malformed-json",
          message: `not valid JSON (${parsed.error}); line skipped`,
        });
      }
      return;
    }
    this.feedRecord(line, parsed.value, bytes, start, end);
  }

  /** A line that is valid JSON (`value`: parsed, or its envelope when scanned) at bytes [start, end). */
  private feedRecord(line: number, value: unknown, bytes: Uint8Array, start: number, end: number): void {
    const diagnostics = this.lineDiagnostics;
    if (!isPlainObject(value)) {
      if (!this.header)
        return this.reject(line, "record-before-header", `line ${line} is ${describe(value)}, not a session header`);
      diagnostics.push({
        line,
        severity: "error",
        code: "not-an-object",
        message: `record is ${describe(value)}, not an object; line skipped`,
      });
      return;
    }
    if (!this.header) {
      if (value.type === "title") {
        // docs/session-format.md#t1: OMP's title slot precedes the header. Only the first one counts.
        if (!this.sawTitleRecord) {
          const slot = titleSlotSchema.safeParse(value);
          if (slot.success) this.titleSlot = slot.data;
          else
            diagnostics.push({
              line,
              severity: "warning",
              code: "schema",
              message: "title slot does not match the OMP slot shape; ignored",
            });
        }
        this.sawTitleRecord = true;
        return;
      }
      if (value.type !== "session") {
        return this.reject(
          line,
          "record-before-header",
          `a ${JSON.stringify(String(value.type ?? "untyped"))} record comes before the session header`,
        );
      }
      if (!headerEnvelopeSchema.safeParse(value).success) {
        return this.reject(line, "invalid-header", "session header has no string id");
      }
      this.header = value as SessionHeader;
      this.headerLine = line;
      this.version = typeof value.version === "number" ? value.version : 1;
      if (this.validate) {
        for (const problem of validateHeader(value)) {
          diagnostics.push({ line, severity: "warning", code: "schema", message: `header: ${problem}` });
        }
      }
      if (this.version > 3) {
        diagnostics.push({
          line,
          severity: "warning",
          code: "unknown-version",
          message: `session version ${this.version} is newer than 3; read as version 3`,
        });
      }
      return;
    }
    if (value.type === "session") {
      return this.reject(
        line,
        "duplicate-header",
        `a second session header (first on line ${this.headerLine}); the file is ambiguous`,
      );
    }
    if (value.type === "title") {
      diagnostics.push({
        line,
        severity: "warning",
        code: "stray-title",
        message: "title record after the header is not an entry; ignored",
      });
      return;
    }
    if (this.version < 2) {
      const entry = this.v1Entry({ line, value });
      if (!entry) return;
      this.noteModel(entry, entry.data);
      this.add(entry);
      if (this.validate) validateOne(entry, entry.data, diagnostics);
      return;
    }
    const checked = checkEnvelope({ line, value }, diagnostics);
    if (!checked) return;
    let data = value;
    const hook =
      this.version < 3 &&
      value.type === "message" &&
      isPlainObject(value.message) &&
      value.message.role === "hookMessage";
    // v2 → v3: the hookMessage role was renamed custom (pi migrates this in memory and on disk; we only in memory).
    if (hook) data = migrateHook(value);
    const origin = this.origin;
    const entry =
      end - start <= this.retainBytes || ALWAYS_HELD.has(value.type as string)
        ? makeEntry(data, checked.id, checked.parentId, line, data)
        : origin
          ? makeEntry(data, checked.id, checked.parentId, line, origin.source, origin.at + start, origin.at + end, hook)
          : makeEntry(data, checked.id, checked.parentId, line, bytes, start, end, hook);
    this.noteModel(entry, data);
    this.add(entry);
    if (this.validate) validateOne(entry, data, diagnostics);
  }

  /**
   * Follow the model in effect, and name it on a compaction's summary usage: pi summarizes with the session's current
   * model, which the compaction entry does not record. The file is appended in time order, so its last model change
   * or assistant reply before the compaction is that model.
   */
  private noteModel(entry: Entry, data: Record<string, unknown>): void {
    if (entry.type === "model_change" && typeof data.modelId === "string")
      this.lastModel = { provider: typeof data.provider === "string" ? data.provider : "", model: data.modelId };
    else if (entry.role === "assistant" && typeof entry.model === "string")
      this.lastModel = { provider: typeof entry.provider === "string" ? entry.provider : "", model: entry.model };
    else if (entry.type === "compaction" && entry.usage && this.lastModel) {
      for (const u of Array.isArray(entry.usage) ? entry.usage : [entry.usage])
        if (u.source === "compaction_summary") Object.assign(u, this.lastModel);
    } else if (entry.type === "branch_summary" && entry.usage && this.lastModel) {
      for (const u of Array.isArray(entry.usage) ? entry.usage : [entry.usage]) Object.assign(u, this.lastModel);
    }
  }

  private v1Entry({ line, value }: RawRecord): Entry | null {
    const diagnostics = this.lineDiagnostics;
    if (typeof value.type !== "string") {
      diagnostics.push(missingType(line));
      this.v1RecordIds.push(null);
      return null;
    }
    const id = `L${line}`;
    const prev = this.v1Prev;
    const data: Record<string, unknown> = { ...value, id, parentId: prev };
    if (data.type === "message" && isPlainObject(data.message) && data.message.role === "hookMessage") {
      data.message = { ...data.message, role: "custom" };
    }
    if (data.type === "compaction" && typeof value.firstKeptEntryIndex === "number") {
      const index = value.firstKeptEntryIndex;
      const recordIds = this.v1RecordIds;
      // Like pi's migration: the target must be a non-header record already given an id.
      const target = index >= 1 && index < recordIds.length ? recordIds[index] : null;
      delete data.firstKeptEntryIndex;
      if (target) data.firstKeptEntryId = target;
      else {
        diagnostics.push({
          line,
          severity: "warning",
          code: "dangling-first-kept",
          message: `firstKeptEntryIndex ${index} does not name an earlier entry (header = index 0); nothing is kept`,
        });
      }
    }
    this.v1RecordIds.push(id);
    this.v1Prev = id;
    return makeEntry(data, id, prev, line, data);
  }

  /** The file's rejection (a bad or missing header) as a failed result, or null when it has a header. */
  private failure(): Extract<ParseResult, { ok: false }> | null {
    const diagnostics = [...this.lineDiagnostics];
    const file = this.file;
    if (this.rejection) return { ok: false, file, rejection: this.rejection, diagnostics };
    if (this.header) return null;
    if (!this.sawLine)
      return { ok: false, file, rejection: { line: 0, code: "empty-file", message: "file is empty" }, diagnostics };
    const message =
      this.titleSlot || this.sawTitleRecord
        ? "title slot is not followed by a session header"
        : "no session header in the file";
    return { ok: false, file, rejection: { line: this.lastLine, code: "no-header", message }, diagnostics };
  }

  /** What a streaming reader (`onEntry`) knows besides its entries: the header, or why the file is rejected. */
  streamed(): StreamedFile | Extract<ParseResult, { ok: false }> {
    const failed = this.failure();
    if (failed) return failed;
    return {
      ok: true,
      file: this.file,
      header: this.header!,
      version: this.version,
      titleSlot: this.titleSlot,
      diagnostics: [...this.lineDiagnostics],
      truncatedTail: this.truncatedTail,
    };
  }

  /** Assemble the session from everything fed so far. `endsWithNewline`: whether the content fed ends a line. */
  result(endsWithNewline = true): ParseResult {
    const failed = this.failure();
    if (failed) return failed;
    const diagnostics = [...this.lineDiagnostics];
    const file = this.file;
    const entries = [...this.entries];
    if (!this.index || !extendIndex(this.index, entries.slice(this.index.count))) {
      // Assigned, never deleted: a deleted field turns every entry into a slow, 800-byte dictionary object.
      for (const e of entries) e.shadowed = false;
      this.index = buildIndex(entries);
    }
    // One order for every reader, however the lines arrived: by line (stable).
    const all = [...diagnostics, ...this.index.diagnostics].sort((a, b) => a.line - b.line);
    const session = sessionOf(
      file,
      this.header!,
      this.headerLine,
      this.version,
      this.titleSlot,
      entries,
      this.index,
      all,
    );
    session.endsWithNewline = endsWithNewline;
    session.truncatedTail = this.truncatedTail;
    return { ok: true, session };
  }
}

/** A streamed file's header facts and its line diagnostics (the entries went to `onEntry`). */
export interface StreamedFile {
  ok: true;
  file: string;
  header: SessionHeader;
  version: number;
  titleSlot: TitleSlot | null;
  diagnostics: Diagnostic[];
  truncatedTail: boolean;
}

/**
 * Scanned records whose whole record the reader needs: the kinds the tree's index reads, OMP's `model_usage` and
 * `task` results (their usage is in their body), and records that are no entry (a header, a title slot). An
 * assistant message's usage facts are in its envelope.
 */
function wholeRecordNeeded(envelope: Record<string, unknown>): boolean {
  const type = envelope.type;
  if (typeof type !== "string" || ALWAYS_HELD.has(type)) return true;
  if (type === "model_usage" || type === "usage" || type === "branch_summary") return true;
  if (type === "session" || type === "title") return true;
  const m = envelope.message;
  return isPlainObject(m) && m.role === "toolResult" && m.toolName === "task";
}

function isBlank(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = bytes[i];
    if (c !== 32 && c !== 9 && c !== 13 && c !== 10) return false;
  }
  return true;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}
