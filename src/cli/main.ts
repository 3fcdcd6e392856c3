/**
 * `pi-sessions`: the command-line face of the parser core.
 * Exit codes: 0 ok; 2 a file was rejected or is not a session; 64 usage error. Never an uncaught exception.
 */
import { parseArgs } from "node:util";
import { buildContext, UnknownEntryError } from "../core/context.js";
import { contentText, truncate } from "../core/describe.js";
import type { Session } from "../core/session.js";
import { rejectedJson, treeJson } from "../core/treeJson.js";
import { type ReadResult, readSessionFile } from "../node/readSession.js";
import { renderTree } from "./treeText.js";

export const EXIT_OK = 0;
export const EXIT_REJECTED = 2;
export const EXIT_USAGE = 64;

const USAGE = `usage: pi-sessions <command> [options]

commands:
  tree FILE [--json]                 the entry tree (branches, leaf, labels, compactions, fork origin)
  context FILE [--leaf ID] [--json]  the messages the model saw at a leaf (default: the active leaf)
  lint FILE... [--json]              diagnostics as FILE:LINE: severity code: message

exit codes: 0 ok, 2 a file was rejected or is not a session, 64 usage error`;

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

class UsageError extends Error {}

export async function run(argv: string[], io: Io): Promise<number> {
  try {
    const [command, ...rest] = argv;
    switch (command) {
      case "tree":
        return await treeCommand(rest, io);
      case "context":
        return await contextCommand(rest, io);
      case "lint":
        return await lintCommand(rest, io);
      case "help":
      case "--help":
      case "-h":
        io.out(USAGE);
        return EXIT_OK;
      case undefined:
        throw new UsageError("missing command");
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.err(`pi-sessions: ${(err as Error).message}\n\n${USAGE}`);
      return EXIT_USAGE;
    }
    io.err(`pi-sessions: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return EXIT_REJECTED;
  }
}

function parse(args: string[], options: NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>["options"]>) {
  return parseArgs({ args, options, allowPositionals: true, strict: true });
}

function oneFile(positionals: string[]): string {
  if (positionals.length !== 1) throw new UsageError(positionals.length ? "expected exactly one FILE" : "missing FILE");
  return positionals[0]!;
}

/** Report a file that is not a readable session; returns the exit code. */
function reportUnreadable(result: Exclude<ReadResult, { ok: true }>, json: boolean, io: Io): number {
  if ("ioError" in result) {
    const rejection = { line: 0, code: "unreadable", message: result.ioError };
    if (json) io.out(JSON.stringify(rejectedJson(result.file, rejection as never)));
    else io.err(`${result.file}: cannot read: ${result.ioError}`);
    return EXIT_REJECTED;
  }
  if (json) io.out(JSON.stringify(rejectedJson(result.file, result.rejection)));
  else io.err(`${result.file}:${result.rejection.line}: rejected ${result.rejection.code}: ${result.rejection.message}`);
  return EXIT_REJECTED;
}

async function treeCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: "boolean" } });
  const result = await readSessionFile(oneFile(positionals));
  if (!result.ok) return reportUnreadable(result, !!values.json, io);
  io.out(values.json ? JSON.stringify(treeJson(result.session)) : renderTree(result.session));
  return EXIT_OK;
}

async function contextCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: "boolean" }, leaf: { type: "string" } });
  const result = await readSessionFile(oneFile(positionals), { validate: false });
  if (!result.ok) return reportUnreadable(result, !!values.json, io);
  let context;
  try {
    context = buildContext(result.session, values.leaf as string | undefined);
  } catch (err) {
    if (err instanceof UnknownEntryError) throw new UsageError(`--leaf: ${err.message}`);
    throw err;
  }
  if (values.json) {
    const { compactionId: _omit, ...json } = context;
    void _omit;
    io.out(JSON.stringify(json));
  } else {
    io.out(renderContext(result.session, context));
  }
  return EXIT_OK;
}

function renderContext(session: Session, context: ReturnType<typeof buildContext>): string {
  const model = context.model ? `${context.model.provider}/${context.model.modelId}` : "unknown model";
  const lines = [`context at ${context.leafId ?? "(empty)"} · ${context.messages.length} messages · ${model} · thinking ${context.thinkingLevel ?? "off"}`, ""];
  context.messages.forEach((m, i) => {
    let text: string;
    if (m.role === "compactionSummary" || m.role === "branchSummary") text = String(m.summary ?? "");
    else if (m.role === "bashExecution") text = `$ ${String(m.command ?? "")}`;
    else if (m.role === "toolResult") text = `${String(m.toolName ?? "")}: ${contentText(m.content)}`;
    else text = contentText(m.content);
    lines.push(`${String(i + 1).padStart(4)}  ${m.role.padEnd(17)} ${truncate(text, 100)}`);
  });
  void session;
  return lines.join("\n");
}

async function lintCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: "boolean" } });
  if (positionals.length === 0) throw new UsageError("missing FILE");
  let code = EXIT_OK;
  const report: unknown[] = [];
  for (const file of positionals) {
    const result = await readSessionFile(file);
    if (!result.ok) {
      code = EXIT_REJECTED;
      if ("ioError" in result) {
        report.push({ file, rejected: { line: 0, code: "unreadable", message: result.ioError }, diagnostics: [] });
        if (!values.json) io.out(`${file}:0: error unreadable: ${result.ioError}`);
        continue;
      }
      report.push({ file, rejected: result.rejection, diagnostics: result.diagnostics });
      if (!values.json) {
        for (const d of result.diagnostics) io.out(`${file}:${d.line}: ${d.severity} ${d.code}: ${d.message}`);
        io.out(`${file}:${result.rejection.line}: error ${result.rejection.code}: ${result.rejection.message} (file rejected)`);
      }
      continue;
    }
    report.push({ file, rejected: null, diagnostics: result.session.diagnostics });
    if (!values.json) for (const d of result.session.diagnostics) io.out(`${file}:${d.line}: ${d.severity} ${d.code}: ${d.message}`);
  }
  if (values.json) io.out(JSON.stringify({ files: report }));
  return code;
}
