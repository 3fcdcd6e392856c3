/**
 * `pi-sessions`: the command-line face of the parser core. The command line is declared in `program.ts`; this module
 * runs it and turns every outcome into an exit code: help and version 0, a usage error 64 with one line naming the
 * problem (and where to read more), never an uncaught exception.
 */
import { CommanderError } from "commander";
import { EXIT_OK, EXIT_REJECTED, EXIT_USAGE, type Io, isUsageError, text } from "./args.js";
import { buildProgram } from "./program.js";
import { PlainError } from "../node/ioReason.js";
import { jsonSafe } from "../protocol/format.js";

/** The package version, recorded in checkpoints as the producer version (set at build time). */
const VERSION = typeof __PI_SESSIONS_VERSION__ === "string" ? __PI_SESSIONS_VERSION__ : "0.0.0-dev";
declare const __PI_SESSIONS_VERSION__: string | undefined;

/** Commander's outcomes that are not errors. */
const NOT_ERRORS = new Set(["commander.helpDisplayed", "commander.version", "commander.help"]);

export async function run(argv: string[], raw: Io): Promise<number> {
  // Whatever a command prints raw (JSON, an export) leaves no C1 control or bidi override live on the terminal.
  const io: Io = {
    ...raw,
    out: (t) => raw.out(jsonSafe(t)),
    ...(raw.part ? { part: (t: string) => raw.part!(jsonSafe(t)) } : {}),
  };
  let code = EXIT_OK;
  const program = buildProgram(io, VERSION, (c) => {
    code = c;
  });
  // The command a usage error is about: the first word, when it names one.
  const command = program.commands.find((c) => c.name() === argv[0])?.name();
  const usageError = (message: string) => {
    const where = command ? `pi-sessions ${command}` : "pi-sessions";
    text(io).err(`${where}: ${message}\nsee ${where} --help`);
    return EXIT_USAGE;
  };
  const write = (sink: (t: string) => void) => (s: string) => sink(s.replace(/\n$/, ""));
  for (const c of [program, ...program.commands])
    c.exitOverride().configureOutput({
      writeOut: write(io.out),
      // Help shown as an error (no command given) is replaced by one usage line below.
      writeErr: () => {},
      outputError: () => {},
    });
  if (argv.length === 0) return usageError("missing command");
  try {
    await program.parseAsync(argv, { from: "user" });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (NOT_ERRORS.has(err.code) && err.exitCode === 0) return EXIT_OK;
      // No command at all (e.g. `pi-sessions --`): commander would print the whole help as an error.
      if (err.code === "commander.help") return usageError("missing command");
      return usageError(err.message.replace(/^error: /, ""));
    }
    if (isUsageError(err)) return usageError(err.message);
    if (err instanceof PlainError) {
      text(io).err(`pi-sessions: ${err.message}`);
      return EXIT_REJECTED;
    }
    text(io).err(`pi-sessions: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return EXIT_REJECTED;
  }
}
