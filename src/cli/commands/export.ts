/** `pi-sessions export`. */
import { type Command, Option } from "commander";
import { type CliContext, collect, example } from "./shared.js";
export function defineExport(program: Command, { io, done }: CliContext): void {
  example(
    program
      .command("export")
      .summary("a branch as Markdown or one self-contained HTML file")
      .description(
        "Export the branch ending at a leaf (default: the active leaf), root first: messages, thinking, tool calls " +
          "and results, bash runs, compaction and branch summaries. A fork's entries copied from its parent are " +
          "marked as inherited. Markdown goes to stdout unless -o names a file. With --database, a session of " +
          "the team database as Markdown, from the texts its machine sent with sync --content: every branch in the " +
          "order written (docs/team.md).",
      )
      .argument("<file>", "a session file (.jsonl); with --database, a session's id, the start of it, or its file")
      .option("--leaf <id>", "export the branch ending here (default: the active leaf)")
      .addOption(new Option("--format <format>", "the output format").choices(["md", "html"]).default("md"))
      .option("-o, --output <file>", "write to this file (default: stdout)")
      .option("--agent-dir <dir>", "the agent dirs whose sessions tell forks apart (repeatable)", collect)
      .option("--no-cache", "bypass the metadata cache")
      .option("--database [url]", "a session of the team database (machines that sync with --content)")
      .option("--machine <name>", "with --database: the session on this machine")
      .action(async (file: string, o) =>
        done(
          o.database !== undefined
            ? await (
                await import("../teamExport.js")
              ).teamExportCommand(file, { ...o, database: typeof o.database === "string" ? o.database : undefined }, io)
            : await (await import("../export.js")).exportCommand(file, o, io),
        ),
      ),
    [
      "pi-sessions export session.jsonl > session.md",
      "pi-sessions export session.jsonl --format html -o session.html",
      "pi-sessions export 0f3c9a2e --database --machine laptop -o laptop-session.md",
    ],
  );
}
