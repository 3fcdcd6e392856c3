/**
 * Delete a session to the trash, and restore one (trash.ts does the moving). A session an agent is writing (changed
 * in the last seconds, or OMP's lock on it held) is refused, as every write of ours refuses it.
 */
import { stat } from "node:fs/promises";
import { publishLockHeld } from "../sessionWrite.js";
import { ManageRefused } from "./appendEntry.js";
import { restoreItem, type TrashedItem, trashedHead, trashedUnder, trashSession } from "./trash.js";

export interface DeleteOptions {
  busyWindowMs?: number;
  env?: NodeJS.ProcessEnv;
}

export async function deleteSession(file: string, o: DeleteOptions = {}): Promise<TrashedItem[]> {
  const st = await stat(file).catch(() => null);
  if (!st) throw new ManageRefused(file, "no such session file; nothing was moved");
  if (Date.now() - st.mtimeMs < (o.busyWindowMs ?? 3000))
    throw new ManageRefused(
      file,
      "written in the last few seconds, so an agent is likely writing it; nothing was moved (retry when it is idle)",
    );
  if (await publishLockHeld(file))
    throw new ManageRefused(file, "Oh My Pi (or another writer) holds the session's lock; nothing was moved");
  return trashSession(file, o.env);
}

/** A trashed session: its file's item, and what went with it (its artifacts folder, deleted in the same second). */
export interface TrashedSession {
  file: TrashedItem;
  with: TrashedItem[];
  /** The session id in its header, when it has one. */
  id: string | null;
}

/** The sessions under `dirs` in the trash, newest deletion first. */
export async function recentlyDeleted(dirs: readonly string[], env?: NodeJS.ProcessEnv): Promise<TrashedSession[]> {
  const items = await trashedUnder(dirs, env);
  const out: TrashedSession[] = [];
  for (const item of items) {
    if (item.folder || !item.original.endsWith(".jsonl")) continue;
    const stem = item.original.slice(0, -".jsonl".length);
    const folders = items.filter((i) => i.folder && i.original === stem && i.deletedAt === item.deletedAt);
    const head = await trashedHead(item, env).catch(() => "");
    out.push({ file: item, with: folders, id: idIn(head) });
  }
  return out;
}

/** The session id of a header (pi's first line; OMP's second, after its title slot). */
function idIn(head: string): string | null {
  for (const line of head.split("\n").slice(0, 2)) {
    try {
      const record = JSON.parse(line) as { type?: unknown; id?: unknown };
      if (record.type === "session" && typeof record.id === "string") return record.id;
    } catch {
      // an unfinished line at the end of what was read
    }
  }
  return null;
}

/** Restore a trashed session (its path, or its session id), newest deletion first; what was restored. */
export async function restoreSession(
  which: string,
  dirs: readonly string[],
  env?: NodeJS.ProcessEnv,
): Promise<TrashedSession> {
  const found = (await recentlyDeleted(dirs, env)).find((t) => t.file.original === which || t.id === which);
  if (!found) throw new ManageRefused(which, "no session of that path or id is in the trash");
  await restoreItem(found.file, env);
  for (const folder of found.with) await restoreItem(folder, env);
  return found;
}
