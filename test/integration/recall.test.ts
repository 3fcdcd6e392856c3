// The recall tools in a real VS Code, called as agent mode calls them (`vscode.lm.invokeTool`), answered from the
// extension's loaded library and index. Expectations come from the raw session files, and from the `pi-sessions`
// CLI run on the same HOME (the MCP server's tools answer as the CLI does).
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import { HOME, PROJ, rawRecords, storeFiles } from "./fixtureHome.js";
import { activateExtension } from "./harness.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mcpServerCommand } from "../../src/extension/recall/mcpProvider.js";

const TOOLS = ["search_sessions", "read_session", "list_sessions", "file_history", "session_usage"];

async function invoke(name: string, input: Record<string, unknown>): Promise<string> {
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : "")).join("");
}

const dataOf = (text: string) => JSON.parse(text.slice(text.indexOf("\n") + 1)) as Record<string, unknown>;

/** The CLI of this working tree on the same HOME and agent dirs, its JSON. */
function cli(...args: string[]): Record<string, unknown> {
  const ext = vscode.extensions.getExtension("pi-session-explorer.pi-session-explorer")!;
  const r = spawnSync(process.execPath, [path.join(ext.extensionPath, "dist", "cli.js"), ...args, "--json"], {
    env: { ...process.env, HOME, ELECTRON_RUN_AS_NODE: "1" },
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

/** A workspace session's header cwd and its records. */
function workspaceSessions() {
  return fs
    .readdirSync(PROJ)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => path.join(PROJ, f));
}

suite("Recall tools in a real VS Code (language-model tools)", () => {
  let api: PiSessionsApi;

  suiteSetup(async () => {
    api = await activateExtension({ complete: true });
  });

  test("the five tools are registered with their schemas", () => {
    const ours = vscode.lm.tools.filter((t) => TOOLS.includes(t.name));
    assert.deepEqual(ours.map((t) => t.name).sort(), [...TOOLS].sort());
    const read = ours.find((t) => t.name === "read_session")!;
    assert.deepEqual((read.inputSchema as { required?: string[] }).required, ["session"]);
  });

  test("search_sessions finds a tool's output in its entry; read_session opens the window at it", async () => {
    // From the raw files: a tool result of the workspace with a distinctive three-word start.
    let target: { file: string; id: string; phrase: string } | undefined;
    for (const file of workspaceSessions()) {
      for (const r of rawRecords(file)) {
        if (r.message?.role !== "toolResult" || !Array.isArray(r.message.content)) continue;
        const text = (r.message.content as { text?: string }[]).map((b) => b.text ?? "").join(" ");
        const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
        if (words.length >= 3) target ??= { file, id: r.id, phrase: words.slice(0, 3).join(" ") };
      }
    }
    assert.ok(target, "a tool output with three words");
    const found = dataOf(await invoke("search_sessions", { query: `"${target.phrase}"`, limit: 50 }));
    const hits = found.hits as { file: string; entry: string }[];
    // Found in the session that wrote it (a fork's copy is its parent's entry).
    const hit = hits.find((h) => h.entry === target.id);
    assert.ok(hit, JSON.stringify(hits.slice(0, 5)));
    const read = await invoke("read_session", { session: hit.file, entry: target.id });
    assert.ok(read.includes(`entry ${target.id}`), read.slice(0, 400));
    assert.match(read, /<<<session-data [0-9a-f]+>>>/);
  });

  test("list_sessions covers the window's folder; file_history and session_usage answer as the CLI", async () => {
    const listed = dataOf(await invoke("list_sessions", { limit: 200 }));
    const folder = path.join(HOME, "src", "proj");
    // The sessions whose header cwd is the workspace folder (or inside it), from the raw files.
    // The header's cwd (Oh My Pi writes its title slot before the header); a file with no header to read goes with
    // the folder it is in, as every view places it.
    const cwdOf = (f: string) => {
      for (const line of fs.readFileSync(f, "utf8").split("\n").slice(0, 2)) {
        try {
          const r = JSON.parse(line) as { type?: string; cwd?: string };
          if (r.type === "session") return r.cwd ?? "";
        } catch {
          // an empty or damaged line
        }
      }
      return null;
    };
    const inFolder = (f: string) => {
      const cwd = cwdOf(f);
      return cwd === null ? path.dirname(f) === PROJ : cwd === folder || cwd.startsWith(`${folder}/`);
    };
    const expected = storeFiles().filter(inFolder);
    assert.deepEqual((listed.sessions as { file: string }[]).map((s) => s.file).sort(), expected.sort());
    const usage = dataOf(await invoke("session_usage", { by: "model", scope: "all" }));
    const { scope: _scope, ...tool } = usage;
    assert.deepEqual(tool, cli("usage", "--by", "model"));
    // A file the workspace's sessions edited, from the raw tool calls.
    const edited = workspaceSessions()
      .flatMap((f) => rawRecords(f))
      .flatMap((r) =>
        Array.isArray(r.message?.content)
          ? (r.message.content as { name?: string; arguments?: { path?: string } }[])
          : [],
      )
      .find((b) => b.name === "edit" && typeof b.arguments?.path === "string")?.arguments?.path;
    assert.ok(edited, "an edit in the workspace's sessions");
    const history = dataOf(await invoke("file_history", { path: edited, scope: "all" }));
    const absolute = path.resolve(folder, edited);
    const touches = cli("touches", absolute).touches as { entryId: string }[];
    assert.deepEqual(
      (history.turns as { entry: string }[]).map((t) => t.entry),
      touches.map((t) => t.entryId),
    );
  });

  test("the MCP server VS Code is offered runs: its command line answers a real MCP client", async () => {
    const ext = vscode.extensions.getExtension("pi-session-explorer.pi-session-explorer")!;
    const { command, args, env } = mcpServerCommand(ext.extensionPath);
    const transport = new StdioClientTransport({
      command,
      args: [...args, "--workspace", path.join(HOME, "src", "proj")],
      env: { ...(process.env as Record<string, string>), ...env, HOME },
    });
    const client = new Client({ name: "in-host", version: "1" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort());
      const r = (await client.callTool({ name: "list_sessions", arguments: { limit: 200 } })) as {
        content: { text: string }[];
      };
      const viaMcp = (dataOf(r.content[0]!.text).sessions as { file: string }[]).map((s) => s.file).sort();
      const viaTool = (dataOf(await invoke("list_sessions", { limit: 200 })).sessions as { file: string }[])
        .map((s) => s.file)
        .sort();
      assert.deepEqual(viaMcp, viaTool);
    } finally {
      await client.close();
    }
  });

  test("a session file outside the agent dirs is refused, and nothing is opened", async () => {
    const outside = path.join(HOME, "outside.jsonl");
    fs.copyFileSync(workspaceSessions()[0]!, outside);
    await assert.rejects(invoke("read_session", { session: outside }), /not a session file under the agent dirs/);
    assert.equal(api.service.lib.get(outside), undefined);
  });
});
