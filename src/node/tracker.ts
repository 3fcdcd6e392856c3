/**
 * Follows one session file while an agent writes it. The first read parses the whole file; after that only the
 * bytes appended since the last read are read and parsed (`SessionReader` keeps what it already has). A partial
 * last line is held back until its newline arrives.
 *
 * The agents also rewrite files (docs/session-format.md#writing): OMP replaces the file by temp + rename (a new
 * inode, #t15) and rewrites its 256-byte title slot in place at offset 0 (same size, new mtime, #t2); pi rewrites a
 * file when it migrates it. Any of these (a new inode, a shorter file, or a changed first line) makes the next read
 * a full one.
 */
import { closeSync, fstatSync, openSync } from "node:fs";
import { type FileHandle, stat } from "node:fs/promises";
import type { Diagnostic } from "../core/diagnostics.js";
import { type ParseOptions, type ParseResult, SessionReader } from "../core/session/index.js";
import { openRegular, READ_FLAGS, readAt, readFullySync } from "./fileAccess.js";
import { CHUNK_BYTES, ChunkFeeder, FileBodySource } from "./fileBodies.js";
import { yieldToEventLoop } from "./readSession.js";

export type TrackerChange = "initial" | "appended" | "replaced" | "unchanged" | "removed";

export interface TrackerUpdate {
  change: TrackerChange;
  /** Bytes read by this update. */
  bytesRead: number;
}

/** Appends up to this size are read synchronously. */
const SMALL_APPEND = 256 * 1024;

export class SessionTracker {
  private reader!: SessionReader;
  /** Where large records' bodies are read back from (the tracker holds no copy of the file). */
  private source!: FileBodySource;
  /** Feeds whole lines and holds an incomplete last line until its newline arrives. */
  private feeder!: ChunkFeeder;
  private ino: bigint | null = null;
  private size = -1;
  private mtimeNs = -1n;
  private cached: ParseResult | null = null;
  /** Bytes read since the tracker was made (for benchmarks and tests). */
  totalBytesRead = 0;

  constructor(
    readonly file: string,
    private readonly options: ParseOptions = {},
  ) {
    this.reset();
  }

  get mtimeMs(): number {
    return Number(this.mtimeNs / 1_000_000n);
  }

  get sizeBytes(): number {
    return this.size;
  }

  private queue: Promise<unknown> = Promise.resolve();

  /**
   * Bring the model up to date with the file. Never throws: an unreadable file reports `removed`. Calls are queued:
   * two callers (opening a session while the watcher reports it) never read the same bytes twice.
   */
  update(): Promise<TrackerUpdate> {
    const run = this.queue.then(() => this.updateNow());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async updateNow(): Promise<TrackerUpdate> {
    let st;
    try {
      st = await stat(this.file, { bigint: true });
      // A FIFO, device or directory named like a session is not one (and opening a FIFO would block).
      if (!st.isFile()) throw new Error("not a regular file");
    } catch {
      const had = this.size >= 0;
      this.reset();
      this.size = -1;
      return { change: had ? "removed" : "unchanged", bytesRead: 0 };
    }
    const size = Number(st.size);
    const first = this.size < 0;
    if (!first && st.ino === this.ino && size === this.size && st.mtimeNs === this.mtimeNs)
      return { change: "unchanged", bytesRead: 0 };
    // A small append to the same file: read it synchronously (a few KB; no thread-pool round trips).
    const start = this.feeder.at;
    if (!first && st.ino === this.ino && size >= start && size - start <= SMALL_APPEND) {
      const quick = this.appendSync(st.mtimeNs);
      if (quick) return quick;
    }
    try {
      // Opened non-blocking and checked on the handle: the file may have been swapped for a FIFO since the stat.
      const { handle } = await openRegular(this.file);
      try {
        // Re-stat through the handle: the bytes we read belong to this inode.
        const hst = await handle.stat({ bigint: true });
        const hsize = Number(hst.size);
        let full = first || hst.ino !== this.ino || hsize < this.feeder.at;
        let bytesRead = 0;
        if (!full) {
          const prefix = this.feeder.prefix;
          const n = Math.min(prefix.length, hsize);
          const now = n ? await readAt(handle, 0, n) : Buffer.alloc(0);
          bytesRead += n;
          full = !now.equals(prefix);
        }
        if (full) {
          this.reset();
          this.ino = hst.ino;
          this.source.identify(hst.dev, hst.ino);
        }
        bytesRead += await this.readFrom(handle, hsize);
        this.size = hsize;
        this.mtimeNs = hst.mtimeNs;
        this.totalBytesRead += bytesRead;
        this.cached = null;
        return { change: first ? "initial" : full ? "replaced" : "appended", bytesRead };
      } finally {
        await handle.close();
      }
    } catch {
      const had = this.size >= 0;
      this.reset();
      this.size = -1;
      return { change: had ? "removed" : "unchanged", bytesRead: 0 };
    }
  }

  /** The small-append path; null when the file turned out to be rewritten (then the async path reads it in full). */
  private appendSync(mtimeNs: bigint): TrackerUpdate | null {
    let fd: number;
    try {
      fd = openSync(this.file, READ_FLAGS);
    } catch {
      return null;
    }
    try {
      const st = fstatSync(fd, { bigint: true });
      if (!st.isFile()) return null;
      const size = Number(st.size);
      const start = this.feeder.at;
      if (st.ino !== this.ino || size < start || size - start > SMALL_APPEND) return null;
      const prefix = this.feeder.prefix;
      const n = Math.min(prefix.length, size);
      const now = Buffer.alloc(n);
      readFullySync(fd, now, 0);
      if (!now.equals(prefix)) return null;
      const buf = Buffer.alloc(size - start);
      const got = readFullySync(fd, buf, start);
      this.feeder.push(buf.subarray(0, got));
      this.size = size;
      this.mtimeNs = st.mtimeNs ?? mtimeNs;
      this.totalBytesRead += n + got;
      this.cached = null;
      return { change: "appended", bytesRead: n + got };
    } finally {
      closeSync(fd);
    }
  }

  private reset(): void {
    this.reader = new SessionReader(this.file, this.options);
    this.source = new FileBodySource(this.file, this.options);
    this.feeder = new ChunkFeeder(this.reader, this.source);
    this.cached = null;
  }

  /** Read from where the feeder is to `size`, a chunk at a time with the event loop let run in between. */
  private async readFrom(handle: FileHandle, size: number): Promise<number> {
    let read = 0;
    for (let at = this.feeder.at; at < size;) {
      if (read > 0) await yieldToEventLoop();
      const chunk = await readAt(handle, at, Math.min(CHUNK_BYTES, size - at));
      if (chunk.length === 0) break;
      at += chunk.length;
      read += chunk.length;
      this.feeder.push(chunk);
    }
    return read;
  }

  /** The session as of the last update. A pending partial line is reported, not parsed. */
  result(): ParseResult {
    if (this.cached) return this.cached;
    const pending = this.feeder.pendingBytes;
    const r = this.reader.result(pending === 0);
    if (pending > 0) {
      const d: Diagnostic = {
        line: this.feeder.nextLine,
        severity: "warning",
        code: "truncated-last-line",
        message:
          `last line is incomplete (${pending} bytes, no newline): ` +
          "the agent is writing or crashed; held back until it is complete",
      };
      if (r.ok) {
        r.session.diagnostics.push(d);
        r.session.truncatedTail = true;
      } else {
        r.diagnostics.push(d);
        if (r.rejection.code === "empty-file") {
          r.rejection = {
            line: 1,
            code: "no-header",
            message: `the first line is still being written (${pending} bytes, no newline)`,
          };
        }
      }
    }
    this.cached = r;
    return r;
  }
}
