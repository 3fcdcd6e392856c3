/** `pi-sessions rename` and `pi-sessions label`. */
import type { Command } from "commander";
import { collect, type CliContext, example } from "./shared.js";
import type { ManageValues } from "../manage.js";

const writeOptions = (command: Command) =>
  command
    .option(
      "--agent-dir <dir>",
      "the session folders the file must be in, instead of the defaults (repeatable)",
      collect,
    )
    .option("--session-dir <dir>", "also allow this flat session dir (repeatable)", collect)
    .option("--dry-run", "show the entry that would be appended; write nothing")
    .option("--json", "the result as JSON");

export function defineRename(program: Command, { io, done }: CliContext): void {
  example(
    writeOptions(
      program
        .command("rename")
        .summary("name a session, as pi's session picker does (an appended session_info entry)")
        .description(
          "Append a session_info entry with the new name, as pi's appendSessionInfo writes it, so pi shows it. " +
            'An empty name ("") clears the name. Refused while an agent is writing the file.',
        )
        .argument("<file>", "a session file (.jsonl) under the session folders")
        .argument("<name>", "the new name"),
    ).action(async (file: string, name: string, o: ManageValues) =>
      done(await (await import("../manage.js")).renameCli(file, name, o, io)),
    ),
    ['pi-sessions rename session.jsonl "CSV importer: amounts"'],
  );
}

export function defineLabel(program: Command, { io, done }: CliContext): void {
  example(
    writeOptions(
      program
        .command("label")
        .summary("label an entry, or remove its label, as pi's /tree does (an appended label entry)")
        .description(
          "Append a label entry on the entry, as pi's appendLabelChange writes it; without a text, the label is " +
            "removed. Labels show in pi's /tree and in every view of this tool.",
        )
        .argument("<file>", "a session file (.jsonl) under the session folders")
        .argument("<entry>", "the id of the entry to label")
        .argument("[text]", "the label; leave out to remove it"),
    ).action(async (file: string, entry: string, label: string | undefined, o: ManageValues) =>
      done(await (await import("../manage.js")).labelCli(file, entry, label, o, io)),
    ),
    ["pi-sessions label session.jsonl 3a09a93f checkpoint-before-refactor"],
  );
}
