/**
 * Where things are in a session file's bytes, for the search index: the head (up to the header line) and the tail
 * compared before an append is indexed alone, and where each line starts (a unit's line is read back for its
 * snippet).
 */
import { createHash } from "node:crypto";
import type { Session } from "../../core/session/index.js";

/** Bytes before the offset compared on an append: an edit there moves what follows. */
export const TAIL_BYTES = 256;

/**
 * What the index keeps of those bytes: their SHA-256, never the bytes (a session's last bytes are often a thinking
 * signature or encrypted reasoning, which the index holds nowhere).
 */
export function tailHash(bytes: Uint8Array): Buffer {
  return createHash("sha256")
    .update(bytes.subarray(Math.max(0, bytes.length - TAIL_BYTES)))
    .digest();
}

/** Bytes at the start of a file that hold its header: the OMP title slot and the header line. */
const HEAD_MAX = 64 * 1024;

/** The bytes up to the end of the header line (after OMP's title slot), or null when there is none near the start. */
export function headOf(bytes: Uint8Array): Buffer | null {
  let at = 0;
  for (let line = 0; line < 3 && at < Math.min(bytes.length, HEAD_MAX); line++) {
    const nl = bytes.indexOf(10, at);
    if (nl < 0) return null;
    try {
      const record = JSON.parse(Buffer.from(bytes.subarray(at, nl)).toString("utf8")) as { type?: unknown } | null;
      if (record?.type === "session") return Buffer.from(bytes.subarray(0, nl + 1));
    } catch {
      return null;
    }
    at = nl + 1;
  }
  return null;
}

/** Appends are taken in alone only in files whose entries carry their own ids (v3: pi 0.4x+ and OMP). */
export function appendable(session: Session): boolean {
  const version = session.header.version;
  return typeof version === "number" && version >= 3;
}

/** Where each line of `bytes` starts (line 1 at 0). */
export function lineStarts(bytes: Uint8Array): number[] {
  const starts = [0];
  for (let nl = bytes.indexOf(10); nl >= 0 && nl + 1 < bytes.length; nl = bytes.indexOf(10, nl + 1))
    starts.push(nl + 1);
  return starts;
}

/** Line `line` (1-based; 0: the title slot, line 1) of `bytes`: its offset and its length before the newline. */
export function lineAt(bytes: Uint8Array, starts: number[], line: number): { at: number; len: number } {
  const n = Math.max(1, line);
  const at = starts[n - 1] ?? bytes.length;
  const next = starts[n];
  const end = next === undefined ? (bytes[bytes.length - 1] === 10 ? bytes.length - 1 : bytes.length) : next - 1;
  return { at, len: end - at };
}
