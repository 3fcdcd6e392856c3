/**
 * Large records' bodies read back from the session file itself, so that no reader holds a copy of the file (a 1 GB
 * session costs its model, not its bytes). Each read opens the file, checks on the handle that it is still the file
 * that was parsed (same device and inode, not shorter than what was parsed), and reads the record's bytes; the entry
 * then checks that they parse to the record it expects (same id and type). A modification time alone does not count
 * as a change: OMP rewrites its title slot in place (docs/session-format.md#t2), and agents append. When the file no
 * longer holds the record where it was, the file is parsed again (once) and the record is looked up by id.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import type { BodySource } from "../core/bodySource.js";
import { releaseScanChunk, scanChunk } from "../core/envelope.js";
import {
  type ParseOptions,
  type ParseResult,
  type Session,
  SessionReader,
  type StreamedFile,
} from "../core/session/index.js";
import { openRegularSync, READ_FLAGS, readFullySync } from "./fileAccess.js";
import { ioReason } from "./ioReason.js";

interface Identity {
  dev: bigint;
  ino: bigint;
}

/** A parse made to recover records, with the state of the file it read. */
interface Reparsed {
  session: Session;
  dev: bigint;
  ino: bigint;
  size: number;
  mtimeNs: bigint;
}

export class FileBodySource implements BodySource {
  #identity: Identity | null = null;
  /** Bytes of the file fed to the reader so far; a shorter file is another file. */
  #through = 0;
  #reparsed: Reparsed | null = null;

  constructor(
    readonly file: string,
    private readonly options: ParseOptions = {},
    /** A source made by a recovery parse does not recover again (one parse per read, never a chain of them). */
    private readonly recovers = true,
  ) {}

  /** The file being read is this one (device, inode); nothing of it fed yet. */
  identify(dev: bigint, ino: bigint): void {
    this.#identity = { dev, ino };
    this.#through = 0;
  }

  /** The reader has been fed the file's bytes up to `through` (called by `ChunkFeeder` as it feeds). */
  fedThrough(through: number): void {
    this.#through = through;
  }

  read(start: number, end: number): Uint8Array | null {
    const identity = this.#identity;
    if (!identity || end > this.#through) return null;
    let fd: number;
    try {
      fd = openSync(this.file, READ_FLAGS);
    } catch {
      return null;
    }
    try {
      const st = fstatSync(fd, { bigint: true });
      if (!st.isFile() || st.dev !== identity.dev || st.ino !== identity.ino || Number(st.size) < this.#through)
        return null;
      const buf = Buffer.allocUnsafe(end - start);
      return readFullySync(fd, buf, start) === buf.length ? buf : null;
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }

  recover(id: string, line: number, type: string): Record<string, unknown> | undefined {
    if (!this.recovers) return undefined;
    const session = this.#reparse();
    if (!session) return undefined;
    const same = session.entries.filter((e) => e.id === id && e.type === type);
    const entry = same.find((e) => e.line === line) ?? same.find((e) => !e.shadowed);
    return entry?.data;
  }

  /** The file parsed again, unless the last such parse read it as it is now (same inode, size and time). */
  #reparse(): Session | null {
    let st;
    try {
      st = statSync(this.file, { bigint: true });
    } catch {
      return null;
    }
    const r = this.#reparsed;
    if (r && r.dev === st.dev && r.ino === st.ino && r.size === Number(st.size) && r.mtimeNs === st.mtimeNs)
      return r.session;
    const session = parseFileSync(this.file, this.options);
    // A failed parse is not kept: the next read tries again (the file may be between a truncation and its write).
    this.#reparsed = session && { session, dev: st.dev, ino: st.ino, size: Number(st.size), mtimeNs: st.mtimeNs };
    return session;
  }
}

/** How much of the start of the file is kept to detect in-place rewrites (the OMP title slot is 256 bytes). */
const PREFIX_BYTES = 4096;

/** Large files are read and parsed this many bytes at a time. */
export const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Feeds a file's bytes, read in chunks, to a `SessionReader` as whole lines with their file offsets: a line split
 * between two chunks is held until its end arrives (a very long line is gathered in parts and joined once).
 */
export class ChunkFeeder {
  #parts: Buffer[] = [];
  #partsBytes = 0;
  /** The file offset of the next byte to come. */
  #at: number;
  #line: number;
  #endsWithNewline = true;
  /** The start of the file's first line (at most 4 KB), once that line is complete: to notice in-place rewrites. */
  prefix: Buffer = Buffer.alloc(0);

  constructor(
    private readonly reader: SessionReader,
    private readonly source: FileBodySource,
    at = 0,
    firstLine = 1,
  ) {
    this.#at = at;
    this.#line = firstLine;
  }

  /** Bytes that arrived after the last newline (not yet fed). */
  get pendingBytes(): number {
    return this.#partsBytes;
  }

  /** The file offset of the next byte to come (bytes fed plus bytes pending). */
  get at(): number {
    return this.#at;
  }

  /** The number of the next line to be fed (1-based). */
  get nextLine(): number {
    return this.#line;
  }

  get endsWithNewline(): boolean {
    return this.#endsWithNewline;
  }

  /**
   * The next bytes of the file: the whole lines among them are fed, the rest waits for its newline (copied: `bytes`
   * is not kept, so the caller may reuse its buffer).
   */
  push(bytes: Buffer): void {
    this.#at += bytes.length;
    const nl = bytes.lastIndexOf(10);
    if (nl < 0) {
      // Copied: the caller may read the next chunk into the same buffer.
      if (bytes.length) this.#parts.push(Buffer.from(bytes));
      this.#partsBytes += bytes.length;
      return;
    }
    let from = 0;
    if (this.#parts.length) {
      // The held start of a line and this chunk's first line are joined (a small copy); the rest is fed as it is.
      from = bytes.indexOf(10) + 1;
      const line = Buffer.concat([...this.#parts, bytes.subarray(0, from)]);
      this.#feed(line, this.#at - bytes.length - this.#partsBytes);
    }
    if (nl + 1 > from) this.#feed(bytes.subarray(from, nl + 1), this.#at - bytes.length + from);
    // The rest is copied: a view would keep the whole chunk alive.
    this.#parts = nl + 1 < bytes.length ? [Buffer.from(bytes.subarray(nl + 1))] : [];
    this.#partsBytes = bytes.length - nl - 1;
  }

  /** The end of the file: a last line without its newline is fed as it is (the reader reports it). */
  finish(): void {
    if (!this.#partsBytes) return;
    const data = Buffer.concat(this.#parts);
    this.#parts = [];
    this.#partsBytes = 0;
    this.#feed(data, this.#at - data.length);
  }

  #feed(bytes: Uint8Array, at: number): void {
    // Bodies of what is fed can be read back at once (a `result()` may come between two chunks).
    this.source.fedThrough(at + bytes.length);
    if (at === 0) {
      const nl = bytes.indexOf(10);
      this.prefix = Buffer.from(bytes.subarray(0, Math.min(nl < 0 ? bytes.length : nl + 1, PREFIX_BYTES)));
    }
    const fed = this.reader.feedChunk(bytes, this.#line, { source: this.source, at });
    this.#line += fed.lines;
    this.#endsWithNewline = fed.endsWithNewline;
  }
}

/** Parse a file synchronously, reading it in chunks (the recovery path: rare, after the file changed). */
function parseFileSync(file: string, options: ParseOptions): Session | null {
  const r = readSessionFileSync(file, options, false);
  return r.ok ? r.session : null;
}

/**
 * `readSessionFile` (node/readSession.ts), synchronously: the same result, for a thread that does nothing else (the
 * store's parallel cold reads). Large records' bodies are read back from the file; `recovers`: whether a body that
 * moved is looked up by parsing the file again.
 */
export function readSessionFileSync(file: string, options: ParseOptions = {}, recovers = true): ParseResult {
  return feedFileSync(file, options, recovers, (reader, endsWithNewline) => reader.result(endsWithNewline));
}

/**
 * A file streamed through a reader whose entries go to `options.onEntry` (none is kept): its header facts and line
 * diagnostics, or why it was rejected. Large records' bodies are read back from the file while their entry is handed
 * over (a summary reads a prompt's text).
 */
export function streamSessionFileSync(
  file: string,
  options: ParseOptions & { onEntry: NonNullable<ParseOptions["onEntry"]> },
): StreamedFile | Extract<ParseResult, { ok: false }> {
  return feedFileSync(file, options, true, (reader) => reader.streamed());
}

type Failed = Extract<ParseResult, { ok: false }>;

/** Open a session file safely, feed it in chunks through a reader, and give `finish` the reader at the end. */
function feedFileSync<T>(
  file: string,
  options: ParseOptions,
  recovers: boolean,
  finish: (reader: SessionReader, endsWithNewline: boolean) => T,
): T | Failed {
  let opened;
  try {
    opened = openRegularSync(file);
  } catch (err) {
    return { ok: false, file, rejection: { line: 0, code: "unreadable", message: ioReason(err) }, diagnostics: [] };
  }
  const { fd, id } = opened;
  try {
    const reader = new SessionReader(file, options);
    const source = new FileBodySource(file, options, recovers);
    source.identify(id.dev, id.ino);
    const feeder = new ChunkFeeder(reader, source);
    let at = 0;
    // A usage reader's chunks go straight into the scan's memory, where their lines are scanned without a copy.
    const size = Math.min(CHUNK_BYTES, id.size);
    const inScan = options.scan ? scanChunk(size) : null;
    const buf = inScan ? Buffer.from(inScan.buffer, inScan.byteOffset, size) : Buffer.allocUnsafe(size);
    try {
      while (at < id.size) {
        const n = readSync(fd, buf, 0, Math.min(buf.length, id.size - at), at);
        if (n === 0) break;
        at += n;
        feeder.push(buf.subarray(0, n));
      }
      feeder.finish();
    } finally {
      if (inScan) releaseScanChunk();
    }
    return finish(reader, feeder.endsWithNewline);
  } catch (err) {
    return { ok: false, file, rejection: { line: 0, code: "unreadable", message: ioReason(err) }, diagnostics: [] };
  } finally {
    closeSync(fd);
  }
}
