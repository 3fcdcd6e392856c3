/**
 * `pi-sessions export FILE`: the branch ending at a leaf (default: the active leaf), root first, as Markdown or as one
 * self-contained HTML file. A fork's entries copied from its parent are marked as inherited; OMP images stored as blobs
 * are embedded from the session's own agent dir (HTML).
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { exportHtml } from "../core/export/html.js";
import { exportMarkdown } from "../core/export/markdown.js";
import { transcript, type TranscriptItem } from "../core/transcript.js";
import { agentDirOf, readBlob } from "../node/blobs.js";
import { ioReason } from "../node/ioReason.js";
import { readSessionFile } from "../node/readSession.js";
import { computeOwnership, sessionTitle } from "../node/store/index.js";
import { EXIT_NOT_WRITTEN, EXIT_OK, type Io, openStore, reportUnreadable, text, UsageError } from "./args.js";

interface ExportValues {
  leaf?: string;
  format: string;
  output?: string;
  agentDir?: string[];
  cache?: boolean;
}

/** OMP blob images replaced by their data, read from the agent dir that holds the session (only there). */
async function withBlobs(items: TranscriptItem[], agentDir: string | null): Promise<TranscriptItem[]> {
  const out: TranscriptItem[] = [];
  for (const item of items) {
    if ((item.kind === "user" || item.kind === "toolResult") && item.images.some((i) => i.blob)) {
      const images = [];
      for (const i of item.images) {
        const data = i.blob ? await readBlob(agentDir, i.blob) : null;
        images.push(data ? { ...i, data: data.toString("base64") } : i);
      }
      out.push({ ...item, images });
    } else out.push(item);
  }
  return out;
}

export async function exportCommand(file: string, values: ExportValues, io: Io): Promise<number> {
  if (values.format !== "md" && values.format !== "html") throw new UsageError("--format must be md or html");
  // An export never replaces a session: not the one exported, and no other.
  if (values.output !== undefined && /\.jsonl$/i.test(values.output))
    throw new UsageError(`-o ${JSON.stringify(values.output)}: an export is not written over a .jsonl file`);
  const path = resolve(file);
  const read = await readSessionFile(path, { validate: false });
  if (!read.ok) return reportUnreadable(read, false, io);
  const session = read.session;
  if (values.leaf !== undefined && !session.byId.has(values.leaf))
    throw new UsageError(`--leaf ${JSON.stringify(values.leaf)} is not an entry of ${file}`);
  // A fork's copies of its parent's entries are known from the store (the same rule as usage).
  const { store } = await openStore({ agentDir: values.agentDir, cache: values.cache });
  computeOwnership(store.sessions);
  const known = store.sessions.find((s) => s.file === path);
  const leafId = values.leaf ?? session.leafId;
  // Only a fork with a parent has copies to mark (two files sharing one id have none).
  let items = transcript(session, { leafId, inherited: known?.parent ? known.inherited : undefined });
  if (values.format === "html") items = await withBlobs(items, agentDirOf(path));
  const input = { session, items, leafId, parentName: known?.parent ? sessionTitle(known.parent) : null };
  const output =
    values.format === "html" ? exportHtml(input, randomBytes(16).toString("base64")) : exportMarkdown(input);
  if (values.output === undefined || values.output === "-") {
    io.out(output.replace(/\n$/, ""));
    return EXIT_OK;
  }
  try {
    await writeFile(values.output, output, "utf8");
  } catch (err) {
    text(io).err(`${values.output}: ${ioReason(err)}`);
    return EXIT_NOT_WRITTEN;
  }
  text(io).err(`wrote ${values.output} (${items.length} entries)`);
  return EXIT_OK;
}
