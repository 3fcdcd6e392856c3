/** `pi-sessions usage`. */
import { type Command, Option } from "commander";
import { type CliContext, storeOptions, STORE_HELP, example } from "./shared.js";
export function defineUsage(program: Command, { io, done }: CliContext): void {
  example(
    storeOptions(
      program
        .command("usage")
        .summary("tokens and cost by day, week, month, session, model or project; forks counted once")
        .description(
          "Report tokens and cost. A fork's turns copied from its parent count once, for the parent; an Oh My Pi " +
            `subagent counts once, through its parent.\n\n${STORE_HELP}`,
        ),
    )
      .addOption(
        new Option("--by <group>", "group rows by (machine: with --database)")
          .choices(["day", "week", "month", "session", "model", "project", "machine"])
          .default("session"),
      )
      .option("--database [url]", "report the team database's usage, every machine's (docs/team.md)")
      .option("--machine <name>", "with --database: one machine's usage")
      .option("--since <date>", "from this day on (YYYY-MM-DD or YYYYMMDD)")
      .option("--until <date>", "up to and including this day (YYYY-MM-DD or YYYYMMDD)")
      .option("--timezone <zone>", "cut days in this IANA time zone (default: local), e.g. UTC, Europe/Berlin")
      .option("--breakdown", "per-model rows under each row (--by day, week, month or project)")
      .option("--file <file>", "one session file on its own")
      .action(async (o) =>
        done(
          o.database !== undefined
            ? await (
                await import("../team.js")
              ).teamUsageCommand({ ...o, database: typeof o.database === "string" ? o.database : undefined }, io)
            : await (await import("../usage.js")).usageCommand(o, io),
        ),
      ),
    [
      "pi-sessions usage --by day --since 20261101 --until 20261130",
      "pi-sessions usage --by month --breakdown --timezone UTC",
      "pi-sessions usage --by model --json",
      "pi-sessions usage --database postgres://me@db.example/team --by machine",
    ],
  );
}
