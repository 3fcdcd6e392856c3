/**
 * One branch of a session as a Markdown or self-contained HTML document, for `pi-sessions export` and the
 * extension's Export Branch command: the transcript, a fork's copies marked (the store's rule), and for HTML the
 * OMP images stored as blobs read from the session's own agent dir (only there).
 */
import { randomBytes } from "node:crypto";
import { pathTo, type Session } from "../../core/session/index.js";
import { transcript, type TranscriptItem } from "../../core/transcript.js";
import { exportSafe } from "../../protocol/format.js";
import { agentDirOf, readBlob } from "../blobs.js";
import { sessionTitle, type StoreSession } from "../store/index.js";

export type ExportFormat = "md" | "html";

type Exporters = typeof import("../../core/export/index.js");

/**
 * The exporters, loaded on the first export. In the bundles this import is a file of its own (scripts/build.mjs), a
 * CommonJS module whose exports arrive as `default` when an ES module imports it.
 */
export async function loadExporters(): Promise<Exporters> {
  const loaded = (await import("../../core/export/index.js")) as Partial<Exporters> & { default?: Exporters };
  return loaded.default ?? (loaded as Exporters);
}

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

/**
 * `stored`: the session as the store knows it (after `computeOwnership`), for a fork's inherited entries and its
 * parent's name; undefined for a file outside the store.
 */
export async function exportBranch(
  session: Session,
  stored: StoreSession | undefined,
  options: { leafId?: string | null; format: ExportFormat },
): Promise<{ text: string; entries: number }> {
  const leafId = options.leafId ?? session.leafId;
  // Only a fork with a parent has copies to mark (two files sharing one id have none).
  let items = transcript(session, { leafId, inherited: stored?.parent ? stored.inherited : undefined });
  if (options.format === "html") items = await withBlobs(items, agentDirOf(session.file));
  const input = { session, items, leafId, parentName: stored?.parent ? sessionTitle(stored.parent) : null };
  const { exportHtml, exportMarkdown } = await loadExporters();
  const text =
    options.format === "html" ? exportHtml(input, randomBytes(16).toString("base64")) : exportMarkdown(input);
  // Session text's controls become visible escapes in the document itself, wherever it is written.
  // Counted as the document's heading and the transcript count them: the entries on the branch.
  return { text: exportSafe(text), entries: leafId === null ? 0 : pathTo(session, leafId).length };
}
