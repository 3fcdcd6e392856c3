/**
 * Repair a session whose last line was left incomplete (an agent crashed mid-write): remove only that final,
 * unterminated line, after writing a backup copy next to the file. Nothing else in the file changes, and nothing is
 * done if the file changed since it was inspected, an agent wrote it in the last few seconds, or it is not a session
 * (its first record must be a session header). The backup is created exclusively, never through a symlink.
 */
import { constants } from "node:fs";
import { open, unlink } from "node:fs/promises";
import { parseLine } from "../core/jsonl.js";
import { parseSession } from "../core/session/index.js";
import { readRegularFile } from "./fileAccess.js";
import { SessionWriteError, snapshot, withWriterLock, writeIfUnchanged } from "./sessionWrite.js";

export interface TailInspection {
  /** Byte offset where the incomplete line starts. */
  offset: number;
  /** The incomplete line (decoded, for showing it before the repair). */
  text: string;
  bytes: number;
  size: number;
  mtimeNs: bigint;
}

/** Not a session, not a regular file, or changed: nothing was repaired. */
export class RepairRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RepairRefused";
  }
}

/**
 * The incomplete last line, or null when the file ends with a newline (nothing to repair). Refuses (`RepairRefused`)
 * a path that is not a regular file or a file whose first record is not a session header (a script, a note).
 */
export async function inspectTail(file: string): Promise<TailInspection | null> {
  let bytes: Buffer;
  let mtimeNs: bigint;
  try {
    const read = await readRegularFile(file);
    bytes = read.bytes;
    mtimeNs = read.id.mtimeNs;
  } catch (err) {
    throw new RepairRefused(`${file}: ${(err as Error).message}`);
  }
  const parsed = parseSession(file, bytes, { validate: false });
  if (!parsed.ok && parsed.rejection.code !== "empty-file")
    throw new RepairRefused(`${file} is not a session (line ${parsed.rejection.line}: ${parsed.rejection.message})`);
  if (!parsed.ok) throw new RepairRefused(`${file} is empty: there is nothing to repair`);
  if (bytes.length === 0 || bytes[bytes.length - 1] === 0x0a) return null;
  const offset = bytes.lastIndexOf(0x0a) + 1;
  if (offset === 0) throw new RepairRefused(`${file} has no complete line: removing the last one would empty it`);
  const text = bytes.subarray(offset).toString("utf8");
  // A complete record that only lacks its newline is not damage: pi and OMP read it.
  if (parseLine(text).ok) return null;
  return { offset, text, bytes: bytes.length - offset, size: bytes.length, mtimeNs };
}

export interface RepairResult {
  backup: string;
  removedBytes: number;
}

/** How many names `FILE.bak-<time>[-n]` are tried before giving up. */
const BACKUP_ATTEMPTS = 100;

/**
 * Write `bytes` (the file exactly as checked) to a backup name that did not exist: `O_CREAT|O_EXCL|O_NOFOLLOW` fails
 * on any existing name, a symlink included, and never writes through one; a taken name gets a suffix. Readable by
 * the owner only, as a session may hold anything. A backup that could not be written whole is removed.
 */
async function exclusiveBackup(file: string, bytes: Buffer, now: number): Promise<string> {
  const base = `${file}.bak-${new Date(now).toISOString().replace(/[:.]/g, "-")}`;
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  for (let i = 0; i < BACKUP_ATTEMPTS; i++) {
    const name = i === 0 ? base : `${base}-${i}`;
    let handle;
    try {
      handle = await open(name, flags, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") continue;
      throw err;
    }
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } catch (err) {
      await handle.close();
      await unlink(name).catch(() => undefined);
      throw err;
    }
    await handle.close();
    return name;
  }
  throw new RepairRefused(`no free backup name next to ${file}; nothing was repaired`);
}

export async function repairTail(
  file: string,
  seen: TailInspection,
  options: { busyWindowMs?: number; now?: () => number } = {},
): Promise<RepairResult> {
  try {
    return await withWriterLock(file, async () => {
      const { snap, bytes } = await snapshot(file);
      if (snap.size !== seen.size || snap.mtimeNs !== seen.mtimeNs)
        throw new RepairRefused("the file changed since it was inspected; nothing was repaired");
      const now = options.now?.() ?? Date.now();
      if (now - Number(snap.mtimeNs / 1_000_000n) < (options.busyWindowMs ?? 3000))
        throw new RepairRefused(
          "the file was written in the last few seconds: an agent may still be writing it; nothing was repaired",
        );
      const backup = await exclusiveBackup(file, bytes, now);
      // Truncate on a handle checked to be the file as inspected (under the publish lock, like an append).
      await writeIfUnchanged(file, snap, (handle) => handle.truncate(seen.offset));
      return { backup, removedBytes: seen.bytes };
    });
  } catch (err) {
    if (err instanceof SessionWriteError)
      throw new RepairRefused(
        err.reason === "busy" ? err.message : "the file changed while the backup was written; nothing was repaired",
      );
    throw err;
  }
}
