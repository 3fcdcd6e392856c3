/**
 * Write safety for our appends: a snapshot of the file as read (size, mtime, inode, a hash of the last line) and
 * the check that it is still exactly that just before the append, and OMP's lock file around the write.
 */
import { createHash } from "node:crypto";
import { open, readFile, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { CompactionFailure } from "./providers.js";

/** How much of the end of the file the last-line check compares. */
const TAIL = 1 << 20;

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

export interface Snapshot {
  size: number;
  mtimeNs: bigint;
  ino: bigint;
  lastLineHash: string;
}

function lastLineHash(bytes: Uint8Array): string {
  const end = bytes.length;
  let start = end - 1;
  while (start > 0 && bytes[start - 1] !== 0x0a) start--;
  return sha256(Buffer.from(bytes.subarray(Math.max(0, start), end)).toString("utf8"));
}

export async function snapshot(file: string): Promise<{ snap: Snapshot; bytes: Buffer }> {
  const st = await stat(file, { bigint: true });
  const bytes = await readFile(file);
  return {
    snap: {
      size: Number(st.size),
      mtimeNs: st.mtimeNs,
      ino: st.ino,
      lastLineHash: lastLineHash(bytes.subarray(Math.max(0, bytes.length - TAIL))),
    },
    bytes,
  };
}

export async function unchanged(file: string, before: Snapshot): Promise<boolean> {
  const st = await stat(file, { bigint: true });
  if (Number(st.size) !== before.size || st.mtimeNs !== before.mtimeNs || st.ino !== before.ino) return false;
  const h = await open(file, "r");
  try {
    const tail = Buffer.alloc(Math.min(before.size, TAIL));
    await h.read(tail, 0, tail.length, before.size - tail.length);
    return lastLineHash(tail) === before.lastLineHash;
  } finally {
    await h.close();
  }
}

/** Run `fn` holding OMP's lock file for the session (`.<name>.lock`); `session_busy` when OMP holds it. */
export async function withOmpLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const lock = join(dirname(file), `.${basename(file)}.lock`);
  let handle;
  try {
    handle = await open(lock, "wx");
  } catch {
    throw new CompactionFailure("session_busy", "Oh My Pi holds the session's lock: it is writing this session");
  }
  try {
    await handle.writeFile(`${process.pid}:${Date.now()}\n`);
    await handle.close();
    return await fn();
  } finally {
    await unlink(lock).catch(() => undefined);
  }
}
