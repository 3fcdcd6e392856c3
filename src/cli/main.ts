/**
 * `pi-sessions`: the command-line face of the parser core. Each command lives in its own module; this one
 * dispatches and turns errors into exit codes. Never an uncaught exception.
 */
import { EXIT_OK, EXIT_REJECTED, EXIT_USAGE, type Io, text, UsageError } from "./args.js";
import { checkpointsCommand } from "./checkpoints.js";
import { compactCli } from "./compact.js";
import { contextCommand, lintCommand, treeCommand } from "./fileCommands.js";
import { listCommand } from "./list.js";
import { repairCli } from "./repair.js";
import { usageCommand } from "./usage.js";

/** The package version, recorded in checkpoints as the producer version (set at build time). */
const VERSION = typeof __PI_SESSIONS_VERSION__ === "string" ? __PI_SESSIONS_VERSION__ : "0.0.0-dev";
declare const __PI_SESSIONS_VERSION__: string | undefined;

const USAGE = `usage: pi-sessions <command> [options]

commands:
  tree FILE [--json]                 the entry tree (branches, leaf, labels, compactions, fork origin)
  context FILE [--leaf ID] [--json]  the messages the model saw at a leaf (default: the active leaf)
  lint FILE... [--json]              diagnostics as FILE:LINE: severity code: message
  checkpoints FILE [--json]          every compaction: who wrote it (pi, OMP, Blackmagic), the surface and model,
                                     the artifact's integrity (recomputed), and which checkpoint replays next
  list [--agent-dir DIR]... [--workspace PATH] [--json]
                                     every session under the agent dirs, with fork lineage
  usage [--agent-dir DIR]... [--workspace PATH] [--file F] [--by session|model|day|project]
          [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--json]
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

exit codes: 0 ok, 2 a file was rejected or is not a session, 3 compact or repair wrote nothing (refused or failed),
  64 usage error`;

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
      case "checkpoints":
        return await checkpointsCommand(rest, io);
      case "list":
        return await listCommand(rest, io);
      case "usage":
        return await usageCommand(rest, io);
      case "compact":
        return await compactCli(rest, io, VERSION);
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
      text(io).err(`pi-sessions: ${(err as Error).message}\n\n${USAGE}`);
      return EXIT_USAGE;
    }
    text(io).err(`pi-sessions: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return EXIT_REJECTED;
  }
}
