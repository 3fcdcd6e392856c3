/** What every CLI command shares: exit codes, output, argument parsing, usage errors, and opening the store. */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { rejectedJson } from "../core/treeJson.js";
import { terminalSafe } from "../protocol/format.js";
import type { ReadResult } from "../node/readSession.js";
import { hostPaths, resolveRoots, shortenHome } from "../node/roots.js";
import { belongsToWorkspace, cacheFileFor, loadStore, type StoreSession } from "../node/store/index.js";
import { cacheDir } from "../node/cacheDir.js";

export const EXIT_OK = 0;
export const EXIT_REJECTED = 2;
/** `compact` and `repair` wrote nothing (refused, failed, or only planned). */
export const EXIT_NOT_WRITTEN = 3;
export const EXIT_USAGE = 64;

export interface Io {
  /** One line (its newline is added). */
  out: (text: string) => void;
  err: (text: string) => void;
  /** A piece of a line, written as it is (a large JSON document in pieces: `outPieces`). */
  part?: (text: string) => void;
  /** The terminal's width, when stdout is one: text tables fit it. */
  columns?: number;
  /** Colour in text tables: only on a terminal, honouring NO_COLOR and FORCE_COLOR (see `wantsColor`). */
  color?: boolean;
}

/** Colour policy (no-color.org, and FORCE_COLOR as Node and most tools read it): FORCE_COLOR wins, then NO_COLOR. */
export function wantsColor(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return isTTY;
}

/**
 * Text output for a terminal: session text made inert (escapes shown, not acted on). JSON output goes through `io.out`
 * untouched, so it stays exact.
 */
export function text(io: Io): Io {
  return { out: (t) => io.out(terminalSafe(t)), err: (t) => io.err(terminalSafe(t)) };
}

/**
 * One line given in pieces: written piece by piece where the output takes pieces (a whole copy of a large JSON
 * document, its string and its bytes, is never held), else joined.
 */
export function outPieces(io: Io, pieces: Iterable<string>): void {
  if (!io.part) return io.out([...pieces].join(""));
  for (const piece of pieces) io.part(piece);
  io.out("");
}

/**
 * A mistake in the command line: one line naming it, "see pi-sessions <command> --help", and exit code 64. Known by
 * its name, not its class: commands are loaded when they run, and a loader may give them their own copy of this module.
 */
export class UsageError extends Error {
  override name = "UsageError";
}

export const isUsageError = (err: unknown): err is UsageError => err instanceof Error && err.name === "UsageError";

/** Report a file that is not a readable session; returns the exit code. */
export function reportUnreadable(result: Exclude<ReadResult, { ok: true }>, json: boolean, io: Io): number {
  if (json) io.out(JSON.stringify(rejectedJson(result.file, result.rejection)));
  else
    text(io).err(
      `${result.file}:${result.rejection.line}: rejected ${result.rejection.code}: ${result.rejection.message}`,
    );
  return EXIT_REJECTED;
}

/** The store options as commander parses them (`--no-cache` sets `cache: false`). */
export interface StoreValues {
  agentDir?: string[];
  sessionDir?: string[];
  workspace?: string;
  cache?: boolean;
  json?: boolean;
}

/** The bundled worker of parallel cold reads, next to the bundled CLI (absent when run from source: one thread). */
const SUMMARY_WORKER = fileURLToPath(new URL("./summaryWorker.cjs", import.meta.url));

/** A cache dir refused (another user's): said once, and the command goes on reading the sessions. */
export function reportCacheErrors(errors: { path: string; message: string }[], cacheFile: string | null, io: Io) {
  for (const e of errors) if (cacheFile !== null && e.path === cacheFile) text(io).err(`pi-sessions: ${e.message}`);
}

/** The session roots a command's options name, and the metadata cache for them (null: `--no-cache`). */
export function storeLocation(values: Pick<StoreValues, "agentDir" | "sessionDir" | "cache">) {
  const roots = resolveRoots({ agentDirs: values.agentDir, sessionDirs: values.sessionDir });
  return { roots, cacheFile: values.cache === false ? null : cacheFileFor(cacheDir(), roots) };
}

/**
 * The store, its cold files read on every core; a problem with the cache is said on `io`'s stderr. `usageOnly`: the
 * command reports usage only, so that without the cache the files are read without the schema checks a listing
 * reports.
 */
export async function openStore(values: StoreValues, io: Io, usageOnly = false) {
  const { roots, cacheFile } = storeLocation(values);
  const workerFile = existsSync(SUMMARY_WORKER) ? SUMMARY_WORKER : undefined;
  const mode = usageOnly && cacheFile === null ? "usage" : "full";
  // With no cache to answer, every file will be read: the workers load while the store is listed.
  const startEarly = cacheFile === null || !existsSync(cacheFile);
  const store = await loadStore({
    roots,
    cacheFile,
    parallel: { workerFile, mode, startEarly },
    ompHistory: !usageOnly,
  });
  reportCacheErrors(store.errors, cacheFile, io);
  let result: StoreSession[] = store.sessions;
  if (values.workspace !== undefined) {
    const host = hostPaths();
    result = result.filter((s) => belongsToWorkspace(s, values.workspace!, host));
  }
  return { store, result };
}

/**
 * Why a store command found nothing, for stderr: no agent dir at all, no session in them, or none in the workspace.
 * Undefined when there is something to show.
 */
export function whyEmpty(
  store: { roots: { dir: string }[]; sessions: unknown[] },
  result: unknown[],
  workspace: string | undefined,
): string | undefined {
  if (result.length) return undefined;
  const dirs = store.roots.map((r) => r.dir);
  const shown = dirs.map((d) => shortenHome(d));
  if (!dirs.some((d) => existsSync(d)))
    return `no session directory found at ${shown.join(" or ") || "(none configured)"}; use --agent-dir`;
  if (!store.sessions.length) return `no sessions in ${shown.filter((_, i) => existsSync(dirs[i]!)).join(" or ")}`;
  if (workspace !== undefined)
    return `no sessions of ${workspace} (${store.sessions.length} in other folders; drop --workspace to see them)`;
  return undefined;
}
