/** `pi-sessions rename` and `label`: a name or a label appended as the agent appends it (src/node/manage). */
import { type Appended, labelEntry, ManageRefused, renameSession } from "../node/manage/appendEntry.js";
import { manageableSession } from "../node/manage/sessionFile.js";
import { resolveRoots } from "../node/roots.js";
import { terminalSafe } from "../protocol/format.js";
import { EXIT_NOT_WRITTEN, EXIT_OK, type Io, text } from "./args.js";

export interface ManageValues {
  agentDir?: string[];
  sessionDir?: string[];
  json?: boolean;
  dryRun?: boolean;
}

export function renameCli(file: string, name: string, values: ManageValues, io: Io): Promise<number> {
  return report(io, values, "rename", async (real) => renameSession(real, name, { dryRun: values.dryRun }), file);
}

export function labelCli(
  file: string,
  entryId: string,
  label: string | undefined,
  values: ManageValues,
  io: Io,
): Promise<number> {
  return report(io, values, "label", (real) => labelEntry(real, entryId, label, { dryRun: values.dryRun }), file);
}

async function report(
  io: Io,
  values: ManageValues,
  command: string,
  act: (real: string) => Promise<Appended>,
  file: string,
): Promise<number> {
  try {
    const roots = resolveRoots({ agentDirs: values.agentDir, sessionDirs: values.sessionDir });
    const done = await act(await manageableSession(file, roots));
    if (values.json) io.out(JSON.stringify({ file: done.file, written: done.written, entry: done.record }));
    else text(io).out(terminalSafe(`${done.written ? "appended" : "would append"} to ${done.file}: ${describe(done)}`));
    return done.written ? EXIT_OK : EXIT_NOT_WRITTEN;
  } catch (err) {
    if (!(err instanceof ManageRefused)) throw err;
    if (values.json) io.out(JSON.stringify({ file, written: false, reason: err.message }));
    else text(io).err(terminalSafe(`pi-sessions ${command}: ${err.message}`));
    return EXIT_NOT_WRITTEN;
  }
}

function describe({ record }: Appended): string {
  if (record.type === "session_info") return record.name ? `name ${JSON.stringify(record.name)}` : "the name cleared";
  if (record.type === "title_change") return `title ${JSON.stringify(record.title)} (and the title slot)`;
  return record.label === undefined
    ? `the label on ${String(record.targetId)} removed`
    : `label ${JSON.stringify(record.label)} on ${String(record.targetId)}`;
}
