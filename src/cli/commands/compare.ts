/** `pi-sessions compare`. */
import type { Command } from "commander";
import { type CliContext, collect, example } from "./shared.js";
export function defineCompare(program: Command, { io, done }: CliContext): void {
  example(
    program
      .command("compare")
      .summary("two branches of a session, or a fork and its parent, side by side from their fork point")
      .description(
        "Compare two branches from the entry they share last: per side the entries after it, their cost and " +
          "tokens, the files changed and read (read, edit and write calls, resolved against the session's cwd), " +
          "and the last answer. A --leaf is an entry id of the session, `active` for its active leaf, or a fork's " +
          "session file (its active leaf): a fork shares its parent's entries up to where it forked.",
      )
      .argument("<file>", "a session file (.jsonl)")
      .option("--leaf <id|active|file>", "a side (give two)", collect)
      .option("--json", "{forkPoint, sides: [{leaf, entries, cost, tokens, filesModified, filesRead, lastAssistant}]}")
      .action(async (file: string, o: { leaf?: string[]; json?: boolean }) =>
        done(await (await import("../compare.js")).compareCommand(file, o, io)),
      ),
    [
      "pi-sessions compare session.jsonl --leaf active --leaf 3f402e06",
      "pi-sessions compare parent.jsonl --leaf active --leaf fork.jsonl --json",
    ],
  );
}
