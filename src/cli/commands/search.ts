/** `pi-sessions search`. */
import type { Command } from "commander";
import { type CliContext, storeOptions, STORE_HELP, example } from "./shared.js";
export function defineSearch(program: Command, { io, done }: CliContext): void {
  example(
    storeOptions(
      program
        .command("search")
        .argument("<query...>", "words to find")
        .summary("full-text search over every session: prompts, replies, tool output, summaries")
        .description(
          "Search every session's text on an SQLite full-text index kept in the cache dir (built on the first run, " +
            'then updated with what changed). Words are AND-ed; "a phrase"; prefix*; -word excludes; filters ' +
            "role:user|assistant|tool|thinking|summary|meta|custom|system, tool:NAME, project:NAME, " +
            "since:YYYY-MM-DD, until:YYYY-MM-DD, session:ID-PREFIX. Thinking and system prompts are searched only " +
            "with role:thinking or role:system. A fork's copied entries are indexed once, in the session that wrote " +
            "them; a hit lists the forks that carry it (alsoIn)." +
            `\n\n${STORE_HELP}`,
        ),
    )
      .option("--limit <n>", "at most this many hits", "20")
      .option("--role <roles>", "only these roles, e.g. user|assistant")
      .option("--since <date>", "from this day on (YYYY-MM-DD)")
      .option("--until <date>", "up to and including this day (YYYY-MM-DD)")
      .option("--database [url]", "search the team database's text (machines that sync with --content)")
      // `-word` excludes a word: an unknown option here is a query word, not a mistake.
      .allowUnknownOption()
      .action(async (words: string[], o) =>
        done(
          o.database !== undefined
            ? await (
                await import("../team.js")
              ).teamSearchCommand(
                words,
                { ...o, database: typeof o.database === "string" ? o.database : undefined },
                io,
              )
            : await (
                await import("../search.js")
              ).searchCommand(words, { ...o, progress: process.stderr.isTTY === true }, io),
        ),
      ),
    ['pi-sessions search "parentheses bug" role:user', "pi-sessions search ENOENT tool:bash since:2026-11-01 --json"],
  );
}
