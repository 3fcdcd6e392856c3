/**
 * The cache dir the CLI and the extension share for what both build over the same roots (the search index, the CLI's
 * metadata cache): `$PI_SESSIONS_CACHE_DIR`, else `$XDG_CACHE_HOME/pi-session-explorer`, else
 * `~/.cache/pi-session-explorer`. What is kept there holds what the sessions hold (prompts, cwds, the words of the
 * texts), so the dir is the user's alone: created 0700, tightened to 0700 when it is the user's and others could
 * read or write it, and refused when it belongs to someone else (who could plant links in it, or read it).
 */
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { PlainError } from "./ioReason.js";

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PI_SESSIONS_CACHE_DIR) return env.PI_SESSIONS_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "pi-session-explorer");
}

/** A cache dir we do not keep anything in: the message names it and says why. */
class CacheDirError extends PlainError {
  readonly code = "ECACHEDIR";
  constructor(
    readonly dir: string,
    reason: string,
  ) {
    super(`cache dir ${dir} ${reason}; nothing is cached there (set PI_SESSIONS_CACHE_DIR to a folder of your own)`);
    this.name = "CacheDirError";
  }
}

/**
 * Make `dir` (0700, parents as needed) or check the one there: a directory (a link to one is judged by what it points
 * at), owned by this user, and open to nobody else (tightened to 0700 when it was). Throws a `CacheDirError`.
 * Where the platform has no user ids (Windows) only the kind is checked: access there is by ACL.
 */
export function ensurePrivateDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || code === "ENOTDIR")
      throw new CacheDirError(dir, "is not a directory (or is inside a file)");
    throw new CacheDirError(dir, `cannot be created (${code ?? String(err)})`);
  }
  const st = statSync(dir);
  if (!st.isDirectory()) throw new CacheDirError(dir, "is not a directory");
  const uid = process.getuid?.();
  if (uid === undefined) return;
  if (st.uid !== uid) throw new CacheDirError(dir, `belongs to another user (uid ${st.uid})`);
  if ((st.mode & 0o077) === 0) return;
  try {
    chmodSync(dir, 0o700);
  } catch {
    throw new CacheDirError(
      dir,
      `is open to other users (mode ${(st.mode & 0o777).toString(8)}) and cannot be made private`,
    );
  }
}
