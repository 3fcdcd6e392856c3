/** `pi-sessions tree`. */
import type { Command } from "commander";
import { type CliContext, example } from "./shared.js";
export function defineTree(program: Command, { io, done }: CliContext): void {
  example(
    program
      .command("tree")
      .summary("the entry tree: branches, leaf, labels, compactions, fork origin")
      .description(
        "Print a session's entry tree as pi's /tree shows it: ● the active path, ○ abandoned branches. " +
          "JSON: file, flavor, version, header, name, leafId, roots, entries, compactions, forkOf, diagnostics.",
      )
      .argument("<file>", "a session file (.jsonl)")
      .option("--json", "one JSON object on stdout")
      .action(async (file: string, o: { json?: boolean }) =>
        done(await (await import("../fileCommands.js")).treeCommand(file, o, io)),
      ),
    ["pi-sessions tree ~/.pi/agent/sessions/--home-me-src-app--/2026-11-29T10-00-00-000Z_abc.jsonl"],
  );
}
