/** `pi-sessions context`. */
import type { Command } from "commander";
import { type CliContext, example } from "./shared.js";
export function defineContext(program: Command, { io, done }: CliContext): void {
  example(
    program
      .command("context")
      .summary("the messages the model saw at a leaf (default: the active leaf)")
      .description("Print the context the model saw at an entry, as pi builds it: summary, kept messages, branches.")
      .argument("<file>", "a session file (.jsonl)")
      .option("--leaf <id>", "the entry to build the context at (default: the active leaf)")
      .option("--json", "{leafId, messages, thinkingLevel, model} on stdout")
      .action(async (file: string, o: { leaf?: string; json?: boolean }) =>
        done(await (await import("../fileCommands.js")).contextCommand(file, o, io)),
      ),
    ["pi-sessions context session.jsonl --leaf 3f402e06 --json"],
  );
}
