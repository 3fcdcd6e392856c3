/**
 * Where an export is written (`pi-sessions export -o`, the extension's Export Branch): only a new file, or a regular
 * file of ours that is not a session. The name is checked first (`.jsonl`), then the path itself, never followed:
 * `lstat` refuses a symbolic link (one named `report.md` may point at a session) and anything not a regular file, a
 * file with other hard links is refused (it is another name of some file), and an existing file that holds a session
 * header line anywhere is refused (the reader finds one past malformed lines and title records). The file is then
 * opened with `O_NOFOLLOW`, checked on the handle to be the file
 * `lstat` saw, and only then truncated and written.
 */
import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, open } from "node:fs/promises";
import { readAt } from "./fileAccess.js";

export class ExportTargetError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = "ExportTargetError";
  }
}

/** An existing target larger than this is not read through to tell whether it is a session: it is refused. */
const CHECK_MAX = 256 * 1024 * 1024;

/**
 * Whether the file holds a session header line anywhere. The reader takes a header after a BOM, blank lines,
 * malformed lines and any number of title records, so no prefix of lines is enough to say a file is not a session;
 * refusing a file that only holds a header line costs less than replacing a session.
 */
function holdsSessionHeader(bytes: Buffer): boolean {
  for (const raw of bytes.toString("utf8").split("\n")) {
    // Only an object can be a header (and JSON may spell "session" with escapes): every line that starts one is parsed.
    const line = raw.replace(/^\uFEFF/, "").trimStart();
    if (!line.startsWith("{")) continue;
    try {
      const v = JSON.parse(line) as { type?: unknown } | null;
      if (v && typeof v === "object" && v.type === "session") return true;
    } catch {
      // not a record
    }
  }
  return false;
}

async function existing(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

/** Refuse what an export must not replace; the reason names what the path is. */
function refusal(st: Stats): string | null {
  if (st.isSymbolicLink()) return "is a symbolic link; an export is written only to a file itself";
  if (!st.isFile()) return "is not a regular file";
  if (st.nlink > 1) return "has other hard links; an export is not written through one";
  return null;
}

/** Write `text` to `path` as an export, or throw an `ExportTargetError` naming the path and the reason. */
export async function writeExport(path: string, text: string): Promise<void> {
  if (/\.jsonl$/i.test(path)) throw new ExportTargetError(path, "an export is not written over a .jsonl file");
  const before = await existing(path);
  const refused = before && refusal(before);
  if (refused) throw new ExportTargetError(path, refused);
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDWR | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0), 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOOP") throw new ExportTargetError(path, "is a symbolic link");
    throw err;
  }
  try {
    const st = await handle.stat();
    // Swapped between the lstat and the open (or created by someone else since): check it again, on the handle.
    const changed = before ? st.ino !== before.ino || st.dev !== before.dev : st.size > 0;
    const again = refusal(st) ?? (changed ? "changed while it was being opened" : null);
    if (again) throw new ExportTargetError(path, again);
    if (st.size > CHECK_MAX) throw new ExportTargetError(path, "is too large to check that it is not a session");
    if (st.size > 0 && holdsSessionHeader(await readAt(handle, 0, st.size)))
      throw new ExportTargetError(path, "is a session file; an export is not written over a session");
    await handle.truncate(0);
    // From position 0 (a read at a position moves no file offset), every byte (a loop, unlike one write).
    await handle.writeFile(text, "utf8");
  } finally {
    await handle.close();
  }
}
