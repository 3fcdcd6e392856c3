/** What every CLI command shares: exit codes, output, argument parsing, usage errors, and opening the store. */
import { homedir } from "node:os";
import { join } from "node:path";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { rejectedJson } from "../core/treeJson.js";
import { terminalSafe } from "../protocol/format.js";
import type { ReadResult } from "../node/readSession.js";
import { hostPaths, resolveRoots } from "../node/roots.js";
import { belongsToWorkspace, cacheFileFor, loadStore, type StoreSession } from "../node/store/index.js";

export const EXIT_OK = 0;
export const EXIT_REJECTED = 2;
/** `compact` and `repair` wrote nothing (refused, failed, or only planned). */
export const EXIT_NOT_WRITTEN = 3;
export const EXIT_USAGE = 64;

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

/**
 * Text output for a terminal: session text made inert (escapes shown, not acted on). JSON output goes through `io.out`
 * untouched, so it stays exact.
 */
export function text(io: Io): Io {
  return { out: (t) => io.out(terminalSafe(t)), err: (t) => io.err(terminalSafe(t)) };
}

/** A mistake in the command line: reported with the usage text and exit code 64. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig["options"]>;

export function parse<O extends Options>(args: string[], options: O) {
  return parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>({
    args,
    options,
    allowPositionals: true,
    strict: true,
  });
}

export function oneFile(positionals: string[]): string {
  if (positionals.length !== 1) throw new UsageError(positionals.length ? "expected exactly one FILE" : "missing FILE");
  return positionals[0]!;
}

/** Report a file that is not a readable session; returns the exit code. */
export function reportUnreadable(result: Exclude<ReadResult, { ok: true }>, json: boolean, io: Io): number {
  if (json) io.out(JSON.stringify(rejectedJson(result.file, result.rejection)));
  else
    text(io).err(
      `${result.file}:${result.rejection.line}: rejected ${result.rejection.code}: ${result.rejection.message}`,
    );
  return EXIT_REJECTED;
}

export const STORE_OPTIONS = {
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

export async function openStore(values: {
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
