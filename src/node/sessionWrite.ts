/**
 * How our writers (Compact Branch, Repair) touch a session file, and how they exclude each other and the agents:
 *
 * - The writer lock `.<name>.writer.lock`, held for a whole run, makes our writers exclude each other on every session
 *   file, pi's and OMP's, across processes (the CLI, the extension in any number of windows). A second writer is
 *   refused at once (`busy`), before it pays for a provider call.
 * - The publish lock `.<name>.lock` is OMP's own (`O_EXCL`, content `<pid>:<ms>`),
 *   held only around the write itself, so that OMP's appends and ours never interleave. pi takes no lock; the
 *   same-handle check below is what protects a pi file.
 * - The write itself: the file is opened without following it anywhere new (no create), checked on that handle to be
 *   exactly what was read (size, mtime, inode, the last line), and only then written (`changed` otherwise).
 *
 * How the locks are taken, found stale and taken over: `sessionLock.ts`.
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { type FileIdentity, openRegular, readAt } from "./fileAccess.js";
import { lockHeld, withLock } from "./sessionLock.js";

export class SessionWriteError extends Error {
  constructor(
    readonly reason: "busy" | "changed",
    message: string,
  ) {
    super(message);
    this.name = "SessionWriteError";
  }
}

/** What a file was when it was read: compared again on the write handle just before writing. */
export interface Snapshot extends FileIdentity {
  lastLineHash: string;
}

/** How much of the end of the file the last-line check compares. */
const TAIL = 1 << 20;
/** How long the write waits for OMP's publish lock (OMP itself waits up to 500 ms). */
const PUBLISH_WAIT_MS = 500;

const sha256 = (s: Uint8Array) => createHash("sha256").update(s).digest("hex");

function lastLineHash(bytes: Uint8Array): string {
  const end = bytes.length;
  let start = end - 1;
  while (start > 0 && bytes[start - 1] !== 0x0a) start--;
  return sha256(bytes.subarray(Math.max(0, start), end));
}

/** Read a session file and remember what it was. */
export async function snapshot(file: string): Promise<{ snap: Snapshot; bytes: Buffer }> {
  const { handle, id } = await openRegular(file);
  try {
    const bytes = await readAt(handle, 0, id.size);
    return { snap: { ...id, lastLineHash: lastLineHash(bytes.subarray(Math.max(0, bytes.length - TAIL))) }, bytes };
  } finally {
    await handle.close();
  }
}

/** Run `fn` as the only writer of this session among ours (CLI and extension windows); `busy` when another is. */
export function withWriterLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const busy = "another Pi Session Explorer writer (the CLI or another window) is working on this session";
  return withLock(file, "writer", 0, () => new SessionWriteError("busy", busy), fn);
}

/** Run `fn` holding OMP's publish lock for the session (waits briefly, as OMP does). */
function withPublishLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const busy = "the session's writer lock is held: Oh My Pi (or another writer) is writing this session";
  return withLock(file, "publish", PUBLISH_WAIT_MS, () => new SessionWriteError("busy", busy), fn);
}

/** Whether someone (OMP, or one of our writers) holds the session's publish lock now. */
export function publishLockHeld(file: string): Promise<boolean> {
  return lockHeld(file, "publish");
}

/**
 * Open `file` for writing and check, on that handle, that it is still exactly `before`; then call `write` with the
 * handle. Under the publish lock. `changed` when the file is gone, replaced, or different in any way.
 */
export async function writeIfUnchanged(
  file: string,
  before: Snapshot,
  write: (handle: FileHandle) => Promise<void>,
): Promise<void> {
  const changed = () => new SessionWriteError("changed", "the session changed since it was read; nothing was written");
  await withPublishLock(file, async () => {
    let handle;
    try {
      // No O_CREAT: a file that is gone stays gone. O_APPEND: a write goes to the end whatever else happens.
      handle = await open(file, constants.O_RDWR | constants.O_APPEND | (constants.O_NONBLOCK ?? 0));
    } catch {
      throw changed();
    }
    try {
      const st = await handle.stat({ bigint: true });
      if (!st.isFile() || st.ino !== before.ino || st.dev !== before.dev) throw changed();
      if (Number(st.size) !== before.size || st.mtimeNs !== before.mtimeNs) throw changed();
      const tail = await readAt(handle, Math.max(0, before.size - TAIL), Math.min(before.size, TAIL));
      if (lastLineHash(tail) !== before.lastLineHash) throw changed();
      await write(handle);
    } finally {
      await handle.close();
    }
  });
}

/**
 * Append `text` to `file` if it is still exactly `before` (see `writeIfUnchanged`). Every byte is written or none:
 * a short or failed write (a full disk) is cut back to the old end, unless something else has appended since.
 */
/**
 * Replace the file's first bytes with `next` (the same length), if they are still exactly `expected`: Oh My Pi's
 * title slot, which OMP itself rewrites in place. No other byte is touched; under the publish lock.
 */
export async function overwriteHeadIfUnchanged(file: string, expected: Buffer, next: Buffer): Promise<void> {
  if (next.length !== expected.length) throw new Error("a head rewrite must keep the file's length");
  const changed = () => new SessionWriteError("changed", "the session's first line changed since it was read");
  await withPublishLock(file, async () => {
    let handle;
    try {
      handle = await open(file, constants.O_RDWR | (constants.O_NONBLOCK ?? 0));
    } catch {
      throw changed();
    }
    try {
      const st = await handle.stat();
      if (!st.isFile() || st.size < expected.length) throw changed();
      const head = await readAt(handle, 0, expected.length);
      if (!head.equals(expected)) throw changed();
      let done = 0;
      while (done < next.length) {
        const { bytesWritten } = await handle.write(next, done, next.length - done, done);
        if (bytesWritten <= 0) throw new Error("the disk accepted no more bytes");
        done += bytesWritten;
      }
    } finally {
      await handle.close();
    }
  });
}

export function appendIfUnchanged(file: string, before: Snapshot, text: string): Promise<void> {
  const bytes = Buffer.from(text, "utf8");
  return writeIfUnchanged(file, before, async (handle) => {
    let done = 0;
    try {
      while (done < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
        if (bytesWritten <= 0) throw new Error("the disk accepted no more bytes");
        done += bytesWritten;
      }
    } catch (err) {
      const st = await handle.stat().catch(() => null);
      if (st && st.size === before.size + done) await handle.truncate(before.size).catch(() => undefined);
      throw err;
    }
  });
}
