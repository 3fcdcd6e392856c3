/**
 * The file-system calls the store makes; tests wrap the real ones to count reads. Listing calls (directory entries,
 * stats, a few KB at each end of a file) are synchronous: each takes microseconds, where an asynchronous call costs a
 * thread-pool round trip; the store does them in slices and yields to the event loop between slices. Whole files
 * are read and parsed asynchronously, in chunks.
 */
import * as syncFs from "node:fs";
import type { ParseResult } from "../../core/session.js";
import { readRegularRangeSync } from "../fileAccess.js";
import { readSessionFile } from "../readSession.js";

export interface StoreFs {
  readdir(dir: string): { name: string; isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }[];
  /** `dev` and `ino` identify the real file (two paths to one file are one session). */
  stat(file: string): {
    size: number;
    mtimeNs: bigint;
    dev?: bigint;
    ino?: bigint;
    isFile(): boolean;
    isDirectory(): boolean;
  };
  /**
   * The whole session, parsed (large bodies are read back from the file when needed, so no copy of it is held).
   * Throws when the file cannot be read.
   */
  readSession(file: string): Promise<ParseResult>;
  /** Up to `length` bytes at `position`, and as many at `position2` after them, from one open of the file. */
  readRange(file: string, position: number, length: number, position2?: number): Uint8Array;
  realpath(p: string): string;
}

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
  readRange: (file, position, length, position2) =>
    Buffer.concat(
      readRegularRangeSync(
        file,
        position2 === undefined
          ? [[position, length]]
          : [
              [position, length],
              [position2, length],
            ],
      ),
    ),
  realpath: (p) => syncFs.realpathSync(p),
};

/** Lets the event loop run every `every` calls of `tick()` (file-system calls in a listing are done in slices). */
export function slicer(every: number): () => Promise<void> | undefined {
  let n = 0;
  return () => (++n % every === 0 ? new Promise<void>((r) => setImmediate(r)) : undefined);
}
