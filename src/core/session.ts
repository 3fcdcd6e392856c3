/**
 * The session reader and model: one parsed Pi or OMP session file as a tree of entries.
 *
 * Reading rules follow what the agents do (docs/session-format.md, with its traps T1–T27), with
 * the fail-closed header rules of our spec. Files are never rewritten: v1/v2 migrations happen in
 * memory only.
 */
import { type BodySource, SessionChangedError } from "./bodySource.js";
import type { Diagnostic, Rejection } from "./diagnostics.js";
import { isPlainObject, type UsageFacts, usageFacts } from "./facts.js";
import { ancestorIndex, isAncestor } from "./ancestry.js";
import { scanEnvelope } from "./envelope.js";
import { decodeUtf8, parseLine } from "./jsonl.js";
import { contentTouches, type ToolTouch } from "./toolFiles.js";
import {
  headerEnvelopeSchema,
  isKnownEntryType,
  isKnownRole,
  OMP_ENTRY_TYPES,
  type SessionHeader,
  type TitleSlot,
  titleSlotSchema,
  validateEntry,
  validateHeader,
} from "./schema.js";

export type Flavor = "pi" | "omp";

/** Records up to this many bytes keep their parsed object; longer ones are parsed again from their bytes when read. */
const RETAIN_BYTES = 512;
/**
 * Records the tree's index reads while it is built (names, labels, titles, compactions, model changes) are always held
 * parsed, whatever their size: `result()` then never reads a body back, so it cannot fail when the file has changed.
 */
const ALWAYS_HELD = new Set(["compaction", "label", "session_info", "title_change", "model_change"]);
/** Lazily parsed bodies recently read (readers often read one entry's `data` several times in a row). */
const recentBodies = new Map<Entry, Record<string, unknown>>();
const RECENT_BODIES = 64;

/**
 * One non-header record, in file order. The envelope (`type`, `id`, `parentId`, `timestamp`) and the facts that
 * listings and usage need are kept; the record itself (`data`) is kept only when it is small, and otherwise parsed
 * again when it is read: from the file (a `BodySource`, so no copy of the file is held), or from the chunk the
 * reader was fed (`parseSession` on content in memory).
 */
export class Entry {
  /** `message.role` for message entries (v2 `hookMessage` is reported as `custom`, as pi migrates it). */
  role?: string;
  /** True when a later line reuses this id; like pi, the later entry wins in the tree. */
  shadowed = false;
  /** The usage this record carries (assistant, OMP `model_usage`, OMP `task` results; a compaction may carry two). */
  usage?: UsageFacts | UsageFacts[];
  /** Assistant messages: `message.provider` and `message.model`, for the model at a leaf. */
  provider?: unknown;
  model?: unknown;
  /** The record has a `fromExtension` key (only OMP writes one). */
  fromExtension?: true;
  /** Assistant messages: the tool calls that name a file (`read`, `edit`, `write`; core/toolFiles.ts). */
  touches?: ToolTouch[];
  #body: Record<string, unknown> | Uint8Array | BodySource;
  #start: number;
  #end: number;
  /** v2 `hookMessage` role to migrate when the body is parsed again. */
  #hook: boolean;

  constructor(
    /** The entry id; synthesized as `L<line>` for v1 files, which have none. */
    readonly id: string,
    readonly parentId: string | null,
    readonly type: string,
    /** 1-based physical line. */
    readonly line: number,
    readonly timestamp: string | undefined,
    /** False for entry types neither agent version we know writes (kept as opaque tree nodes,
     * docs/session-format.md#t24). */
    readonly known: boolean,
    /** The record, or where its bytes [start, end) are: a chunk in memory, or the file. */
    body: Record<string, unknown> | Uint8Array | BodySource,
    start = 0,
    end = 0,
    hook = false,
  ) {
    this.#body = body;
    this.#start = start;
    this.#end = end;
    this.#hook = hook;
  }

  /**
   * The record in its effective (in-memory migrated) form. Never written back; do not modify. Throws
   * `SessionChangedError` when the body is read from a file that no longer holds this record.
   */
  get data(): Record<string, unknown> {
    const body = this.#body;
    if (!this.#end) return body as Record<string, unknown>;
    let d = recentBodies.get(this);
    if (d) return d;
    d =
      body instanceof Uint8Array
        ? parseBody(body.subarray(this.#start, this.#end))
        : this.#fromSource(body as BodySource);
    if (this.#hook) d = migrateHook(d);
    recentBodies.set(this, d);
    if (recentBodies.size > RECENT_BODIES) recentBodies.delete(recentBodies.keys().next().value!);
    return d;
  }

  /** The body read back from the file, checked to be this record; else the record as the file holds it now. */
  #fromSource(source: BodySource): Record<string, unknown> {
    const bytes = source.read(this.#start, this.#end);
    let d: Record<string, unknown> | undefined;
    try {
      d = bytes ? parseBody(bytes) : undefined;
    } catch {
      d = undefined;
    }
    if (d && isPlainObject(d) && d.id === this.id && d.type === this.type) return d;
    d = source.recover(this.id, this.line, this.type);
    if (!d) throw new SessionChangedError(source.file, this.id);
    return d;
  }

  /** Whether `data` is held parsed (small records) rather than parsed again from bytes. */
  get retained(): boolean {
    return !this.#end;
  }

  /** The record's size in bytes, when it is held as bytes (0 when it is held parsed). */
  get byteLength(): number {
    return this.#end - this.#start;
  }
}

function parseBody(bytes: Uint8Array): Record<string, unknown> {
  return JSON.parse(decodeUtf8(bytes)) as Record<string, unknown>;
}

function migrateHook(value: Record<string, unknown>): Record<string, unknown> {
  return { ...value, message: { ...(value.message as Record<string, unknown>), role: "custom" } };
}

export interface CompactionInfo {
  id: string;
  line: number;
  firstKeptEntryId: string | null;
  /** `firstKeptEntryId` when it is on the compaction's own path (before it), else null (nothing kept, #t19). */
  keptFromId: string | null;
  /** The entry the compaction summarizes through (its parent). */
  replacesThroughId: string | null;
  tokensBefore: number | null;
  tokensAfter: number | null;
  onActivePath: boolean;
}

export interface ForkOf {
  raw: string;
  kind: "path" | "id";
  /** Which header field carried it: `parentSession`, or v1's `branchedFrom`. */
  field: "parentSession" | "branchedFrom";
}

export interface LabelInfo {
  label: string;
  timestamp: string | undefined;
  line: number;
}

export interface Session {
  file: string;
  flavor: Flavor;
  /** Header `version`; absent means 1. */
  version: number;
  header: SessionHeader;
  headerLine: number;
  titleSlot: TitleSlot | null;
  entries: Entry[];
  byId: Map<string, Entry>;
  /** Children ids per parent id, sorted the way pi's getTree sorts them (timestamp, then file order). */
  children: Map<string, string[]>;
  /** Root ids in file order: parentId null, self-parent, or a parent missing from the file
   * (docs/session-format.md#t4). */
  roots: string[];
  /** Ids that no root reaches (entries inside a parentId cycle). */
  detached: string[];
  /** The last entry in file order (docs/session-format.md#t3), or null for a header-only file. */
  leafId: string | null;
  labels: Map<string, LabelInfo>;
  /** pi: latest session_info name; OMP: the title (slot, newest title_change, header). */
  name: string | null;
  titleSource: "auto" | "user" | null;
  compactions: CompactionInfo[];
  forkOf: ForkOf | null;
  diagnostics: Diagnostic[];
  /** False when the last line has no "\n": the agent is mid-write or crashed; never append then. */
  endsWithNewline: boolean;
  /** True when the last physical line was unparseable and skipped. */
  truncatedTail: boolean;
}

export type ParseResult =
  { ok: true; session: Session } | { ok: false; file: string; rejection: Rejection; diagnostics: Diagnostic[] };

export interface ParseOptions {
  /** Run the zod schemas over every record and report mismatches (default true). */
  validate?: boolean;
  /**
   * Records up to this many bytes keep their parsed object; longer ones keep only their envelope and facts, and are
   * parsed again from the held bytes when their `data` is read (default 512). `Infinity` keeps every record parsed.
   * The kinds the tree's index reads are always kept (`ALWAYS_HELD`).
   */
  retainBytes?: number;
  /**
   * Large records are checked and reduced to their envelope by a scan of their bytes (core/envelope.ts), not parsed
   * (an assistant message's envelope holds its usage, provider and model): for usage reports, which read none of
   * their bodies (a body is still parsed in full when read) and no file touches (`Entry.touches` is left out of a
   * scanned record). Only without `validate` (the schema checks need the whole record).
   */
  scan?: boolean;
}

const encoder = new TextEncoder();

/** Parse one session file's content. Never throws for any input. */
export function parseSession(file: string, content: string | Uint8Array, options: ParseOptions = {}): ParseResult {
  const bytes = typeof content === "string" ? encoder.encode(content) : content;
  const reader = new SessionReader(file, options);
  const fed = reader.feedChunk(bytes);
  return reader.result(fed.endsWithNewline);
}

type RawRecord = { line: number; value: Record<string, unknown> };

/** A fed chunk's place in its file: large records keep the file offsets of their bytes, not the chunk. */
export interface ChunkOrigin {
  source: BodySource;
  /** The file offset of the chunk's first byte. */
  at: number;
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

  constructor(
    readonly file: string,
    options: ParseOptions = {},
  ) {
    this.validate = options.validate ?? true;
    this.retainBytes = options.retainBytes ?? RETAIN_BYTES;
    this.scan = options.scan === true && !this.validate;
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
      this.entries.push(entry);
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
    this.entries.push(entry);
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
    }
  }

  private v1Entry({ line, value }: RawRecord): Entry | null {
    const diagnostics = this.lineDiagnostics;
    if (typeof value.type !== "string") {
      diagnostics.push({
        line,
        severity: "error",
        code: "missing-type",
        message: "record has no string `type`; line skipped",
      });
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

  /** Assemble the session from everything fed so far. `endsWithNewline`: whether the content fed ends a line. */
  result(endsWithNewline = true): ParseResult {
    const diagnostics = [...this.lineDiagnostics];
    const file = this.file;
    if (this.rejection) return { ok: false, file, rejection: this.rejection, diagnostics };
    if (!this.header) {
      if (!this.sawLine)
        return { ok: false, file, rejection: { line: 0, code: "empty-file", message: "file is empty" }, diagnostics };
      const message =
        this.titleSlot || this.sawTitleRecord
          ? "title slot is not followed by a session header"
          : "no session header in the file";
      return { ok: false, file, rejection: { line: this.lastLine, code: "no-header", message }, diagnostics };
    }
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
      this.header,
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

/**
 * Scanned records whose whole record the reader needs: the kinds the tree's index reads, OMP's `model_usage` and
 * `task` results (their usage is in their body), and records that are no entry (a header, a title slot). An
 * assistant message's usage facts are in its envelope.
 */
function wholeRecordNeeded(envelope: Record<string, unknown>): boolean {
  const type = envelope.type;
  if (typeof type !== "string" || ALWAYS_HELD.has(type)) return true;
  if (type === "model_usage" || type === "session" || type === "title") return true;
  const m = envelope.message;
  return isPlainObject(m) && m.role === "toolResult" && m.toolName === "task";
}

/** The id and parent of a v2+ record, or null (with a diagnostic) when it cannot be an entry. */
function checkEnvelope(
  { line, value }: RawRecord,
  diagnostics: Diagnostic[],
): { id: string; parentId: string | null } | null {
  if (typeof value.type !== "string") {
    diagnostics.push({
      line,
      severity: "error",
      code: "missing-type",
      message: "record has no string `type`; line skipped",
    });
    return null;
  }
  if (typeof value.id !== "string" || value.id === "") {
    diagnostics.push({
      line,
      severity: "error",
      code: "missing-id",
      message: `${value.type} record has no string \`id\`; line skipped`,
    });
    return null;
  }
  let parentId: string | null;
  if (typeof value.parentId === "string") parentId = value.parentId;
  else {
    if (value.parentId !== null) {
      diagnostics.push({
        line,
        severity: "warning",
        code: "missing-parent-id",
        message: "record has no `parentId`; treated as a root",
      });
    }
    parentId = null;
  }
  return { id: value.id, parentId };
}

/** Entry types are few: one string each, however many entries. */
const typeNames = new Map<string, string>();

/** An entry from its parsed record `data`, held either as `data` itself or as the bytes [start, end) of `body`. */
function makeEntry(
  data: Record<string, unknown>,
  id: string,
  parentId: string | null,
  line: number,
  body: Record<string, unknown> | Uint8Array | BodySource,
  start = 0,
  end = 0,
  hook = false,
): Entry {
  let type = typeNames.get(data.type as string);
  if (type === undefined) {
    type = data.type as string;
    if (typeNames.size < 256) typeNames.set(type, type);
  }
  const entry = new Entry(
    id,
    parentId,
    type,
    line,
    typeof data.timestamp === "string" ? data.timestamp : undefined,
    isKnownEntryType(type),
    body,
    start,
    end,
    hook,
  );
  if (type === "message" && isPlainObject(data.message)) {
    const m = data.message;
    if (typeof m.role === "string") entry.role = m.role;
    if (m.role === "assistant") {
      entry.provider = m.provider;
      entry.model = m.model;
      const touches = contentTouches(m.content);
      if (touches.length) entry.touches = touches;
    }
  }
  const usage = usageFacts(type, data);
  if (usage) entry.usage = usage;
  if ("fromExtension" in data) entry.fromExtension = true;
  return entry;
}

function validateOne(entry: Entry, data: Record<string, unknown>, diagnostics: Diagnostic[]): void {
  if (!entry.known) {
    diagnostics.push({
      line: entry.line,
      severity: "warning",
      code: "unknown-entry-type",
      message: `unknown entry type ${JSON.stringify(entry.type)}; kept as an opaque node`,
    });
    return;
  }
  if (entry.role !== undefined && !isKnownRole(entry.role)) {
    diagnostics.push({
      line: entry.line,
      severity: "warning",
      code: "unknown-role",
      message: `unknown message role ${JSON.stringify(entry.role)}; kept as an opaque message`,
    });
  }
  if (entry.timestamp === undefined || Number.isNaN(Date.parse(entry.timestamp))) {
    diagnostics.push({
      line: entry.line,
      severity: "warning",
      code: "invalid-timestamp",
      message: "entry timestamp is missing or not an ISO date; sibling order may differ",
    });
  }
  // v1 entries are validated in their migrated form (synthesized ids, firstKeptEntryId).
  for (const problem of validateEntry(data)) {
    diagnostics.push({ line: entry.line, severity: "warning", code: "schema", message: `${entry.type}: ${problem}` });
  }
}

/** The tree indexes of a run of entries; kept by `SessionReader` and extended in place when entries are appended. */
interface Index {
  count: number;
  byId: Map<string, Entry>;
  children: Map<string, string[]>;
  roots: string[];
  detached: string[];
  detachedSet: Set<string>;
  /** Parent ids that orphan entries point at: an entry with such an id arriving later re-parents them. */
  missingParents: Set<string>;
  labels: Map<string, LabelInfo>;
  sessionInfoName: string | null | undefined;
  titleChanges: { title: string; source: string | undefined }[];
  /** The diagnostics the indexing found (duplicate ids, orphans, self-parents, cycles). */
  diagnostics: Diagnostic[];
  /** What a compaction records, and its keptFromId: fixed once the compaction is indexed (its path never
   * changes after). */
  keptFrom: Map<string, CompactionFacts>;
  /** Compaction entries in file order. */
  compactionEntries: Entry[];
  /** Whether an entry only OMP writes was seen. */
  ompEntry: boolean;
}

function buildIndex(entries: Entry[]): Index {
  const diagnostics: Diagnostic[] = [];
  // Index: like pi's Map, a later duplicate id replaces the earlier one.
  const byId = new Map<string, Entry>();
  for (const entry of entries) {
    const previous = byId.get(entry.id);
    if (previous) {
      previous.shadowed = true;
      diagnostics.push({
        line: entry.line,
        severity: "warning",
        code: "duplicate-id",
        message: `id ${JSON.stringify(entry.id)} is already used on line ${previous.line}; the later entry wins`,
      });
    }
    byId.set(entry.id, entry);
  }
  const children = new Map<string, string[]>();
  const roots: string[] = [];
  const missingParents = new Set<string>();
  for (const entry of entries) {
    if (entry.shadowed) continue;
    const { parentId } = entry;
    if (parentId === null) {
      roots.push(entry.id);
    } else if (parentId === entry.id) {
      roots.push(entry.id);
      diagnostics.push({
        line: entry.line,
        severity: "warning",
        code: "self-parent",
        message: "entry is its own parent; shown as a root",
      });
    } else if (byId.has(parentId)) {
      const list = children.get(parentId);
      // Most entries have one child: a one-element literal is sized 1, where [] grows to 17 on its first push.
      if (!list) children.set(parentId, [entry.id]);
      else list.push(entry.id);
    } else {
      roots.push(entry.id);
      missingParents.add(parentId);
      diagnostics.push(orphanDiagnostic(entry, parentId));
    }
  }
  // pi's getTree: children sorted by entry timestamp, oldest first; Array.sort is stable, so ties keep file order.
  for (const list of children.values()) {
    if (list.length > 1) list.sort((a, b) => timeOf(byId.get(a)!) - timeOf(byId.get(b)!));
  }
  const detached = findDetached(entries, roots, children, diagnostics);
  const index: Index = {
    count: entries.length,
    byId,
    children,
    roots,
    detached,
    detachedSet: new Set(detached),
    missingParents,
    labels: new Map(),
    sessionInfoName: undefined,
    titleChanges: [],
    diagnostics,
    keptFrom: new Map(),
    compactionEntries: [],
    ompEntry: false,
  };
  for (const entry of entries) noteMetadata(index, entry);
  return index;
}

function orphanDiagnostic(entry: Entry, parentId: string): Diagnostic {
  return {
    line: entry.line,
    severity: "warning",
    code: "orphan",
    message: `parent ${JSON.stringify(parentId)} is not in the file; shown as a root`,
  };
}

/** Labels, names, titles and compactions. Reads the body of those entries only (messages are never parsed again). */
function noteMetadata(index: Index, entry: Entry): void {
  if (!index.ompEntry && isOmpEntry(entry)) index.ompEntry = true;
  const type = entry.type;
  if (type === "compaction") {
    if (!entry.shadowed) index.compactionEntries.push(entry);
  } else if (type === "label") {
    const d = entry.data;
    if (typeof d.targetId !== "string") return;
    if (typeof d.label === "string" && d.label)
      index.labels.set(d.targetId, { label: d.label, timestamp: entry.timestamp, line: entry.line });
    else index.labels.delete(d.targetId);
  } else if (type === "session_info") {
    const d = entry.data;
    // pi 0.73: the latest session_info wins, an empty or absent name clears it.
    index.sessionInfoName = typeof d.name === "string" && d.name.trim() ? d.name.trim() : null;
  } else if (type === "title_change") {
    const d = entry.data;
    if (typeof d.title === "string")
      index.titleChanges.push({ title: d.title, source: typeof d.source === "string" ? d.source : undefined });
  }
}

/**
 * Extend an index by appended entries, or return false when only a full rebuild gives pi's answer: a reused id, an
 * entry an earlier orphan was waiting for, or a timestamp that does not order.
 */
function extendIndex(index: Index, added: Entry[]): boolean {
  const later = new Set(added.map((e) => e.id));
  if (later.size !== added.length) return false;
  const ids = new Set<string>();
  for (const e of added) {
    if (index.byId.has(e.id) || index.missingParents.has(e.id) || Number.isNaN(timeOf(e))) return false;
    // A parent that comes later in the same batch: the entry is no orphan (a full rebuild gets that right).
    if (e.parentId !== null && later.has(e.parentId) && !ids.has(e.parentId)) return false;
    ids.add(e.id);
  }
  for (const e of added) {
    index.byId.set(e.id, e);
    const { parentId } = e;
    if (parentId === null) index.roots.push(e.id);
    else if (parentId === e.id) {
      index.roots.push(e.id);
      index.diagnostics.push({
        line: e.line,
        severity: "warning",
        code: "self-parent",
        message: "entry is its own parent; shown as a root",
      });
    } else if (index.byId.has(parentId)) {
      let list = index.children.get(parentId);
      if (!list) index.children.set(parentId, (list = []));
      // Stable insertion by timestamp: after every sibling that is not later.
      const t = timeOf(e);
      if (list.some((id) => Number.isNaN(timeOf(index.byId.get(id)!)))) return false;
      let at = list.length;
      while (at > 0 && timeOf(index.byId.get(list[at - 1]!)!) > t) at--;
      list.splice(at, 0, e.id);
      if (index.detachedSet.has(parentId)) {
        index.detached.push(e.id);
        index.detachedSet.add(e.id);
        index.diagnostics.push({
          line: e.line,
          severity: "warning",
          code: "parent-cycle",
          message: "entry is inside a parentId cycle and reachable from no root",
        });
      }
    } else {
      index.roots.push(e.id);
      index.missingParents.add(parentId);
      index.diagnostics.push(orphanDiagnostic(e, parentId));
    }
    noteMetadata(index, e);
  }
  index.count += added.length;
  return true;
}

function sessionOf(
  file: string,
  header: SessionHeader,
  headerLine: number,
  version: number,
  titleSlot: TitleSlot | null,
  entries: Entry[],
  index: Index,
  diagnostics: Diagnostic[],
): Session {
  const flavor = detectFlavor(header, titleSlot, index.ompEntry);
  const { name, titleSource } = resolveName(flavor, header, titleSlot, index.titleChanges, index.sessionInfoName);
  const session: Session = {
    file,
    flavor,
    version,
    header,
    headerLine,
    titleSlot,
    entries,
    byId: index.byId,
    children: index.children,
    roots: index.roots,
    detached: index.detached,
    // The last entry in file order is the active leaf (docs/session-format.md#t3).
    leafId: entries.length ? entries[entries.length - 1]!.id : null,
    labels: index.labels,
    name,
    titleSource,
    compactions: [],
    forkOf: forkOfHeader(header),
    diagnostics,
    endsWithNewline: true,
    truncatedTail: false,
  };
  session.compactions = collectCompactions(session, index.keptFrom, index.compactionEntries);
  return session;
}

function timeOf(entry: Entry): number {
  return new Date(entry.timestamp as string).getTime();
}

/** Entries unreachable from every root sit in a parentId cycle: pi loops or drops them; we report them. */
function findDetached(
  entries: Entry[],
  roots: string[],
  children: Map<string, string[]>,
  diagnostics: Diagnostic[],
): string[] {
  const reached = new Set<string>();
  const stack = [...roots];
  while (stack.length) {
    const id = stack.pop()!;
    if (reached.has(id)) continue;
    reached.add(id);
    const kids = children.get(id);
    if (kids) for (const k of kids) stack.push(k);
  }
  const detached: string[] = [];
  for (const entry of entries) {
    if (entry.shadowed || reached.has(entry.id)) continue;
    detached.push(entry.id);
    diagnostics.push({
      line: entry.line,
      severity: "warning",
      code: "parent-cycle",
      message: "entry is inside a parentId cycle and reachable from no root",
    });
  }
  return detached;
}

const OMP_TYPES = new Set<string>(OMP_ENTRY_TYPES);

function detectFlavor(header: SessionHeader, titleSlot: TitleSlot | null, ompEntry: boolean): Flavor {
  if (titleSlot) return "omp";
  for (const key of [
    "title",
    "titleSource",
    "providerPromptCacheKey",
    "previousSessionFiles",
    "additionalDirectories",
  ]) {
    if (key in header) return "omp";
  }
  return ompEntry ? "omp" : "pi";
}

/** An entry only OMP writes. */
function isOmpEntry(entry: Entry): boolean {
  return (
    OMP_TYPES.has(entry.type) ||
    entry.fromExtension === true ||
    (entry.type === "model_change" && typeof entry.data.model === "string")
  );
}

function resolveName(
  flavor: Flavor,
  header: SessionHeader,
  titleSlot: TitleSlot | null,
  titleChanges: { title: string; source: string | undefined }[],
  sessionInfoName: string | null | undefined,
): { name: string | null; titleSource: "auto" | "user" | null } {
  if (flavor === "pi") return { name: sessionInfoName ?? null, titleSource: null };
  // OMP: newest accepted title_change (a "user" title is sticky against later "auto" ones, docs/session-format.md#t21).
  let changed: { title: string; source: string | undefined } | undefined;
  for (const change of titleChanges) {
    if (changed?.source === "user" && change.source === "auto") continue;
    changed = change;
  }
  if (titleSlot) {
    const slotTitle = titleSlot.title;
    const source = titleSlot.source ?? null;
    if (!slotTitle) return { name: null, titleSource: source };
    // The slot truncates long titles by code points: the full text is in the title_change entry.
    if (changed && changed.title.length > slotTitle.length && changed.title.startsWith(slotTitle)) {
      return { name: changed.title, titleSource: source };
    }
    return { name: slotTitle, titleSource: source };
  }
  if (typeof header.title === "string" && header.title)
    return { name: header.title, titleSource: header.titleSource ?? null };
  if (changed && changed.title)
    return {
      name: changed.title,
      titleSource: changed.source === "user" || changed.source === "auto" ? changed.source : null,
    };
  return { name: null, titleSource: null };
}

function forkOfHeader(header: SessionHeader): ForkOf | null {
  let raw: string | undefined;
  let field: ForkOf["field"] = "parentSession";
  if (typeof header.parentSession === "string" && header.parentSession) raw = header.parentSession;
  else if (typeof header.branchedFrom === "string" && header.branchedFrom) {
    raw = header.branchedFrom;
    field = "branchedFrom";
  }
  if (raw === undefined) return null;
  return { raw, kind: classifyParentSession(raw), field };
}

/** A parentSession is a file path (pi, OMP branch/subagent) or a session id (OMP /fork, --fork, /tan):
 * docs/session-format.md#t10. */
function classifyParentSession(raw: string): "path" | "id" {
  return /[\\/]/.test(raw) || raw.endsWith(".jsonl") ? "path" : "id";
}

/** Ids from the root to `leafId` (inclusive), stopping at a missing parent or a repeated id. */
export function pathTo(session: Session, leafId: string | null): Entry[] {
  const path: Entry[] = [];
  if (leafId === null) return path;
  const seen = new Set<string>();
  let current = session.byId.get(leafId);
  while (current && !seen.has(current.id)) {
    seen.add(current.id);
    path.push(current);
    current = current.parentId ? session.byId.get(current.parentId) : undefined;
  }
  return path.reverse();
}

type CompactionFacts = Pick<CompactionInfo, "firstKeptEntryId" | "keptFromId" | "tokensBefore" | "tokensAfter">;

function collectCompactions(
  session: Session,
  keptFrom: Map<string, CompactionFacts>,
  compactionEntries: Entry[],
): CompactionInfo[] {
  // Which compactions are on the active path: one walk up from the leaf, marking only compactions (no set of the
  // whole path; this runs on every append).
  const active = new Set<string>();
  if (compactionEntries.length) {
    const wanted = new Set(compactionEntries.map((e) => e.id));
    // At most one step per entry: a parentId cycle cannot loop (pathTo stops at a repeated id the same way).
    let steps = session.byId.size;
    for (
      let e = session.leafId === null ? undefined : session.byId.get(session.leafId);
      e && steps-- > 0 && active.size < wanted.size;
      e = e.parentId === null ? undefined : session.byId.get(e.parentId)
    ) {
      if (e.type === "compaction" && wanted.has(e.id)) active.add(e.id);
    }
  }
  const result: CompactionInfo[] = [];
  // A walk up from each compaction, while the walks stay within a few steps per entry in all (kept entries are just
  // above); past that (a crafted file), one index of the tree answers the rest.
  const budget = { steps: 4 * session.byId.size + 1000 };
  let index: ((id: string, e: Entry) => boolean) | undefined;
  const above = (id: string, e: Entry) => {
    const walked = index ? undefined : isAncestor(session, id, e, budget);
    return walked ?? (index ??= ancestorIndex(session))(id, e);
  };
  for (const entry of compactionEntries) {
    if (entry.shadowed) continue;
    let facts = keptFrom.get(entry.id);
    if (facts === undefined) {
      const d = entry.data;
      const firstKept = typeof d.firstKeptEntryId === "string" ? d.firstKeptEntryId : null;
      let keptFromId: string | null = null;
      if (firstKept && above(firstKept, entry)) keptFromId = firstKept;
      facts = {
        firstKeptEntryId: firstKept,
        keptFromId,
        tokensBefore: typeof d.tokensBefore === "number" ? d.tokensBefore : null,
        tokensAfter: typeof d.tokensAfter === "number" ? d.tokensAfter : null,
      };
      keptFrom.set(entry.id, facts);
    }
    result.push({
      id: entry.id,
      line: entry.line,
      firstKeptEntryId: facts.firstKeptEntryId,
      keptFromId: facts.keptFromId,
      replacesThroughId: entry.parentId,
      tokensBefore: facts.tokensBefore,
      tokensAfter: facts.tokensAfter,
      onActivePath: active.has(entry.id),
    });
  }
  return result;
}

/** The effective model and thinking level at `leafId` (pi `{provider, modelId}`; OMP `model: "provider/id"`
 * per role). */
export interface PathSettings {
  thinkingLevel: string | undefined;
  model: { provider: string; modelId: string } | null;
  /** OMP model roles (role → "provider/id"). Empty for pi files. */
  models: Record<string, string>;
}

export function settingsAt(session: Session, leafId: string | null = session.leafId): PathSettings {
  let thinkingLevel: string | undefined = "off";
  let model: PathSettings["model"] = null;
  const models: Record<string, string> = {};
  let explicitDefault = false;
  for (const entry of pathTo(session, leafId)) {
    if (entry.type === "thinking_level_change") {
      const d = entry.data;
      thinkingLevel =
        session.flavor === "omp"
          ? ((d.thinkingLevel as string | null | undefined) ?? "off")
          : (d.thinkingLevel as string | undefined);
    } else if (entry.type === "model_change") {
      const d = entry.data;
      if (typeof d.model === "string") {
        const role = typeof d.role === "string" ? d.role : "default";
        models[role] = d.model;
        if (role === "default") {
          explicitDefault = true;
          model = splitModel(d.model);
        }
      } else {
        model = { provider: d.provider as string, modelId: d.modelId as string };
      }
    } else if (entry.type === "message" && entry.role === "assistant") {
      // The reader kept the assistant's provider and model: no body is parsed for this walk.
      if (session.flavor === "omp") {
        if (!explicitDefault) {
          models.default = `${String(entry.provider)}/${String(entry.model)}`;
          model = { provider: entry.provider as string, modelId: entry.model as string };
        }
      } else {
        model = { provider: entry.provider as string, modelId: entry.model as string };
      }
    }
  }
  return { thinkingLevel, model, models };
}

export function splitModel(spec: string): { provider: string; modelId: string } {
  const slash = spec.indexOf("/");
  return slash < 0
    ? { provider: "", modelId: spec }
    : { provider: spec.slice(0, slash), modelId: spec.slice(slash + 1) };
}

export { isPlainObject };

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
