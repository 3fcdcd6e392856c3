/**
 * `pi-sessions export FILE`: the branch ending at a leaf (default: the active leaf), root first, as Markdown or as one
 * self-contained HTML file. A fork's entries copied from its parent are marked as inherited; OMP images stored as blobs
 * are embedded from the session's own agent dir (HTML).
 */
import { resolve } from "node:path";
import { ExportTargetError, writeExport } from "../node/exportWrite.js";
import { ioReason } from "../node/ioReason.js";
import { readSessionFile } from "../node/readSession.js";
import { forkFactsOf } from "../node/store/index.js";
import { exportBranch } from "../node/views/exportBranch.js";
import {
  EXIT_NOT_WRITTEN,
  EXIT_OK,
  type Io,
  reportCacheErrors,
  reportUnreadable,
  storeLocation,
  text,
  UsageError,
} from "./args.js";

interface ExportValues {
  /** Only with --database (teamExport.ts): refused here. */
  machine?: string;
  leaf?: string;
  format: string;
  output?: string;
  agentDir?: string[];
  cache?: boolean;
}

export async function exportCommand(file: string, values: ExportValues, io: Io): Promise<number> {
  if (values.format !== "md" && values.format !== "html") throw new UsageError("--format must be md or html");
  if (values.machine !== undefined)
    throw new UsageError("--machine picks a session of the team database: use it with --database");
  // An export never replaces a session: not the one exported, and no other (checked again when it is written).
  if (values.output !== undefined && /\.jsonl$/i.test(values.output))
    throw new UsageError(`-o ${JSON.stringify(values.output)}: an export is not written over a .jsonl file`);
  const path = resolve(file);
  const read = await readSessionFile(path, { validate: false });
  if (!read.ok) return reportUnreadable(read, false, io);
  const session = read.session;
  if (values.leaf !== undefined && !session.byId.has(values.leaf))
    throw new UsageError(`--leaf ${JSON.stringify(values.leaf)} is not an entry of ${file}`);
  // A fork's copies of its parent's entries, by the store's rule (the same as usage's), from its relatives alone.
  const location = storeLocation({ agentDir: values.agentDir, cache: values.cache });
  const { session: stored, errors } = await forkFactsOf(path, read, { ...location, ompHistory: true });
  reportCacheErrors(errors, location.cacheFile, io);
  const { text: output, entries } = await exportBranch(session, stored, {
    leafId: values.leaf,
    format: values.format,
  });
  if (values.output === undefined || values.output === "-") {
    io.out(output.replace(/\n$/, ""));
    return EXIT_OK;
  }
  try {
    await writeExport(values.output, output);
  } catch (err) {
    text(io).err(err instanceof ExportTargetError ? err.message : `${values.output}: ${ioReason(err)}`);
    return EXIT_NOT_WRITTEN;
  }
  text(io).err(`wrote ${values.output} (${entries} entries)`);
  return EXIT_OK;
}
