/** `pi-sessions touches`. */
import type { Command } from "commander";
import { type CliContext, storeOptions, STORE_HELP, example } from "./shared.js";
export function defineTouches(program: Command, { io, done }: CliContext): void {
  example(
    storeOptions(
      program
        .command("touches")
        .argument("<path>", "a file of your project (relative to the current directory, or absolute)")
        .summary("the agent turns that read, edited or wrote a file, newest first")
        .description(
          "List every tool call that named the file: read, edit and write (pi and Oh My Pi), with its path resolved " +
            "against the session's working directory. bash commands are not parsed for paths. A fork's copied turns " +
            `count once, for the session that wrote them.\n\n${STORE_HELP}`,
        ),
    ).action(async (path: string, o) => done(await (await import("../touches.js")).touchesCommand(path, o, io))),
    ["pi-sessions touches src/main.ts", "pi-sessions touches ~/src/app/README.md --json"],
  );
}
