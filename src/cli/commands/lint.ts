/** `pi-sessions lint`. */
import type { Command } from "commander";
import { type CliContext, example } from "./shared.js";
export function defineLint(program: Command, { io, done }: CliContext): void {
  example(
    program
      .command("lint")
      .summary("diagnostics as FILE:LINE: severity code: message")
      .description("Check session files line by line; exits 2 when any file is rejected.")
      .argument("<files...>", "session files")
      .option("--json", "{files: [{file, rejected, diagnostics}]} on stdout")
      .action(async (files: string[], o: { json?: boolean }) =>
        done(await (await import("../fileCommands.js")).lintCommand(files, o, io)),
      ),
    ["pi-sessions lint ~/.pi/agent/sessions/*/*.jsonl"],
  );
}
