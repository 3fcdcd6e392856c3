/**
 * Which files our management commands may write: a session file (`.jsonl`, a regular file) inside one of the
 * configured session roots, checked on its real path, so that no link or `..` leads a write outside them.
 */
import { realpath, stat } from "node:fs/promises";
import { sep } from "node:path";
import type { SessionRoot } from "../roots.js";
import { ManageRefused } from "./appendEntry.js";

export async function manageableSession(file: string, roots: readonly SessionRoot[]): Promise<string> {
  let real: string;
  try {
    real = await realpath(file);
  } catch (err) {
    throw new ManageRefused(file, `no such session file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  if (!real.endsWith(".jsonl") || !(await stat(real)).isFile())
    throw new ManageRefused(file, `not a session file (a .jsonl file); nothing was written`);
  const dirs = await Promise.all(roots.map((r) => realpath(r.dir).catch(() => null)));
  if (!dirs.some((d) => d !== null && real.startsWith(d + sep)))
    throw new ManageRefused(
      file,
      `not under the session folders (${roots.map((r) => r.dir).join(", ") || "none"}); nothing was written`,
    );
  return real;
}
