// The README's settings and commands tables and the CLI reference (docs/cli.md) are generated: from package.json
// (with package.nls.json) and from the CLI's own --help. `node --import tsx scripts/docs-sections.ts` rewrites them;
// `--check` exits 1 when a file is out of date (test/project/docs.test.ts runs the same check).
import { readFileSync, writeFileSync } from "node:fs";
import { run } from "../src/cli/main.js";
import { buildProgram } from "../src/cli/program.js";

interface Command {
  command: string;
  title: string;
  icon?: string;
}
interface MenuItem {
  command: string;
  when?: string;
  group?: string;
}
interface Setting {
  type: string;
  default: unknown;
  markdownDescription: string;
  enum?: string[];
  scope?: string;
}

const nls = JSON.parse(readFileSync("package.nls.json", "utf8")) as Record<string, string>;
const pkg = JSON.parse(readFileSync("package.json", "utf8"), (_k, v: unknown) =>
  typeof v === "string" ? v.replace(/^%([^%]+)%$/, (whole, key: string) => nls[key] ?? whole) : v,
) as {
  contributes: {
    commands: Command[];
    menus: Record<string, MenuItem[]>;
    configuration: { properties: Record<string, Setting> };
  };
};

/** A Markdown table cell: one line, pipes escaped. */
const cell = (text: string) => text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|");

function settingsTable(): string {
  const rows = Object.entries(pkg.contributes.configuration.properties).map(([key, s]) => {
    const def = JSON.stringify(s.default);
    const values = s.enum ? ` One of ${s.enum.map((e) => `\`${e}\``).join(", ")}.` : "";
    const machine = s.scope === "machine" ? " *(user settings only)*" : "";
    return `| \`${key}\` | \`${def}\` | ${cell(s.markdownDescription)}${values}${machine} |`;
  });
  return ["| setting | default | |", "|---|---|---|", ...rows].join("\n");
}

/** Commands a webview runs or a key in it calls: where the user meets them besides a menu. */
const fromWebview: Record<string, string> = {
  "piSessions.entryActions": "the transcript's ⋯ on an entry",
  "piSessions.findInTranscript": "Ctrl+F (Cmd+F) in a transcript",
  "piSessions.labelEntry": "the transcript's ⋯ on an entry",
};

function commandsTable(): string {
  const menus = pkg.contributes.menus;
  const hidden = new Set((menus.commandPalette ?? []).filter((m) => m.when === "false").map((m) => m.command));
  const rows = pkg.contributes.commands.map((c) => {
    const where: string[] = [];
    if (!hidden.has(c.command)) where.push("Command Palette");
    const title = (menus["view/title"] ?? []).filter((m) => m.command === c.command);
    if (title.some((m) => m.group?.startsWith("navigation"))) where.push("the view's title bar");
    if (title.some((m) => !m.group?.startsWith("navigation"))) where.push("the view's ⋯ menu");
    const context = (menus["view/item/context"] ?? []).filter((m) => m.command === c.command);
    if (context.some((m) => m.group?.startsWith("inline"))) where.push("inline in the tree");
    if (context.some((m) => !m.group?.startsWith("inline"))) where.push("the tree's context menu");
    if (fromWebview[c.command]) where.push(fromWebview[c.command]!);
    return `| **${cell(c.title)}** | ${where.join(", ") || "a click in the tree"} |`;
  });
  return ["| command (category *Pi Sessions*) | where |", "|---|---|", ...rows].join("\n");
}

async function help(args: string[]): Promise<string> {
  let out = "";
  const code = await run([...args, "--help"], { out: (t) => (out += `${t}\n`), err: () => {}, columns: 100 });
  if (code !== 0) throw new Error(`pi-sessions ${args.join(" ")} --help exited ${code}`);
  return out.trimEnd();
}

/** Every command of the CLI, in the order `--help` lists them. */
function cliCommands() {
  return buildProgram({ out: () => {}, err: () => {} }, "", () => {}).commands;
}

function cliCommandsTable(): string {
  const rows = cliCommands().map((c) => {
    const args = c.registeredArguments
      .map((a) => `${a.name()}${a.variadic ? "..." : ""}`)
      .map((n, i) => (c.registeredArguments[i]!.required ? `<${n}>` : `[${n}]`))
      .join(" ");
    const synopsis = `${c.name()}${args ? ` ${args}` : ""}`;
    return `| [\`${synopsis}\`](docs/cli.md#pi-sessions-${c.name()}) | ${cell(c.summary())} |`;
  });
  return ["| command | |", "|---|---|", ...rows].join("\n");
}

async function cliReference(): Promise<string> {
  const parts = [
    "# `pi-sessions` command reference",
    "",
    "Generated from the CLI's own `--help` by `scripts/docs-sections.ts`; a test fails when it drifts.",
    "",
    "```text",
    await help([]),
    "```",
  ];
  for (const c of cliCommands().map((x) => x.name()))
    parts.push("", `## pi-sessions ${c}`, "", "```text", await help([c]), "```");
  return `${parts.join("\n")}\n`;
}

/** Replace the text between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`. */
function fill(doc: string, name: string, body: string): string {
  const re = new RegExp(`(<!-- generated:${name} -->)[\\s\\S]*?(<!-- /generated:${name} -->)`);
  if (!re.test(doc)) throw new Error(`README.md has no generated:${name} block`);
  return doc.replace(re, (_m, open: string, close: string) => `${open}\n${body}\n${close}`);
}

/** The README and docs/cli.md as they should be. */
export async function generatedDocs(readme: string): Promise<{ readme: string; cli: string }> {
  let doc = fill(readme, "settings", settingsTable());
  doc = fill(doc, "commands", commandsTable());
  doc = fill(doc, "cli", cliCommandsTable());
  return { readme: doc, cli: await cliReference() };
}

if (process.argv[1]?.endsWith("docs-sections.ts")) {
  const readme = readFileSync("README.md", "utf8");
  const cli = (() => {
    try {
      return readFileSync("docs/cli.md", "utf8");
    } catch {
      return "";
    }
  })();
  const next = await generatedDocs(readme);
  if (process.argv.includes("--check")) {
    const stale = [next.readme !== readme && "README.md", next.cli !== cli && "docs/cli.md"].filter(Boolean);
    if (stale.length) {
      console.error(`out of date: ${stale.join(", ")} (run node --import tsx scripts/docs-sections.ts)`);
      process.exit(1);
    }
  } else {
    writeFileSync("README.md", next.readme);
    writeFileSync("docs/cli.md", next.cli);
  }
}
