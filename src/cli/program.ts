/**
 * The command line of `pi-sessions`, declared with commander so that `--help`, `--version` and usage errors are
 * uniform. Each command is declared in its own module under `commands/` (its synopsis, options, help and example);
 * this file assembles them in the order `--help` lists them. The commands themselves run from their own modules,
 * loaded when their command runs (a command pays only for what it uses: the table renderer's Unicode tables, the
 * OpenAI client and SQLite cost tens of milliseconds to load), and receive parsed, typed options.
 */
import { Command } from "commander";
import type { Io } from "./args.js";
import { defineTree } from "./commands/tree.js";
import { defineContext } from "./commands/context.js";
import { defineExport } from "./commands/export.js";
import { defineLint } from "./commands/lint.js";
import { defineCompare } from "./commands/compare.js";
import { defineCheckpoints } from "./commands/checkpoints.js";
import { defineList } from "./commands/list.js";
import { defineSearch } from "./commands/search.js";
import { defineTouches } from "./commands/touches.js";
import { defineUsage } from "./commands/usage.js";
import { defineCompact } from "./commands/compact.js";
import { defineRepair } from "./commands/repair.js";
import { defineLabel, defineMarks, defineRename, defineTrash } from "./commands/manage.js";
import { defineMcp } from "./commands/mcp.js";
import { defineSync } from "./commands/sync.js";
import { type CliContext, EXIT_CODES } from "./commands/shared.js";

/** Every command, in the order `--help` lists them. */
const COMMANDS: ((program: Command, context: CliContext) => void)[] = [
  defineTree,
  defineContext,
  defineExport,
  defineLint,
  defineCompare,
  defineCheckpoints,
  defineList,
  defineSearch,
  defineTouches,
  defineUsage,
  defineCompact,
  defineRepair,
  defineRename,
  defineLabel,
  defineMarks,
  defineTrash,
  defineMcp,
  defineSync,
];

/** Build the program; `done` receives each command's exit code. */
export function buildProgram(io: Io, version: string, done: (code: number) => void): Command {
  const program = new Command("pi-sessions")
    .description(
      "Read pi and Oh My Pi coding-agent sessions: trees, context, checkpoints, usage and cost, forks counted once.",
    )
    .version(version, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help for a command")
    .helpCommand("help [command]", "show help for a command")
    .addHelpText(
      "after",
      `\n${EXIT_CODES}\n\nRun "pi-sessions <command> --help" for a command's options and an example.`,
    )
    .showSuggestionAfterError(true)
    .configureHelp({ helpWidth: Math.min(io.columns ?? 100, 100) });
  const context: CliContext = { io, version, done };
  for (const define of COMMANDS) define(program, context);
  return program;
}
