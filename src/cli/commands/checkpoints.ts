/** `pi-sessions checkpoints`. */
import type { Command } from "commander";
import { type CliContext, example } from "./shared.js";
export function defineCheckpoints(program: Command, { io, done }: CliContext): void {
  example(
    program
      .command("checkpoints")
      .summary("every compaction: who wrote it, how, its integrity, which one replays next")
      .description(
        "List every compaction entry of a session in file order: the producer (pi, Oh My Pi, Blackmagic), the " +
          "surface and model, the artifact's integrity (recomputed), and the checkpoint that replays next.",
      )
      .argument("<file>", "a session file (.jsonl)")
      .option("--json", "{checkpoints: [...]} on stdout")
      .action(async (file: string, o: { json?: boolean }) =>
        done(await (await import("../checkpoints.js")).checkpointsCommand(file, o, io)),
      ),
    ["pi-sessions checkpoints session.jsonl --json"],
  );
}
