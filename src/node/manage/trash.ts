/**
 * Delete a session to the trash and put it back. On Linux and the BSDs the trash is the freedesktop.org one
 * (`$XDG_DATA_HOME/Trash`, else `~/.local/share/Trash`): the file moves to `files/<name>` and `info/<name>.trashinfo`
 * says where it was and when (what pi's picker does through the `trash` tool, and what file managers restore from).
 * The info file is created first, exclusively, then the file is renamed into the trash: a rename, so its bytes, inode
 * and times are kept and a restore is byte-identical. An Oh My Pi session's artifacts folder (its subagents' sessions,
 * `<file without .jsonl>/`) goes with it, as OMP's `/delete` removes it. "Recently deleted" is read from the trash
 * itself, so a session trashed by pi, a file manager or another window is found too.
 */
import { constants } from "node:fs";
import { link, lstat, mkdir, open, readdir, readFile, rename, rm, unlink } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, sep } from "node:path";
import { ManageRefused } from "./appendEntry.js";

/** One item in the trash: where it was, and where it is now. */
export interface TrashedItem {
  /** The path it had (the trash info's `Path`). */
  original: string;
  /** Its name in the trash (`files/<name>`, `info/<name>.trashinfo`). */
  name: string;
  /** When it was deleted (the trash info's `DeletionDate`, local time as the spec writes it). */
  deletedAt: string;
  /** Whether it is a folder (an OMP session's artifacts). */
  folder: boolean;
}

/** Whether this platform's trash is the freedesktop.org one (everything but macOS and Windows). */
export function hasXdgTrash(platform: NodeJS.Platform = process.platform): boolean {
  return platform !== "darwin" && platform !== "win32";
}

export function trashDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "Trash");
}

/** The trash info's `Path`: the absolute path, URL-escaped as the spec asks (all but unreserved bytes and `/`). */
function escapePath(path: string): string {
  return [...Buffer.from(path, "utf8")]
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9\-._~/]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
    })
    .join("");
}

function unescapePath(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** `YYYY-MM-DDThh:mm:ss` in local time, as the spec (and every file manager) writes DeletionDate. */
function localTimestamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return (
    `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T` +
    `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`
  );
}

/** What moving `file` to the trash would take with it: the file, and an OMP session's artifacts folder. */
export async function trashItems(file: string): Promise<string[]> {
  const artifacts = file.endsWith(".jsonl") ? file.slice(0, -".jsonl".length) : null;
  const folder = artifacts ? await lstat(artifacts).catch(() => null) : null;
  return folder?.isDirectory() ? [file, artifacts!] : [file];
}

/** Create `info/<name>.trashinfo` exclusively under a name free in both halves of the trash; the name taken. */
async function reserveName(trash: string, path: string, date: string): Promise<string> {
  const base = basename(path);
  for (let n = 1; n < 10_000; n++) {
    const name = n === 1 ? base : `${base}.${n}`;
    if (await lstat(join(trash, "files", name)).catch(() => null)) continue;
    try {
      const handle = await open(
        join(trash, "info", `${name}.trashinfo`),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
        0o600,
      );
      try {
        await handle.writeFile(`[Trash Info]\nPath=${escapePath(path)}\nDeletionDate=${date}\n`);
      } finally {
        await handle.close();
      }
      return name;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  throw new Error("no free name in the trash");
}

/**
 * Move `file` (and its artifacts folder) to the trash; what was moved. Nothing is moved when the trash cannot take
 * it: a trash on another file system (a rename cannot cross one, and a copy would not restore byte for byte).
 */
export async function trashSession(file: string, env: NodeJS.ProcessEnv = process.env): Promise<TrashedItem[]> {
  if (!hasXdgTrash())
    throw new ManageRefused(file, "this system's trash is not the freedesktop.org trash; nothing was moved");
  const trash = trashDir(env);
  try {
    await mkdir(join(trash, "files"), { recursive: true, mode: 0o700 });
    await mkdir(join(trash, "info"), { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new ManageRefused(file, `the trash ${trash} cannot be written (${code(err)}); nothing was moved`);
  }
  const date = localTimestamp(new Date());
  const moved: TrashedItem[] = [];
  for (const path of await trashItems(file)) {
    let name: string;
    try {
      name = await reserveName(trash, path, date);
    } catch (err) {
      throw new ManageRefused(file, `the trash ${trash} cannot be written (${code(err)})${movedYet(moved)}`);
    }
    try {
      await rename(path, join(trash, "files", name));
    } catch (err) {
      await rm(join(trash, "info", `${name}.trashinfo`), { force: true }).catch(() => undefined);
      const why = code(err) === "EXDEV" ? `the trash ${trash} is on another file system` : code(err);
      throw new ManageRefused(file, `${path} was not moved to the trash (${why})${movedYet(moved)}`);
    }
    moved.push({ original: path, name, deletedAt: date, folder: path !== file });
  }
  return moved;
}

const movedYet = (moved: TrashedItem[]) =>
  moved.length ? `; ${moved.map((m) => m.original).join(", ")} already moved (restore it)` : "; nothing was moved";

const code = (err: unknown) => (err as NodeJS.ErrnoException).code ?? String(err);

/** Every item in the trash that was a session file or folder under one of `dirs`, newest deletion first. */
export async function trashedUnder(dirs: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  const trash = trashDir(env);
  const names = await readdir(join(trash, "info")).catch(() => [] as string[]);
  const items: TrashedItem[] = [];
  for (const entry of names) {
    if (!entry.endsWith(".trashinfo")) continue;
    const text = await readFile(join(trash, "info", entry), "utf8").catch(() => "");
    const path = unescapePath(/^Path=(.*)$/m.exec(text)?.[1] ?? "");
    const deletedAt = /^DeletionDate=(.*)$/m.exec(text)?.[1] ?? "";
    if (!path || !isAbsolute(path) || !dirs.some((d) => path.startsWith(d + sep))) continue;
    const name = entry.slice(0, -".trashinfo".length);
    const st = await lstat(join(trash, "files", name)).catch(() => null);
    if (!st) continue;
    items.push({ original: path, name, deletedAt, folder: st.isDirectory() });
  }
  return items.sort((a, b) => b.deletedAt.localeCompare(a.deletedAt) || a.original.localeCompare(b.original));
}

/** The trashed session file's first bytes (its header), to find it by session id. */
export async function trashedHead(item: TrashedItem, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const handle = await open(join(trashDir(env), "files", item.name), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

/** Put `item` back where it was; refused, nothing moved, when something is there now. */
export async function restoreItem(item: TrashedItem, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const trash = trashDir(env);
  if (await lstat(item.original).catch(() => null))
    throw new ManageRefused(item.original, "a file is there now; nothing was restored");
  await mkdir(dirname(item.original), { recursive: true });
  const from = join(trash, "files", item.name);
  try {
    // A file: a hard link cannot replace what appeared there meanwhile (a folder has no such call: renamed).
    if (item.folder) await rename(from, item.original);
    else {
      await link(from, item.original);
      await unlink(from);
    }
  } catch (err) {
    const why = code(err) === "EEXIST" ? "a file is there now" : code(err);
    throw new ManageRefused(item.original, `could not be restored from ${trash} (${why}); nothing was restored`);
  }
  await rm(join(trash, "info", `${item.name}.trashinfo`), { force: true });
}
