/** `pi-sessions compact`. */
import { type Command, Option } from "commander";
import { type CliContext, example } from "./shared.js";
export function defineCompact(program: Command, { io, version, done }: CliContext): void {
  example(
    program
      .command("compact")
      .summary("compact a branch through a provider's server compaction and append the checkpoint")
      .description(
        "Compact a branch through OpenAI, Azure OpenAI or ChatGPT Codex server compaction and append the checkpoint " +
          "(Blackmagic-compatible). Without --yes it only prints the plan. Credentials: OPENAI_API_KEY, " +
          "AZURE_OPENAI_API_KEY, or the ChatGPT login in ~/.pi/agent/auth.json or ~/.codex/auth.json.",
      )
      .argument("<file>", "a session file (.jsonl)")
      .addOption(new Option("--provider <provider>", "the provider").choices(["openai", "azure", "codex"]))
      .option("--model <model>", "the model id, e.g. gpt-5.1")
      .option("--leaf <id>", "compact the branch ending here (default: the active leaf)")
      .option("--azure-resource <name>", "Azure OpenAI resource name")
      .option("--azure-deployment <name>", "Azure OpenAI deployment (default: the model id)")
      .option("--base-url <url>", "send to this URL instead (https on the official host, or http on loopback)")
      .option("--keep-recent-tokens <n>", "recent context kept verbatim (default: pi's setting, else 20000)")
      .addOption(new Option("--summary <kind>", "the readable summary").choices(["extractive", "llm"]))
      .option("--timeout-ms <n>", "one deadline for the whole provider call")
      .option("--dry-run", "print the plan and the request body; send nothing")
      .option("--yes", "compact and write (otherwise only the plan)")
      .option("--write-fallback", "after a provider failure, write a readable-only compaction")
      .option("--json", "the result as JSON")
      .action(async (file: string, o) => done(await (await import("../compact.js")).compactCli(file, o, io, version))),
    [
      "pi-sessions compact session.jsonl --provider openai --model gpt-5.1 --dry-run",
      "OPENAI_API_KEY=… pi-sessions compact session.jsonl --provider openai --model gpt-5.1 --yes",
    ],
  );
}
