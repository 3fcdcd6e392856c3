/** `pi-sessions sync`. */
import type { Command } from "commander";
import { type CliContext, DATABASE_HELP, storeOptions, STORE_HELP, example } from "./shared.js";
export function defineSync(program: Command, { io, version, done }: CliContext): void {
  example(
    storeOptions(
      program
        .command("sync")
        .summary("send this machine's sessions' usage (and, with --content, their text) to the team database")
        .description(
          "Push what this machine's store knows to a PostgreSQL database shared by your machines or your team: a " +
            "row per session (id, agent, project, times, lineage, its name) and one per usage record, keyed so " +
            "that a record two machines carry (a fork's copies, a copied session) is one row. Nothing of the " +
            "conversation's text unless --content. Only what changed since the last sync is sent; a sync stopped " +
            "at any point leaves the database consistent, and the next one completes it. The schema is created " +
            `and migrated by the tool. See docs/team.md.\n\n${DATABASE_HELP}\n\n${STORE_HELP}`,
        ),
    )
      .option("--database <url>", "the team database (else $PI_SESSIONS_DATABASE_URL, else libpq's PG* variables)")
      .option(
        "--machine <name>",
        "this machine's name in the database (default: the host name; letters, digits, . _ @ -, ≤ 63 bytes)",
      )
      .option(
        "--content",
        "also send the conversation's text (prompts, replies, tool calls, summaries) for team search",
      )
      .option("--redact-paths", "send project paths as their last folder's name and session files as digests")
      .option("--full", "send every session again (forget what the last sync sent)")
      .option("--init", "only create or migrate the database's schema")
      .action(async (o) =>
        done(
          await (
            await import("../team.js")
          ).syncCommand({ ...o, progress: process.stderr.isTTY === true }, version, io),
        ),
      ),
    [
      "pi-sessions sync --database postgres://me@db.example/team --machine laptop",
      "PI_SESSIONS_DATABASE_URL=postgres://… pi-sessions sync --content",
      "pi-sessions usage --database postgres://me@db.example/team --by machine",
    ],
  );
}
