/** The commands on session files: `tree`, `context` and `lint`. */
import { resolve as resolvePath } from "node:path";
import { setFlagsFromString } from "node:v8";
import { buildContext, type ContextMessage, UnknownEntryError } from "../core/context/index.js";
import { describeSystemMessage } from "../core/systemMessage.js";
import { treeJsonPieces } from "../core/treeJson.js";
import { agentDirOf, blobHash, resolveBlobs } from "../node/blobs.js";
import { readSessionFile } from "../node/readSession.js";
import { oneLine, truncate } from "../protocol/format.js";
import { contentText } from "../core/entryText.js";
import { EXIT_OK, EXIT_REJECTED, type Io, outPieces, reportUnreadable, text, UsageError } from "./args.js";
import { renderTree } from "./treeText.js";

/**
 * A command that holds one session, which may be hundreds of MB, keeps V8's young generation at its first size: at
 * the reader's allocation rate it grows to 30–40 MB, a quarter of the process's peak on a 100 MB session, and the
 * larger size buys no measurable time (bench/RESULTS.md, Scale 2). The flag takes effect when set at run time. V8
 * flags are the process's: only these commands set it (no worker threads), never an editor's extension host.
 */
function keepYoungGenerationSmall(): void {
  setFlagsFromString("--semi-space-growth-factor=1");
}

export async function treeCommand(file: string, values: { json?: boolean }, io: Io): Promise<number> {
  keepYoungGenerationSmall();
  const result = await readSessionFile(file);
  if (!result.ok) return reportUnreadable(result, !!values.json, io);
  if (values.json) outPieces(io, treeJsonPieces(result.session));
  else text(io).out(renderTree(result.session));
  return EXIT_OK;
}

export async function contextCommand(file: string, values: { json?: boolean; leaf?: string }, io: Io): Promise<number> {
  keepYoungGenerationSmall();
  const result = await readSessionFile(file, { validate: false });
  if (!result.ok) return reportUnreadable(result, !!values.json, io);
  let context;
  try {
    context = buildContext(result.session, values.leaf);
  } catch (err) {
    if (err instanceof UnknownEntryError) throw new UsageError(`--leaf: ${err.message}`);
    throw err;
  }
  // OMP images stored as blobs are resolved from the session's own agent dir, as OMP resolves them.
  const { messages, missing } = await resolveBlobs(context.messages, agentDirOf(resolvePath(file)));
  context = { ...context, messages };
  if (values.json) {
    // pi's own shape (`buildSessionContext()`): the projection is ours, the text output shows its edits.
    const { compactionId: _compactionId, entries: _entries, ...json } = context;
    io.out(JSON.stringify(json));
  } else {
    text(io).out(renderContext(context));
    for (const hash of missing) text(io).out(`image missing: blob sha256:${hash} is not in the agent dir's blobs`);
  }
  return EXIT_OK;
}

function messageLine(m: ContextMessage): string {
  if (m.role === "compactionSummary" || m.role === "branchSummary") return String(m.summary ?? "");
  if (m.role === "bashExecution") return `$ ${String(m.command ?? "")}`;
  if (m.role === "toolResult") return `${String(m.toolName ?? "")}: ${contentText(m.content)}`;
  if (m.role === "system") return describeSystemMessage(m);
  return [contentText(m.content), ...imageMarks(m.content)].filter(Boolean).join(" ");
}

function renderContext(context: ReturnType<typeof buildContext>): string {
  const model = context.model ? `${context.model.provider}/${context.model.modelId}` : "unknown model";
  // Every field is session text: one line each, so nothing can forge a row.
  const lines = [
    oneLine(
      `context at ${context.leafId ?? "(empty)"} · ${context.messages.length} messages · ${model}` +
        ` · thinking ${context.thinkingLevel ?? "off"}`,
    ),
    "",
  ];
  let n = 0;
  for (const projected of context.entries) {
    if (projected.edit?.omitted) {
      lines.push(
        `${"".padStart(4)}  ${"(left out)".padEnd(17)} ${projected.entryId}: context edit ${projected.edit.id}`,
      );
      continue;
    }
    for (const m of projected.messages) {
      const edited = projected.edit ? ` (replaced in context by ${projected.edit.id})` : "";
      lines.push(
        `${String(++n).padStart(4)}  ${oneLine(String(m.role)).padEnd(17)} ${truncate(messageLine(m), 100)}${edited}`,
      );
    }
  }
  return lines.join("\n");
}

export async function lintCommand(positionals: string[], values: { json?: boolean }, io: Io): Promise<number> {
  let code = EXIT_OK;
  const report: unknown[] = [];
  for (const file of positionals) {
    const result = await readSessionFile(file);
    if (!result.ok) {
      code = EXIT_REJECTED;
      report.push({ file, rejected: result.rejection, diagnostics: result.diagnostics });
      if (!values.json) {
        for (const d of result.diagnostics) text(io).out(diagnosticLine(file, d));
        text(io).out(
          oneLine(`${file}:${result.rejection.line}: error ${result.rejection.code}: ${result.rejection.message}`) +
            " (file rejected)",
        );
      }
      continue;
    }
    report.push({ file, rejected: null, diagnostics: result.session.diagnostics });
    if (!values.json) for (const d of result.session.diagnostics) text(io).out(diagnosticLine(file, d));
  }
  if (values.json) io.out(JSON.stringify({ files: report }));
  return code;
}

/** `FILE:LINE: severity code: message`, on one line whatever the message holds. */
export function diagnosticLine(file: string, d: { line: number; severity: string; code: string; message: string }) {
  return oneLine(`${file}:${d.line}: ${d.severity} ${d.code}: ${d.message}`);
}

/** `[image image/png]` per image of a message; an unresolved blob names its hash. */
function imageMarks(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return content
    .filter((b): b is { type: string; data?: unknown; mimeType?: unknown } => !!b && b.type === "image")
    .map((b) => {
      const hash = blobHash(b.data);
      return hash ? `[image missing: blob sha256:${hash}]` : `[image ${String(b.mimeType ?? "")}]`;
    });
}
