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
        .summary("name a session, as pi's session picker and Oh My Pi's /rename do")
        .description(
          "pi: append a session_info entry with the new name, as pi's appendSessionInfo writes it; an empty name " +
            '("") clears the name. Oh My Pi: append a title_change entry and update the title slot at the head of ' +
            "the file in place, as OMP's setSessionName does. Refused while an agent is writing the file.",
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

const MARKS = {
  pin: [
    "pin a session: it lists first",
    "Pin a session by its id. Oh My Pi sessions are pinned in OMP's own session-pins.json, so omp shows the pin; " +
      "pi's pins are kept in session-marks.json in the cache dir, which the extension shares.",
  ],
  unpin: ["unpin a session", "Remove a session's pin (from OMP's session-pins.json for an Oh My Pi session)."],
  archive: [
    "archive a session: hidden from the listing",
    "Hide a session from list and from the extension's groups (list --archived shows it). The file is not moved " +
      "or changed; the mark is kept by session id in session-marks.json in the cache dir.",
  ],
  unarchive: ["bring an archived session back", "Remove a session's archive mark."],
} as const;

export function defineMarks(program: Command, { io, done }: CliContext): void {
  for (const [action, [summary, description]] of Object.entries(MARKS)) {
    example(
      writeOptions(
        program
          .command(action)
          .summary(summary)
          .description(description)
          .argument("<file>", "a session file (.jsonl) under the session folders"),
      ).action(async (file: string, o: ManageValues) =>
        done(await (await import("../marks.js")).markCli(action as keyof typeof MARKS, file, o, io)),
      ),
      [`pi-sessions ${action} session.jsonl`],
    );
  }
}

export function defineTrash(program: Command, { io, done }: CliContext): void {
  example(
    writeOptions(
      program
        .command("trash")
        .summary("delete a session to the trash (restore puts it back)")
        .description(
          "Move a session file to the freedesktop.org trash ($XDG_DATA_HOME/Trash, else ~/.local/share/Trash) " +
            "with its .trashinfo, as pi's session picker does through the trash tool; an Oh My Pi session's " +
            "artifacts folder (its subagents) goes with it. Its forks stay, as orphans. Refused while an agent is " +
            "writing the file.",
        )
        .argument("<file>", "a session file (.jsonl) under the session folders"),
    ).action(async (file: string, o: ManageValues) => done(await (await import("../trash.js")).trashCli(file, o, io))),
    ["pi-sessions trash session.jsonl"],
  );
  example(
    writeOptions(
      program
        .command("restore")
        .summary("put a deleted session back from the trash; without an argument, list them")
        .description(
          "Move a session (and its artifacts folder) from the trash back to the path it had, byte for byte. Name it " +
            "by that path or by its session id; without one, list the sessions under the session folders that are " +
            "in the trash, newest deletion first. Refused when a file is at that path now.",
        )
        .argument("[file-or-id]", "the path the session had, or its session id"),
    ).action(async (which: string | undefined, o: ManageValues) =>
      done(await (await import("../trash.js")).restoreCli(which, o, io)),
    ),
    ["pi-sessions restore", "pi-sessions restore 01a228a4-d97d-7000-81b9-790e6f289314"],
  );
}
