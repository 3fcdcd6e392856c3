/**
 * The file-system calls the store makes; tests wrap the real ones to count reads. Listing calls (directory entries,
 * stats, a few KB at each end of a file) are synchronous: each takes microseconds, where an asynchronous call costs a
 * thread-pool round trip; the store does them in slices and yields to the event loop between slices. Whole files
 * are read and parsed asynchronously, in chunks.
 */
import * as syncFs from "node:fs";
import type { ParseResult } from "../../core/session/index.js";
import { openRegularSync, readFullySync } from "../fileAccess.js";
import { readSessionFile, yieldToEventLoop } from "../readSession.js";

/** What the store needs of a file's stat. `dev` and `ino` identify the file (two paths to one file are one session). */
export interface FileStat {
  size: number;
  mtimeNs: bigint;
  dev?: bigint;
  ino?: bigint;
  isFile(): boolean;
  isDirectory(): boolean;
}

export interface StoreFs {
  readdir(dir: string): { name: string; isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }[];
  stat(file: string): FileStat;
  /**
   * The whole session, parsed (large bodies are read back from the file when needed, so no copy of it is held).
   * Throws when the file cannot be read.
   */
  readSession(file: string): Promise<ParseResult>;
  /**
   * One open of a regular file: its stat (from the handle), and its first and last `length` bytes when it is longer
   * than both (null otherwise). The bytes are valid until the next call. Throws when the file cannot be opened or
   * is no regular file.
   */
  readEnds(file: string, length: number): { stat: FileStat; ends: { head: Uint8Array; tail: Uint8Array } | null };
  realpath(p: string): string;
}

/** `readEnds` reads into this buffer: a listing probes thousands of files, each read used before the next. */
let endsBuffer = Buffer.alloc(0);

export const realFs: StoreFs = {
  readdir: (dir) => syncFs.readdirSync(dir, { withFileTypes: true }),
  stat: (file) => {
    const s = syncFs.statSync(file, { bigint: true });
    return {
      size: Number(s.size),
      mtimeNs: s.mtimeNs,
      dev: s.dev,
      ino: s.ino,
      isFile: () => s.isFile(),
      isDirectory: () => s.isDirectory(),
    };
  },
  // Session files only ever through these: non-blocking opens, regular files only, reads bounded by fstat.
  readSession: async (file) => {
    const r = await readSessionFile(file);
    if (!r.ok && r.rejection.code === "unreadable") throw new Error(r.rejection.message);
    return r;
  },
  readEnds: (file, length) => {
    const { fd, id } = openRegularSync(file);
    try {
      const stat = { ...id, isFile: () => true, isDirectory: () => false };
      if (id.size <= 2 * length) return { stat, ends: null };
      if (endsBuffer.length < 2 * length) endsBuffer = Buffer.allocUnsafe(2 * length);
      const both = endsBuffer;
      const head = both.subarray(0, readFullySync(fd, both.subarray(0, length), 0));
      const tail = both.subarray(
        length,
        length + readFullySync(fd, both.subarray(length, 2 * length), id.size - length),
      );
      return { stat, ends: { head, tail } };
    } finally {
      syncFs.closeSync(fd);
    }
  },
  realpath: (p) => syncFs.realpathSync(p),
};

/** Lets the event loop run every `every` calls of `tick()` (file-system calls in a listing are done in slices). */
export function slicer(every: number): () => Promise<void> | undefined {
  let n = 0;
  return () => (++n % every === 0 ? yieldToEventLoop() : undefined);
}
