/** `pi-sessions repair`. */
import type { Command } from "commander";
import { type CliContext, example } from "./shared.js";
export function defineRepair(program: Command, { io, done }: CliContext): void {
  example(
    program
      .command("repair")
      .summary("remove an incomplete last line (a crash mid-write), after a backup copy")
      .description(
        "Remove an incomplete last line left by a crash, after writing a backup copy next to the file. " +
          "Without --yes it only shows the line.",
      )
      .argument("<file>", "a session file (.jsonl)")
      .option("--yes", "back up and remove the line")
      .option("--json", "the result as JSON")
      .action(async (file: string, o: { yes?: boolean; json?: boolean }) =>
        done(await (await import("../repair.js")).repairCli(file, o, io)),
      ),
    ["pi-sessions repair session.jsonl --yes"],
  );
}
