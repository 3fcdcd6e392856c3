/** What every command's declaration shares: the store options, help text, examples and how a command reports. */
import type { Command } from "commander";
import type { Io } from "../args.js";

/** What a command's declaration needs: where it writes, and where its exit code goes. */
export interface CliContext {
  io: Io;
  /** The package version (the compact command names it as the writer). */
  version: string;
  done: (code: number) => void;
}

export const collect = (value: string, previous: string[] = []) => [...previous, value];

export const EXIT_CODES = `Exit codes:
  0   ok
  2   a file was rejected or is not a session
  2   also: the team database could not be reached or refused the command
  3   a command that writes (compact, repair, rename, label) wrote nothing: refused, failed, or only planned
  64  usage error`;

export const DATABASE_HELP =
  "The team database: --database URL (postgres://user@host:port/db?sslmode=verify-full&sslrootcert=ca.pem), else " +
  "$PI_SESSIONS_DATABASE_URL, else libpq's PG* variables (PGHOST, PGUSER, PGPASSWORD, …). A password is never " +
  "printed; keep it in the environment or ~/.pgpass, not on the command line.";

export const STORE_HELP =
  "Where sessions are found: pi's $PI_CODING_AGENT_DIR (else ~/.pi/agent), Oh My Pi's ~/.omp/agent (and its " +
  "profiles), $PI_CODING_AGENT_SESSION_DIR; --agent-dir replaces them. The metadata cache lives in " +
  "$PI_SESSIONS_CACHE_DIR, else $XDG_CACHE_HOME/pi-session-explorer, else ~/.cache/pi-session-explorer. Files the " +
  "cache does not hold are read on every core ($PI_SESSIONS_THREADS sets the number of threads; 1 reads on one).";

/** The options every store command takes: where the sessions are, which workspace, the cache, JSON. */
export function storeOptions(command: Command): Command {
  return command
    .option("--agent-dir <dir>", "read this agent dir instead of the defaults (repeatable)", collect)
    .option("--session-dir <dir>", "also read this flat session dir (repeatable)", collect)
    .option("--workspace <path>", "only the sessions whose working directory is inside this folder")
    .option("--no-cache", "bypass the metadata cache")
    .option("--json", "one JSON object on stdout");
}

export function example(command: Command, lines: string[]): Command {
  return command.addHelpText("after", `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}`);
}
