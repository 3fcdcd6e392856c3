/** `pi-sessions trash FILE` and `pi-sessions restore [FILE|ID]` (src/node/manage/deleteSession.ts). */
import { realpath } from "node:fs/promises";
import { ManageRefused } from "../node/manage/appendEntry.js";
import { deleteSession, recentlyDeleted, restoreSession } from "../node/manage/deleteSession.js";
import { manageableSession } from "../node/manage/sessionFile.js";
import { trashDir, trashItems } from "../node/manage/trash.js";
import { resolveRoots, type SessionRoot } from "../node/roots.js";
import { terminalSafe } from "../protocol/format.js";
import { EXIT_NOT_WRITTEN, EXIT_OK, type Io, text } from "./args.js";
import type { ManageValues } from "./manage.js";

const rootsOf = (values: ManageValues) => resolveRoots({ agentDirs: values.agentDir, sessionDirs: values.sessionDir });

/** The roots' real paths: what a trash entry's `Path` is compared with. */
const realDirs = async (roots: readonly SessionRoot[]) =>
  (await Promise.all(roots.map((r) => realpath(r.dir).catch(() => r.dir)))).filter(Boolean);

function refused(io: Io, values: ManageValues, command: string, file: string, err: unknown): number {
  if (!(err instanceof ManageRefused)) throw err;
  if (values.json) io.out(JSON.stringify({ file, written: false, reason: err.message }));
  else text(io).err(terminalSafe(`pi-sessions ${command}: ${err.message}`));
  return EXIT_NOT_WRITTEN;
}

export async function trashCli(file: string, values: ManageValues, io: Io): Promise<number> {
  try {
    const real = await manageableSession(file, rootsOf(values));
    if (values.dryRun) {
      const items = await trashItems(real);
      if (values.json) io.out(JSON.stringify({ file: real, written: false, wouldMove: items, trash: trashDir() }));
      else text(io).out(terminalSafe(`would move to ${trashDir()}: ${items.join(", ")}`));
      return EXIT_NOT_WRITTEN;
    }
    const moved = await deleteSession(real);
    if (values.json) io.out(JSON.stringify({ file: real, written: true, moved, trash: trashDir() }));
    else text(io).out(terminalSafe(`moved to ${trashDir()}: ${moved.map((m) => m.original).join(", ")}`));
    return EXIT_OK;
  } catch (err) {
    return refused(io, values, "trash", file, err);
  }
}

export async function restoreCli(which: string | undefined, values: ManageValues, io: Io): Promise<number> {
  const dirs = await realDirs(rootsOf(values));
  if (which === undefined) {
    const list = await recentlyDeleted(dirs);
    if (values.json) io.out(JSON.stringify({ trash: trashDir(), sessions: list }));
    else if (!list.length) text(io).out(terminalSafe(`no session under the session folders is in ${trashDir()}`));
    else
      for (const t of list) text(io).out(terminalSafe(`${t.file.deletedAt}  ${t.id ?? "(no id)"}  ${t.file.original}`));
    return EXIT_OK;
  }
  try {
    const target = which.includes("/") ? await realpath(which).catch(() => which) : which;
    if (values.dryRun) {
      const found = (await recentlyDeleted(dirs)).find((t) => t.file.original === target || t.id === target);
      if (!found) throw new ManageRefused(which, "no session of that path or id is in the trash");
      if (values.json) io.out(JSON.stringify({ file: found.file.original, written: false, session: found }));
      else text(io).out(terminalSafe(`would restore ${found.file.original}`));
      return EXIT_NOT_WRITTEN;
    }
    const done = await restoreSession(target, dirs);
    if (values.json) io.out(JSON.stringify({ file: done.file.original, written: true, session: done }));
    else text(io).out(terminalSafe(`restored ${[done.file, ...done.with].map((i) => i.original).join(", ")}`));
    return EXIT_OK;
  } catch (err) {
    return refused(io, values, "restore", which, err);
  }
}
