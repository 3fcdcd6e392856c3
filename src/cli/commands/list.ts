/** `pi-sessions list`. */
import type { Command } from "commander";
import { type CliContext, storeOptions, STORE_HELP, example } from "./shared.js";
export function defineList(program: Command, { io, done }: CliContext): void {
  example(
    storeOptions(
      program
        .command("list")
        .summary("every session under the agent dirs, with its title and fork lineage")
        .description(
          "List every session, pinned families first, then newest first: its title (its name, else its first " +
            "prompt; a fork's own name, else its " +
            'first own prompt) and where a fork came from ("fork of <parent title>"). With --tree, each fork family ' +
            `under the session it started from.\n\n${STORE_HELP}`,
        )
        .option("--tree", "families: each fork and subagent indented under its parent, the newest family first")
        .option("--archived", "also the archived sessions (pi-sessions archive), marked as such")
        .option("--database [url]", "the sessions of every machine in the team database (docs/team.md)")
        .option("--machine <name>", "with --database: one machine's sessions"),
    ).action(async (o) =>
      done(
        o.database !== undefined
          ? await (
              await import("../team.js")
            ).teamListCommand({ ...o, database: typeof o.database === "string" ? o.database : undefined }, io)
          : await (await import("../list.js")).listCommand(o, io),
      ),
    ),
    [
      "pi-sessions list --workspace ~/src/app",
      "pi-sessions list --tree",
      "pi-sessions list --agent-dir ~/.omp/agent --json",
    ],
  );
}
