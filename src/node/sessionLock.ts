/**
 * The two lock files next to a session (see `sessionWrite.ts` for what each protects):
 *
 * - writer `.<name>.writer.lock`, ours, content `<pid>:<ms>:<host>:<nonce>`: stale when its pid is gone on this host,
 *   or older than an hour;
 * - publish `.<name>.lock`, OMP's, content `<pid>:<ms>` (OMP parses it): held for milliseconds, so stale by age alone
 *   (a pid says nothing about a writer in another pid namespace, a container sharing the home directory).
 *
 * Both are created with `O_EXCL`. Taking over a stale lock is serialized through a third file (`…lock.takeover`,
 * also `O_EXCL`) and re-checks, under it, that the lock is still the very file judged stale: two writers that both saw
 * the same stale lock cannot both remove it and then both hold a new one. A lock is removed on release only while
 * it is still ours (same inode, same content), never a successor's.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open, realpath, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";

export type LockKind = "writer" | "publish";

/** A writer never runs this long; a lock this old is left over whatever its pid says. */
const WRITER_STALE_MS = 60 * 60 * 1000;
/** OMP holds its publish lock for one line; one this old is left over by a crash. */
const PUBLISH_STALE_MS = 10_000;
/** A takeover takes a few milliseconds; a takeover file this old was left by a crash. */
const TAKEOVER_STALE_MS = 10_000;

/** The lock file for a session, next to the real file (a symlinked path shares the real file's locks). */
async function lockPath(file: string, kind: LockKind): Promise<string> {
  const real = await realpath(file).catch(() => file);
  return join(dirname(real), `.${basename(real)}${kind === "writer" ? ".writer" : ""}.lock`);
}

/** What we saw of a lock file: enough to tell that it is still the same file later. */
interface Seen {
  ino: bigint;
  content: string;
}

async function look(lock: string): Promise<(Seen & { ageMs: number }) | null> {
  try {
    const handle = await open(lock, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const st = await handle.stat({ bigint: true });
      if (!st.isFile() || st.size > 4096n) return null; // not a lock of anyone's: never ours to remove
      const content = await handle.readFile("utf8");
      return { ino: st.ino, content, ageMs: Date.now() - Number(st.mtimeMs) };
    } finally {
      await handle.close();
    }
  } catch {
    return null; // gone meanwhile, or unreadable
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function isStale(kind: LockKind, seen: Seen & { ageMs: number }): boolean {
  if (kind === "publish") return seen.ageMs > PUBLISH_STALE_MS;
  if (seen.ageMs > WRITER_STALE_MS) return true;
  const [pid, , host] = seen.content.trim().split(":");
  const n = Number(pid);
  if (!Number.isInteger(n) || n <= 0) return false;
  return host === hostname() && !alive(n);
}

async function create(lock: string, content: string): Promise<Seen | null> {
  let handle;
  try {
    handle = await open(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return null;
    throw err;
  }
  try {
    await handle.writeFile(content);
    return { ino: (await handle.stat({ bigint: true })).ino, content };
  } finally {
    await handle.close();
  }
}

/** Remove `lock` only if it is still the file we saw. */
async function removeIfSame(lock: string, seen: Seen): Promise<void> {
  const now = await look(lock);
  if (now && now.ino === seen.ino && now.content === seen.content) await unlink(lock).catch(() => undefined);
}

/** Remove a stale lock, serialized with every other writer doing the same. */
async function takeOver(lock: string, stale: Seen): Promise<void> {
  const guard = `${lock}.takeover`;
  const mine = await create(guard, `${process.pid}:${Date.now()}:${randomBytes(8).toString("hex")}\n`);
  if (!mine) {
    const other = await look(guard);
    if (other && other.ageMs > TAKEOVER_STALE_MS) await removeIfSame(guard, other);
    return; // someone else is taking it over; the caller looks again
  }
  try {
    await removeIfSame(lock, stale);
  } finally {
    await removeIfSame(guard, mine);
  }
}

/** Take `lock`, waiting up to `waitMs`; null when it stays held by someone else. */
async function acquire(lock: string, kind: LockKind, waitMs: number): Promise<Seen | null> {
  const content =
    kind === "publish"
      ? `${process.pid}:${Date.now()}\n`
      : `${process.pid}:${Date.now()}:${hostname()}:${randomBytes(8).toString("hex")}\n`;
  const until = Date.now() + waitMs;
  for (;;) {
    const held = await create(lock, content);
    if (held) return held;
    const seen = await look(lock);
    if (seen && isStale(kind, seen)) {
      await takeOver(lock, seen);
      continue;
    }
    if (Date.now() >= until) return null;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Run `fn` holding the `kind` lock of `file`; `onBusy()` is thrown when another holds it past `waitMs`. */
export async function withLock<T>(
  file: string,
  kind: LockKind,
  waitMs: number,
  onBusy: () => Error,
  fn: () => Promise<T>,
): Promise<T> {
  const lock = await lockPath(file, kind);
  const held = await acquire(lock, kind, waitMs);
  if (!held) throw onBusy();
  try {
    return await fn();
  } finally {
    await removeIfSame(lock, held);
  }
}

/** Whether someone holds the `kind` lock of `file` now (a stale lock counts as free). */
export async function lockHeld(file: string, kind: LockKind): Promise<boolean> {
  const seen = await look(await lockPath(file, kind));
  return seen !== null && !isStale(kind, seen);
}
