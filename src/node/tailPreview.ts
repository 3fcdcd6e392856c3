/**
 * Tail-first reading of a large session: the latest turns of its active branch, read from the end of the file
 * before the whole of it is parsed. The Sessions view shows them at once under a large session and replaces them
 * when the full parse ends (a 1 GB session takes seconds to parse).
 */
import { decodeUtf8, parseLine } from "../core/jsonl.js";
import { isPlainObject, parseSession, pathTo, type Session } from "../core/session/index.js";
import { openRegular, readAt } from "./fileAccess.js";

/** How much of the file's end is read: about a thousand entries of an agent's session. */
const TAIL_BYTES = 4 * 1024 * 1024;
/** Where the header is looked for: OMP puts a 256-byte title slot before it (docs/session-format.md#t1). */
const HEAD_BYTES = 64 * 1024;

/**
 * The header record (and what precedes it) and the complete lines of the file's last `tailBytes`, parsed together:
 * the branch from the last entry (the leaf, docs/session-format.md#t3) up to the first entry whose parent lies
 * before those bytes, as a session of that branch alone. Entries carry no line numbers (0: a line is only known by
 * reading everything before it). Null when there is no such branch: a v1 session (its ids are line numbers), no
 * header among the first lines, a file no longer than the two reads, or no entry in its tail.
 */
export async function readTailPreview(file: string, tailBytes = TAIL_BYTES): Promise<Session | null> {
  const { handle, id } = await openRegular(file);
  let head: Buffer;
  let tail: Buffer;
  try {
    if (id.size <= HEAD_BYTES + tailBytes) return null;
    head = await readAt(handle, 0, HEAD_BYTES);
    tail = await readAt(handle, id.size - tailBytes, tailBytes);
  } finally {
    await handle.close();
  }
  const headerEnd = headerLineEnd(head);
  // Whole lines only: the first is cut, and a last one with no newline yet is being written (a full read holds it
  // back too).
  const firstLine = tail.indexOf(10) + 1;
  const lastEnd = tail.lastIndexOf(10) + 1;
  if (headerEnd < 0 || firstLine === 0 || lastEnd <= firstLine) return null;
  const r = parseSession(file, Buffer.concat([head.subarray(0, headerEnd), tail.subarray(firstLine, lastEnd)]), {
    validate: false,
    scan: true,
  });
  if (!r.ok || r.session.version < 2) return null;
  const s = r.session;
  const branch = pathTo(s, s.leafId);
  if (!branch.length) return null;
  // Line numbers counted from the header would be wrong: none is shown.
  for (const e of s.entries) (e as { line: number }).line = 0;
  const children = new Map(branch.slice(0, -1).map((e, i): [string, string[]] => [e.id, [branch[i + 1]!.id]]));
  return { ...s, roots: [branch[0]!.id], children, detached: [], diagnostics: [] };
}

/** The end (after its newline) of the header record among the first three lines of `head`, or -1. */
function headerLineEnd(head: Buffer): number {
  let start = 0;
  for (let line = 0; line < 3; line++) {
    const end = head.indexOf(10, start);
    if (end < 0) return -1;
    // A BOM may start the file (the reader accepts it, and so does this).
    const from = line === 0 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : start;
    const record = parseLine(decodeUtf8(head.subarray(from, end)));
    if (record.ok && isPlainObject(record.value) && record.value.type === "session") return end + 1;
    start = end + 1;
  }
  return -1;
}
