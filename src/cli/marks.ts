/** `pi-sessions pin`, `unpin`, `archive`, `unarchive`: marks kept by session id (src/node/manage/marks.ts). */
import { cacheDir } from "../node/cacheDir.js";
import { ManageRefused } from "../node/manage/appendEntry.js";
import { type MarkTarget, ompAgentDirOf, SessionMarks } from "../node/manage/marks.js";
import { OMP_PINS_FILE, PinsFileError } from "../node/manage/ompPins.js";
import { manageableSession } from "../node/manage/sessionFile.js";
import { resolveRoots, type SessionRoot } from "../node/roots.js";
import { summarizeFileSync } from "../node/store/index.js";
import { terminalSafe } from "../protocol/format.js";
import { EXIT_NOT_WRITTEN, EXIT_OK, type Io, text } from "./args.js";
import type { ManageValues } from "./manage.js";
import { join } from "node:path";

export type MarkAction = "pin" | "unpin" | "archive" | "unarchive";

const PAST: Record<MarkAction, string> = {
  pin: "pinned",
  unpin: "unpinned",
  archive: "archived",
  unarchive: "unarchived",
};

async function targetOf(file: string, roots: readonly SessionRoot[]): Promise<MarkTarget> {
  const real = await manageableSession(file, roots);
  const summary = summarizeFileSync(real, "usage");
  if (typeof summary === "string") throw new ManageRefused(real, `cannot be read (${summary}); nothing was written`);
  if (!summary.ok)
    throw new ManageRefused(real, `line ${summary.rejection.line}: ${summary.rejection.message}; nothing was written`);
  return { id: summary.id, file: real, flavor: summary.flavor === "omp" ? "omp" : "pi" };
}

/** Where the mark is kept, for the message: OMP's pins file, or ours. */
function whereKept(action: MarkAction, t: MarkTarget, roots: readonly SessionRoot[], dir: string): string {
  const agentDir = action.endsWith("pin") && t.flavor === "omp" ? ompAgentDirOf(t.file, roots) : null;
  return agentDir ? join(agentDir, OMP_PINS_FILE) : join(dir, "session-marks.json");
}

export async function markCli(action: MarkAction, file: string, values: ManageValues, io: Io): Promise<number> {
  const roots = resolveRoots({ agentDirs: values.agentDir, sessionDirs: values.sessionDir });
  const dir = cacheDir();
  const marks = new SessionMarks(dir, () => roots);
  try {
    const t = await targetOf(file, roots);
    const on = action === "pin" || action === "archive";
    const kind = action.endsWith("pin") ? "pinned" : "archived";
    const where = whereKept(action, t, roots, dir);
    let changed: boolean;
    if (values.dryRun) changed = (await marks.read())[kind].has(t.id) !== on;
    else changed = kind === "pinned" ? await marks.setPinned(t, on) : await marks.setArchived(t, on);
    const written = changed && !values.dryRun;
    if (values.json) io.out(JSON.stringify({ file: t.file, id: t.id, action, changed, written, where }));
    else {
      const what = changed ? `${values.dryRun ? "would be " : ""}${PAST[action]}` : `already ${PAST[action]}`;
      text(io).out(terminalSafe(`${t.file}: ${what} (${where})`));
    }
    return written ? EXIT_OK : EXIT_NOT_WRITTEN;
  } catch (err) {
    if (!(err instanceof ManageRefused) && !(err instanceof PinsFileError)) throw err;
    if (values.json) io.out(JSON.stringify({ file, action, written: false, reason: err.message }));
    else text(io).err(terminalSafe(`pi-sessions ${action}: ${err.message}`));
    return EXIT_NOT_WRITTEN;
  }
}
