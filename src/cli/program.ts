/**
 * The command line of `pi-sessions`, declared with commander: every command's synopsis, options, help text and
 * example in one place, so that `--help`, `--version` and usage errors are uniform. The commands themselves live in
 * their own modules, loaded when their command runs (a command pays only for what it uses: the table renderer's
 * Unicode tables, the OpenAI client and SQLite cost tens of milliseconds to load), and receive parsed, typed options.
 */
import { Command, Option } from "commander";
import type { Io } from "./args.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

const EXIT_CODES = `Exit codes:
  0   ok
  2   a file was rejected or is not a session
  3   compact or repair wrote nothing (refused, failed, or only planned)
  64  usage error`;

const STORE_HELP =
  "Where sessions are found: pi's $PI_CODING_AGENT_DIR (else ~/.pi/agent), Oh My Pi's ~/.omp/agent (and its " +
  "profiles), $PI_CODING_AGENT_SESSION_DIR; --agent-dir replaces them. The metadata cache lives in " +
  "$PI_SESSIONS_CACHE_DIR, else $XDG_CACHE_HOME/pi-session-explorer, else ~/.cache/pi-session-explorer. Files the " +
  "cache does not hold are read on every core ($PI_SESSIONS_THREADS sets the number of threads; 1 reads on one).";

/** The options every store command takes: where the sessions are, which workspace, the cache, JSON. */
function storeOptions(command: Command): Command {
  return command
    .option("--agent-dir <dir>", "read this agent dir instead of the defaults (repeatable)", collect)
    .option("--session-dir <dir>", "also read this flat session dir (repeatable)", collect)
    .option("--workspace <path>", "only the sessions whose working directory is inside this folder")
    .option("--no-cache", "bypass the metadata cache")
    .option("--json", "one JSON object on stdout");
}

function example(command: Command, lines: string[]): Command {
  return command.addHelpText("after", `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}`);
}

/** Build the program; `done` receives each command's exit code. */
export function buildProgram(io: Io, version: string, done: (code: number) => void): Command {
  const program = new Command("pi-sessions")
    .description(
      "Read pi and Oh My Pi coding-agent sessions: trees, context, checkpoints, usage and cost, forks counted once.",
    )
    .version(version, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help for a command")
    .helpCommand("help [command]", "show help for a command")
    .addHelpText(
      "after",
      `\n${EXIT_CODES}\n\nRun "pi-sessions <command> --help" for a command's options and an example.`,
    )
    .showSuggestionAfterError(true)
    .configureHelp({ helpWidth: Math.min(io.columns ?? 100, 100) });

  example(
    program
      .command("tree")
      .summary("the entry tree: branches, leaf, labels, compactions, fork origin")
      .description(
        "Print a session's entry tree as pi's /tree shows it: ● the active path, ○ abandoned branches. " +
          "JSON: file, flavor, version, header, name, leafId, roots, entries, compactions, forkOf, diagnostics.",
      )
      .argument("<file>", "a session file (.jsonl)")
      .option("--json", "one JSON object on stdout")
      .action(async (file: string, o: { json?: boolean }) =>
        done(await (await import("./fileCommands.js")).treeCommand(file, o, io)),
      ),
    ["pi-sessions tree ~/.pi/agent/sessions/--home-me-src-app--/2026-11-29T10-00-00-000Z_abc.jsonl"],
  );

  example(
    program
      .command("context")
      .summary("the messages the model saw at a leaf (default: the active leaf)")
      .description("Print the context the model saw at an entry, as pi builds it: summary, kept messages, branches.")
      .argument("<file>", "a session file (.jsonl)")
      .option("--leaf <id>", "the entry to build the context at (default: the active leaf)")
      .option("--json", "{leafId, messages, thinkingLevel, model} on stdout")
      .action(async (file: string, o: { leaf?: string; json?: boolean }) =>
        done(await (await import("./fileCommands.js")).contextCommand(file, o, io)),
      ),
    ["pi-sessions context session.jsonl --leaf 3f402e06 --json"],
  );

  example(
    program
      .command("export")
      .summary("a branch as Markdown or one self-contained HTML file")
      .description(
        "Export the branch ending at a leaf (default: the active leaf), root first: messages, thinking, tool calls " +
          "and results, bash runs, compaction and branch summaries. A fork's entries copied from its parent are " +
          "marked as inherited. Markdown goes to stdout unless -o names a file.",
      )
      .argument("<file>", "a session file (.jsonl)")
      .option("--leaf <id>", "export the branch ending here (default: the active leaf)")
      .addOption(new Option("--format <format>", "the output format").choices(["md", "html"]).default("md"))
      .option("-o, --output <file>", "write to this file (default: stdout)")
      .option("--agent-dir <dir>", "the agent dirs whose sessions tell forks apart (repeatable)", collect)
      .option("--no-cache", "bypass the metadata cache")
      .action(async (file: string, o) => done(await (await import("./export.js")).exportCommand(file, o, io))),
    ["pi-sessions export session.jsonl > session.md", "pi-sessions export session.jsonl --format html -o session.html"],
  );

  example(
    program
      .command("lint")
      .summary("diagnostics as FILE:LINE: severity code: message")
      .description("Check session files line by line; exits 2 when any file is rejected.")
      .argument("<files...>", "session files")
      .option("--json", "{files: [{file, rejected, diagnostics}]} on stdout")
      .action(async (files: string[], o: { json?: boolean }) =>
        done(await (await import("./fileCommands.js")).lintCommand(files, o, io)),
      ),
    ["pi-sessions lint ~/.pi/agent/sessions/*/*.jsonl"],
  );

  example(
    program
      .command("compare")
      .summary("two branches of a session, or a fork and its parent, side by side from their fork point")
      .description(
        "Compare two branches from the entry they share last: per side the entries after it, their cost and " +
          "tokens, the files changed and read (read, edit and write calls, resolved against the session's cwd), " +
          "and the last answer. A --leaf is an entry id of the session, `active` for its active leaf, or a fork's " +
          "session file (its active leaf): a fork shares its parent's entries up to where it forked.",
      )
      .argument("<file>", "a session file (.jsonl)")
      .option("--leaf <id|active|file>", "a side (give two)", collect)
      .option("--json", "{forkPoint, sides: [{leaf, entries, cost, tokens, filesModified, filesRead, lastAssistant}]}")
      .action(async (file: string, o: { leaf?: string[]; json?: boolean }) =>
        done(await (await import("./compare.js")).compareCommand(file, o, io)),
      ),
    [
      "pi-sessions compare session.jsonl --leaf active --leaf 3f402e06",
      "pi-sessions compare parent.jsonl --leaf active --leaf fork.jsonl --json",
    ],
  );

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
        done(await (await import("./checkpoints.js")).checkpointsCommand(file, o, io)),
      ),
    ["pi-sessions checkpoints session.jsonl --json"],
  );

  example(
    storeOptions(
      program
        .command("list")
        .summary("every session under the agent dirs, with its title and fork lineage")
        .description(
          "List every session, newest first: its title (its name, else its first prompt; a fork's own name, else its " +
            'first own prompt) and where a fork came from ("fork of <parent title>"). With --tree, each fork family ' +
            `under the session it started from.\n\n${STORE_HELP}`,
        )
        .option("--tree", "families: each fork and subagent indented under its parent, the newest family first"),
    ).action(async (o) => done(await (await import("./list.js")).listCommand(o, io))),
    [
      "pi-sessions list --workspace ~/src/app",
      "pi-sessions list --tree",
      "pi-sessions list --agent-dir ~/.omp/agent --json",
    ],
  );

  example(
    storeOptions(
      program
        .command("search")
        .argument("<query...>", "words to find")
        .summary("full-text search over every session: prompts, replies, tool output, summaries")
        .description(
          "Search every session's text on an SQLite full-text index kept in the cache dir (built on the first run, " +
            'then updated with what changed). Words are AND-ed; "a phrase"; prefix*; -word excludes; filters ' +
            "role:user|assistant|tool|thinking|summary|meta|custom, tool:NAME, project:NAME, since:YYYY-MM-DD, " +
            "until:YYYY-MM-DD, session:ID-PREFIX. Thinking is searched only with role:thinking. A fork's copied " +
            "entries are indexed once, in the session that wrote them; a hit lists the forks that carry it (alsoIn)." +
            `\n\n${STORE_HELP}`,
        ),
    )
      .option("--limit <n>", "at most this many hits", "20")
      .option("--role <roles>", "only these roles, e.g. user|assistant")
      .option("--since <date>", "from this day on (YYYY-MM-DD)")
      .option("--until <date>", "up to and including this day (YYYY-MM-DD)")
      // `-word` excludes a word: an unknown option here is a query word, not a mistake.
      .allowUnknownOption()
      .action(async (words: string[], o) =>
        done(
          await (
            await import("./search.js")
          ).searchCommand(words, { ...o, progress: process.stderr.isTTY === true }, io),
        ),
      ),
    ['pi-sessions search "parentheses bug" role:user', "pi-sessions search ENOENT tool:bash since:2026-11-01 --json"],
  );

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
    ).action(async (path: string, o) => done(await (await import("./touches.js")).touchesCommand(path, o, io))),
    ["pi-sessions touches src/main.ts", "pi-sessions touches ~/src/app/README.md --json"],
  );

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
        new Option("--by <group>", "group rows by")
          .choices(["day", "week", "month", "session", "model", "project"])
          .default("session"),
      )
      .option("--since <date>", "from this day on (YYYY-MM-DD or YYYYMMDD)")
      .option("--until <date>", "up to and including this day (YYYY-MM-DD or YYYYMMDD)")
      .option("--timezone <zone>", "cut days in this IANA time zone (default: local), e.g. UTC, Europe/Berlin")
      .option("--breakdown", "per-model rows under each row (--by day, week, month or project)")
      .option("--file <file>", "one session file on its own")
      .action(async (o) => done(await (await import("./usage.js")).usageCommand(o, io))),
    [
      "pi-sessions usage --by day --since 20261101 --until 20261130",
      "pi-sessions usage --by month --breakdown --timezone UTC",
      "pi-sessions usage --by model --json",
    ],
  );

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
      .action(async (file: string, o) => done(await (await import("./compact.js")).compactCli(file, o, io, version))),
    [
      "pi-sessions compact session.jsonl --provider openai --model gpt-5.1 --dry-run",
      "OPENAI_API_KEY=… pi-sessions compact session.jsonl --provider openai --model gpt-5.1 --yes",
    ],
  );

  example(
    program
      .command("repair")
      .summary("remove an incomplete last line (a crash mid-write), after a backup copy")
      .description(
        "Remove an incomplete last line left by a crash, after writing a backup copy next to the file. " +
          "Without --yes it only shows the line.",
      )
      .argument("<file>", "a session file (.jsonl)")
      .option("--yes", "back up and remove the line")
      .option("--json", "the result as JSON")
      .action(async (file: string, o: { yes?: boolean; json?: boolean }) =>
        done(await (await import("./repair.js")).repairCli(file, o, io)),
      ),
    ["pi-sessions repair session.jsonl --yes"],
  );

  return program;
}
