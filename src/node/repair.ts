/**
 * Repair a session whose last line was left incomplete (an agent crashed mid-write): remove only that final,
 * unterminated line, after writing a backup copy next to the file. Nothing else in the file changes, and nothing is
 * done if the file changed since it was inspected or an agent wrote it in the last few seconds.
 */
import { copyFile, open, readFile, stat } from "node:fs/promises";
import { parseLine } from "../core/jsonl.js";

export interface TailInspection {
  /** Byte offset where the incomplete line starts. */
  offset: number;
  /** The incomplete line (decoded, for showing it before the repair). */
  text: string;
  bytes: number;
  size: number;
  mtimeNs: bigint;
}

/** The incomplete last line, or null when the file ends with a newline (nothing to repair). */
export async function inspectTail(file: string): Promise<TailInspection | null> {
  const st = await stat(file, { bigint: true });
  const bytes = await readFile(file);
  if (bytes.length === 0 || bytes[bytes.length - 1] === 0x0a) return null;
  const offset = bytes.lastIndexOf(0x0a) + 1;
  const text = bytes.subarray(offset).toString("utf8");
  // A complete record that only lacks its newline is not damage: pi and OMP read it.
  if (parseLine(text).ok) return null;
  return { offset, text, bytes: bytes.length - offset, size: Number(st.size), mtimeNs: st.mtimeNs };
}

export interface RepairResult {
  backup: string;
  removedBytes: number;
}

export async function repairTail(
  file: string,
  seen: TailInspection,
  options: { busyWindowMs?: number; now?: () => number } = {},
): Promise<RepairResult> {
  const st = await stat(file, { bigint: true });
  if (Number(st.size) !== seen.size || st.mtimeNs !== seen.mtimeNs)
    throw new Error("the file changed since it was inspected; nothing was repaired");
  const now = options.now?.() ?? Date.now();
  if (now - Number(st.mtimeNs / 1_000_000n) < (options.busyWindowMs ?? 3000))
    throw new Error(
      "the file was written in the last few seconds: an agent may still be writing it; nothing was repaired",
    );
  const backup = `${file}.bak-${new Date(now).toISOString().replace(/[:.]/g, "-")}`;
  await copyFile(file, backup);
  const handle = await open(file, "r+");
  try {
    const again = await handle.stat({ bigint: true });
    if (Number(again.size) !== seen.size || again.mtimeNs !== seen.mtimeNs)
      throw new Error("the file changed while the backup was written; nothing was repaired");
    await handle.truncate(seen.offset);
  } finally {
    await handle.close();
  }
  return { backup, removedBytes: seen.bytes };
}
