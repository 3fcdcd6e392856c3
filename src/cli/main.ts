/**
 * `pi-sessions`: the command-line face of the parser core.
 * Exit codes: 0 ok; 2 a file was rejected or is not a session; 64 usage error. Never an uncaught exception.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { buildContext, UnknownEntryError } from "../core/context.js";
import { contentText, formatCost, formatCount, truncate } from "../protocol/format.js";
import { summarize } from "../core/summary.js";
import { rejectedJson, treeJson } from "../core/treeJson.js";
import { type ReadResult, readSessionFile } from "../node/readSession.js";
import { type GroupBy, usageReport } from "../node/report.js";
import { inspectTail, repairTail } from "../node/repair.js";
import { compactCommand, EXIT_NOT_WRITTEN } from "./compact.js";
import { hostPaths, resolveRoots } from "../node/roots.js";
import {
  belongsToWorkspace,
  cacheFileFor,
  computeOwnership,
  listedSession,
  loadStore,
  newStoreSession,
  type StoreSession,
} from "../node/store.js";
import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { renderTree } from "./treeText.js";

export const EXIT_OK = 0;
export const EXIT_REJECTED = 2;
export const EXIT_USAGE = 64;
/** The package version, recorded in checkpoints as the producer version (set at build time). */
const VERSION = typeof __PI_SESSIONS_VERSION__ === "string" ? __PI_SESSIONS_VERSION__ : "0.0.0-dev";
declare const __PI_SESSIONS_VERSION__: string | undefined;

const USAGE = `usage: pi-sessions <command> [options]

commands:
  tree FILE [--json]                 the entry tree (branches, leaf, labels, compactions, fork origin)
  context FILE [--leaf ID] [--json]  the messages the model saw at a leaf (default: the active leaf)
  lint FILE... [--json]              diagnostics as FILE:LINE: severity code: message
  list [--agent-dir DIR]... [--workspace PATH] [--json]
                                     every session under the agent dirs, with fork lineage
  usage [--agent-dir DIR]... [--workspace PATH] [--file F] [--by session|model|day|project] [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--json]
                                     tokens and cost, forks never double-counted
  compact FILE [--leaf ID] --provider openai|azure|codex --model M [--azure-resource R] [--azure-deployment D]
          [--base-url URL] [--keep-recent-tokens N] [--summary extractive|llm] [--dry-run] [--yes] [--json]
          [--write-fallback] [--timeout-ms N]
                                     compact a branch through server compaction and append the checkpoint
                                     (credentials: OPENAI_API_KEY, AZURE_OPENAI_API_KEY, or the ChatGPT login in
                                     ~/.pi/agent/auth.json or ~/.codex/auth.json); without --yes it only prints the plan

store options: --agent-dir DIR (repeatable; default ~/.pi/agent, ~/.omp/agent and their env overrides),
  --session-dir DIR (a flat session dir, repeatable), --no-cache (metadata cache: $PI_SESSIONS_CACHE_DIR,
  else $XDG_CACHE_HOME/pi-session-explorer, else ~/.cache/pi-session-explorer)

  repair FILE [--yes] [--json]      remove an incomplete last line (a crash mid-write), after a backup copy
                                     next to the file; without --yes it only shows the line

exit codes: 0 ok, 2 a file was rejected or is not a session, 3 compact wrote nothing (refused or failed), 64 usage error`;

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
      case "list":
        return await listCommand(rest, io);
      case "usage":
        return await usageCommand(rest, io);
      case "compact":
        return await compactCli(rest, io);
      case "repair":
        return await repairCli(rest, io);
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

type Options = NonNullable<ParseArgsConfig["options"]>;

function parse<O extends Options>(args: string[], options: O) {
  return parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>({
    args,
    options,
    allowPositionals: true,
    strict: true,
  });
}

function oneFile(positionals: string[]): string {
  if (positionals.length !== 1) throw new UsageError(positionals.length ? "expected exactly one FILE" : "missing FILE");
  return positionals[0]!;
}

/** Report a file that is not a readable session; returns the exit code. */
function reportUnreadable(result: Exclude<ReadResult, { ok: true }>, json: boolean, io: Io): number {
  if (json) io.out(JSON.stringify(rejectedJson(result.file, result.rejection)));
  else
    io.err(`${result.file}:${result.rejection.line}: rejected ${result.rejection.code}: ${result.rejection.message}`);
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
    const { compactionId: _compactionId, ...json } = context;
    io.out(JSON.stringify(json));
  } else {
    io.out(renderContext(context));
  }
  return EXIT_OK;
}

function renderContext(context: ReturnType<typeof buildContext>): string {
  const model = context.model ? `${context.model.provider}/${context.model.modelId}` : "unknown model";
  const lines = [
    `context at ${context.leafId ?? "(empty)"} · ${context.messages.length} messages · ${model} · thinking ${context.thinkingLevel ?? "off"}`,
    "",
  ];
  context.messages.forEach((m, i) => {
    let text: string;
    if (m.role === "compactionSummary" || m.role === "branchSummary") text = String(m.summary ?? "");
    else if (m.role === "bashExecution") text = `$ ${String(m.command ?? "")}`;
    else if (m.role === "toolResult") text = `${String(m.toolName ?? "")}: ${contentText(m.content)}`;
    else text = contentText(m.content);
    lines.push(`${String(i + 1).padStart(4)}  ${m.role.padEnd(17)} ${truncate(text, 100)}`);
  });
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
      report.push({ file, rejected: result.rejection, diagnostics: result.diagnostics });
      if (!values.json) {
        for (const d of result.diagnostics) io.out(`${file}:${d.line}: ${d.severity} ${d.code}: ${d.message}`);
        io.out(
          `${file}:${result.rejection.line}: error ${result.rejection.code}: ${result.rejection.message} (file rejected)`,
        );
      }
      continue;
    }
    report.push({ file, rejected: null, diagnostics: result.session.diagnostics });
    if (!values.json)
      for (const d of result.session.diagnostics) io.out(`${file}:${d.line}: ${d.severity} ${d.code}: ${d.message}`);
  }
  if (values.json) io.out(JSON.stringify({ files: report }));
  return code;
}

const STORE_OPTIONS = {
  json: { type: "boolean" },
  "agent-dir": { type: "string", multiple: true },
  "session-dir": { type: "string", multiple: true },
  workspace: { type: "string" },
  "no-cache": { type: "boolean" },
} as const;

function cacheDir(): string {
  const env = process.env;
  if (env.PI_SESSIONS_CACHE_DIR) return env.PI_SESSIONS_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "pi-session-explorer");
}

async function openStore(values: {
  "agent-dir"?: string[];
  "session-dir"?: string[];
  workspace?: string;
  "no-cache"?: boolean;
}) {
  const roots = resolveRoots({ agentDirs: values["agent-dir"], sessionDirs: values["session-dir"] });
  const store = await loadStore({ roots, cacheFile: values["no-cache"] ? null : cacheFileFor(cacheDir(), roots) });
  let result: StoreSession[] = store.sessions;
  if (values.workspace !== undefined) {
    const host = hostPaths();
    result = result.filter((s) => belongsToWorkspace(s, values.workspace!, host));
  }
  return { store, result };
}

async function listCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, STORE_OPTIONS);
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const { store, result } = await openStore(values);
  computeOwnership(result);
  const rows = result.map((s) => ({ row: listedSession(s), s }));
  rows.sort(
    (a, b) => (b.row.lastSeen ?? "").localeCompare(a.row.lastSeen ?? "") || a.row.file.localeCompare(b.row.file),
  );
  type Row = { file: string; line: number; severity: "error" | "warning"; code: string; message: string };
  const diagnostics: Row[] = [
    ...result.flatMap((s): Row[] =>
      s.summary.ok
        ? s.summary.diagnostics.filter((d) => d.severity === "error").map((d) => ({ file: s.file, ...d }))
        : [
            {
              file: s.file,
              line: s.summary.rejection.line,
              severity: "error" as const,
              code: s.summary.rejection.code,
              message: `file rejected: ${s.summary.rejection.message}`,
            },
          ],
    ),
    ...store.errors.map((e) => ({ file: e.path, line: 0, severity: "error" as const, code: "io", message: e.message })),
  ];
  if (values.json) {
    io.out(JSON.stringify({ sessions: rows.map((r) => r.row), diagnostics }));
    return EXIT_OK;
  }
  const table = [["last seen", "flavor", "entries", "own", "fork", "name", "cwd"]];
  for (const { row } of rows) {
    const fork =
      row.parentState === "none" ? "" : row.parentState === "resolved" ? `↳ ${shortId(row.parentId)}` : row.parentState;
    table.push([
      row.lastSeen?.slice(0, 16).replace("T", " ") ?? "-",
      row.flavor ?? "REJECTED",
      String(row.entryCount),
      String(row.ownEntryCount),
      fork + (row.nested ? " nested" : ""),
      truncate(row.name ?? "", 40),
      row.cwd ?? row.file,
    ]);
  }
  io.out(formatTable(table, [2, 3]));
  for (const d of diagnostics) io.out(`${d.file}:${d.line}: ${d.severity} ${d.code}: ${d.message}`);
  return EXIT_OK;
}

async function usageCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    ...STORE_OPTIONS,
    file: { type: "string" },
    by: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
  });
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const by = (values.by ?? "session") as GroupBy;
  if (!["session", "model", "day", "project"].includes(by))
    throw new UsageError(`--by must be session, model, day or project`);
  for (const flag of ["since", "until"] as const) {
    const v = values[flag];
    if (v !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(v)) throw new UsageError(`--${flag} takes a date YYYY-MM-DD`);
  }
  let result: StoreSession[];
  if (values.file !== undefined) {
    const file = resolve(values.file);
    const { store } = await openStore({ ...values, workspace: undefined });
    const known = store.sessions.find((s) => s.file === file);
    if (known) result = [known];
    else {
      const read = await readSessionFile(file, { validate: false });
      if (!read.ok) return reportUnreadable(read, !!values.json, io);
      result = [
        newStoreSession(
          {
            file,
            root: { dir: file, agent: "any", source: "--file" },
            slug: null,
            nestedIn: null,
            size: (await stat(file)).size,
          },
          summarize(read),
        ),
      ];
    }
  } else {
    result = (await openStore(values)).result;
  }
  const report = usageReport(result, { by, since: values.since, until: values.until });
  if (values.json) {
    io.out(JSON.stringify(report));
    return EXIT_OK;
  }
  const table = [
    [by, "input", "output", "cache read", "cache write", "total tokens", "cost", "active", "inherited", "msgs"],
  ];
  for (const r of report.rows) {
    const key =
      by === "session"
        ? `${shortId(r.key)} ${truncate(r.name ?? "", 30)}${r.includedInParent ? " (in parent)" : ""}`
        : r.key;
    table.push([
      key,
      formatCount(r.input),
      formatCount(r.output),
      formatCount(r.cacheRead),
      formatCount(r.cacheWrite),
      formatCount(r.totalTokens),
      formatCost(r.cost),
      formatCost(r.activeCost),
      r.inheritedCost === undefined ? "" : formatCost(r.inheritedCost),
      formatCount(r.messages),
    ]);
  }
  const t = report.total;
  table.push([
    "TOTAL",
    formatCount(t.input),
    formatCount(t.output),
    formatCount(t.cacheRead),
    formatCount(t.cacheWrite),
    formatCount(t.totalTokens),
    formatCost(t.cost),
    formatCost(t.activeCost),
    formatCost(t.inheritedCost),
    formatCount(t.messages),
  ]);
  io.out(formatTable(table, [1, 2, 3, 4, 5, 6, 7, 8, 9], true));
  return EXIT_OK;
}

/** Left-aligned columns, except the right-aligned ones; a rule under the header (and above a totals row). */
function formatTable(rows: string[][], rightAligned: number[], totalsRow = false): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const fmt = (r: string[]) =>
    r
      .map((c, i) => (rightAligned.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  const rule = widths.map((w) => "─".repeat(w)).join("  ");
  const lines = [fmt(rows[0]!), rule, ...rows.slice(1, totalsRow ? -1 : undefined).map(fmt)];
  if (totalsRow) lines.push(rule, fmt(rows[rows.length - 1]!));
  return lines.join("\n");
}

/** The random tail of a session id (UUIDv7 ids share their time prefix). */
function shortId(id: string | null): string {
  return id ? id.slice(-8) : "";
}

async function compactCli(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    leaf: { type: "string" },
    provider: { type: "string" },
    model: { type: "string" },
    "azure-resource": { type: "string" },
    "azure-deployment": { type: "string" },
    "base-url": { type: "string" },
    "keep-recent-tokens": { type: "string" },
    summary: { type: "string" },
    "dry-run": { type: "boolean" },
    yes: { type: "boolean" },
    json: { type: "boolean" },
    "write-fallback": { type: "boolean" },
    "timeout-ms": { type: "string" },
  });
  const provider = values.provider;
  if (provider !== "openai" && provider !== "azure" && provider !== "codex")
    throw new UsageError("--provider must be openai, azure or codex");
  if (!values.model) throw new UsageError("--model is required");
  if (values.summary !== undefined && values.summary !== "extractive" && values.summary !== "llm")
    throw new UsageError("--summary must be extractive or llm");
  const int = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v)) throw new UsageError(`--${name} takes a whole number`);
    return Number(v);
  };
  return compactCommand(
    {
      file: oneFile(positionals),
      leaf: values.leaf,
      provider,
      model: values.model,
      azureResource: values["azure-resource"],
      azureDeployment: values["azure-deployment"],
      baseUrl: values["base-url"],
      keepRecentTokens: int("keep-recent-tokens", values["keep-recent-tokens"]),
      summary: values.summary as "extractive" | "llm" | undefined,
      dryRun: !!values["dry-run"],
      yes: !!values.yes,
      json: !!values.json,
      writeFallback: !!values["write-fallback"],
      timeoutMs: int("timeout-ms", values["timeout-ms"]),
    },
    io,
    VERSION,
  );
}

async function repairCli(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { yes: { type: "boolean" }, json: { type: "boolean" } });
  const file = oneFile(positionals);
  const seen = await inspectTail(file);
  if (!seen) {
    if (values.json) io.out(JSON.stringify({ file, repaired: false, reason: "the last line is complete" }));
    else io.out(`${file}: the last line is complete; nothing to repair`);
    return EXIT_OK;
  }
  if (!values.yes) {
    if (values.json)
      io.out(
        JSON.stringify({
          file,
          repaired: false,
          incompleteLine: { offset: seen.offset, bytes: seen.bytes, text: seen.text.slice(0, 500) },
        }),
      );
    else
      io.out(
        `${file}: the last line is incomplete (${seen.bytes} bytes at offset ${seen.offset}):\n  ${truncate(seen.text, 300)}\nre-run with --yes to remove it (a backup copy is written first)`,
      );
    return EXIT_NOT_WRITTEN;
  }
  try {
    const r = await repairTail(file, seen);
    if (values.json) io.out(JSON.stringify({ file, repaired: true, removedBytes: r.removedBytes, backup: r.backup }));
    else io.out(`${file}: removed the incomplete last line (${r.removedBytes} bytes); backup: ${r.backup}`);
    return EXIT_OK;
  } catch (err) {
    io.err(`${file}: ${(err as Error).message}`);
    return EXIT_NOT_WRITTEN;
  }
}
