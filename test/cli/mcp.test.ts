// `pi-sessions mcp` as agents meet it: the built CLI (dist/cli.js, which `npm test` builds before the unit tests)
// spawned by the MCP SDK's own Client over stdio, on a copy of the real pi 1.6 sessions and on a generated 100 MB
// session. Expectations come from the raw files.
import * as assert from "node:assert/strict";
import { cpSync, createWriteStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { header, message, toolCall, toolResult } from "../support/builders.js";
import { REAL } from "../support/fixtures.js";
import { askPi16, type Pi16Mcp } from "../support/pi16.js";

const CLI = join(import.meta.dirname, "..", "..", "dist", "cli.js");
const TOOLS = ["file_history", "list_sessions", "read_session", "search_sessions", "session_usage"];

type Answer = { content: { type: string; text: string }[]; isError?: boolean };

async function connect(agentDir: string, cache: string, extra: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", "--agent-dir", agentDir, ...extra],
    env: { ...(process.env as Record<string, string>), PI_SESSIONS_CACHE_DIR: cache },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: "recall-test", version: "1.0.0" });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>, options = {}) =>
    (await client.callTool({ name, arguments: args }, undefined, options)) as Answer;
  return { client, transport, call, stderr: () => stderr };
}

const textOf = (a: Answer) => a.content.map((c) => c.text).join("");
const dataOf = (a: Answer) => JSON.parse(textOf(a).slice(textOf(a).indexOf("\n") + 1)) as Record<string, unknown>;

/** A session of about `mb` MB: turns whose tool outputs are 256 KB each, a word in the middle turn's prompt. */
async function largeSession(file: string, mb: number): Promise<void> {
  const out = createWriteStream(file);
  const write = (r: unknown) => (out.write(`${JSON.stringify(r)}\n`) ? null : once(out, "drain"));
  await write(header({ id: "big-session-0001", cwd: "/home/u/big" }));
  const blob = "x".repeat(256 * 1024);
  const turns = Math.ceil((mb * 1024) / 256);
  let parent: string | null = null;
  for (let i = 0; i < turns; i++) {
    const u = `u${i}`;
    const c = `c${i}`;
    const t = `t${i}`;
    const prompt = i === Math.floor(turns / 2) ? `step ${i}: the quetzalcoatl marker` : `step ${i}`;
    await write(message(u, parent, "user", prompt, { time: i * 3 }));
    await write(toolCall(c, u, "bash", { command: `echo ${i}` }, { time: i * 3 + 1 }));
    await write(toolResult(t, c, c, "bash", blob, { time: i * 3 + 2 }));
    parent = t;
  }
  out.end();
  await once(out, "finish");
}

describe("pi-sessions mcp (a real MCP client over stdio)", function () {
  this.timeout(300_000);
  let home: string;
  let agentDir: string;
  let server: Awaited<ReturnType<typeof connect>>;

  before(async () => {
    home = mkdtempSync(join(tmpdir(), "pi-mcp-"));
    agentDir = join(home, "agent");
    cpSync(join(REAL, "pi-1.6"), agentDir, { recursive: true });
    server = await connect(agentDir, join(home, "cache"));
  });
  after(async () => {
    await server.client.close();
    rmSync(home, { recursive: true, force: true });
  });

  it("lists the five tools with their input schemas, read-only", async () => {
    const { tools } = await server.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
    const read = tools.find((t) => t.name === "read_session")!;
    assert.deepEqual(read.inputSchema.required, ["session"]);
    assert.deepEqual(Object.keys(read.inputSchema.properties ?? {}).sort(), [
      "branch",
      "entry",
      "from",
      "maxChars",
      "session",
      "thinking",
    ]);
    assert.ok(tools.every((t) => t.annotations?.readOnlyHint === true));
  });

  it("a search for a tool's output finds its session and entry; read_session there has a working `next`", async () => {
    const file = join(
      agentDir,
      "sessions",
      "--home-ana-src-tidepool--",
      "2026-11-24T08-23-59-262Z_01a20ca7-961d-7164-bbff-7f8b174cf507.jsonl",
    );
    const raw = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: string; message?: { role: string } });
    const result = raw.find((r) => r.message?.role === "toolResult" && JSON.stringify(r).includes("logs/heights.csv"))!;
    const found = await server.call("search_sessions", { query: '"logs/heights.csv"', scope: "all" });
    assert.ok(!found.isError, textOf(found));
    const hits = dataOf(found).hits as { file: string; entry: string }[];
    assert.ok(
      hits.some((h) => h.file === file && h.entry === result.id),
      textOf(found),
    );
    const read = await server.call("read_session", {
      session: "01a20ca7-961d-7164-bbff-7f8b174cf507",
      entry: result.id,
      maxChars: 1500,
    });
    assert.ok(textOf(read).includes(`entry ${result.id}`));
    const next = /"from": "([A-Za-z0-9_-]+)"/.exec(textOf(read))?.[1];
    assert.ok(next, "a next cursor");
    const more = await server.call("read_session", { session: "01a20ca7-961d-7164-bbff-7f8b174cf507", from: next });
    assert.ok(!more.isError, textOf(more));
    // It goes on after the first window: the entries it names follow the ones the first named, in the raw order.
    const order = raw.map((r) => r.id);
    const ids = (t: string) => [...t.matchAll(/entry ([0-9a-f]{8})\b/g)].map((m) => order.indexOf(m[1]!));
    assert.ok(Math.min(...ids(textOf(more))) > Math.max(...ids(textOf(read))), textOf(more));
  });

  it("a path outside the agent dirs and a malformed argument are tool errors; the server goes on", async () => {
    const outside = await server.call("read_session", { session: "/etc/hostname" });
    assert.equal(outside.isError, true);
    assert.match(textOf(outside), /not a session file under the agent dirs/);
    const malformed = await server.call("search_sessions", { query: "x", limit: "ten" });
    assert.equal(malformed.isError, true);
    assert.match(textOf(malformed), /limit/);
    const missing = await server.call("read_session", {});
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /session/);
    assert.ok(!(await server.call("list_sessions", {})).isError);
  });

  it("a call's scope is the client's roots, asked again when the client says they changed", async () => {
    // From the raw files: the sessions whose header's cwd is each folder.
    const headerCwd = (f: string) => (JSON.parse(readFileSync(f, "utf8").split("\n")[0]!) as { cwd: string }).cwd;
    const files = readdirSync(join(agentDir, "sessions"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => join(agentDir, "sessions", f));
    const of = (cwd: string) => files.filter((f) => headerCwd(f) === cwd).sort();
    let roots = ["/home/ana/src/tidepool"];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", "--agent-dir", agentDir],
      env: { ...(process.env as Record<string, string>), PI_SESSIONS_CACHE_DIR: join(home, "cache") },
      stderr: "pipe",
    });
    const client = new Client({ name: "roots-test", version: "1" }, { capabilities: { roots: { listChanged: true } } });
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: roots.map((r) => ({ uri: pathToFileURL(r).href, name: r })),
    }));
    await client.connect(transport);
    try {
      const listed = async () => {
        const r = (await client.callTool({ name: "list_sessions", arguments: { limit: 200 } })) as Answer;
        return (dataOf(r).sessions as { file: string }[]).map((s) => s.file).sort();
      };
      assert.deepEqual(await listed(), of("/home/ana/src/tidepool"));
      roots = ["/home/ana/work/quillmark"];
      await client.sendRootsListChanged();
      assert.deepEqual(await listed(), of("/home/ana/work/quillmark"));
      const all = (await client.callTool({ name: "list_sessions", arguments: { scope: "all", limit: 200 } })) as Answer;
      assert.equal((dataOf(all).sessions as unknown[]).length, files.length);
    } finally {
      await client.close();
    }
  });

  it("survives 1,000 calls, a cancelled call and a client that goes away mid-call", async () => {
    for (let i = 0; i < 1000; i++) {
      const r = await server.call(
        i % 2 ? "list_sessions" : "search_sessions",
        i % 2 ? { limit: 1 } : { query: "tide" },
      );
      if (r.isError) assert.fail(textOf(r));
    }
    const big = join(home, "big");
    mkdirSync(join(big, "sessions", "--home-u-big--"), { recursive: true });
    await largeSession(join(big, "sessions", "--home-u-big--", "2026-01-01T00-00-00-000Z_big.jsonl"), 100);
    const second = await connect(big, join(home, "cache-big"));
    try {
      // Bounded by maxChars, and the window around a hit in the middle of 100 MB.
      const found = await second.call("search_sessions", { query: "quetzalcoatl" });
      const hit = (dataOf(found).hits as { entry: string }[])[0];
      assert.ok(hit, textOf(found));
      const read = await second.call("read_session", { session: "big-session-0001", entry: hit.entry, maxChars: 5000 });
      assert.ok(!read.isError, textOf(read));
      assert.ok(textOf(read).length <= 5000, `${textOf(read).length} characters`);
      assert.ok(textOf(read).includes(`entry ${hit.entry}`));
      // A call cancelled by the client: the next one is answered.
      const controller = new AbortController();
      const cancelled = second.call(
        "read_session",
        { session: "big-session-0001", maxChars: 60000 },
        { signal: controller.signal },
      );
      controller.abort();
      await assert.rejects(cancelled);
      assert.ok(!(await second.call("list_sessions", {})).isError);
    } finally {
      await second.client.close();
    }
    // Gone mid-call: the process ends on its own, with no error.
    const third = await connect(big, join(home, "cache-big"));
    const pid = third.transport.pid!;
    void third.call("read_session", { session: "big-session-0001", maxChars: 60000 }).catch(() => {});
    await new Promise((r) => setTimeout(r, 50));
    await third.client.close();
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(alive(pid), false, "the server exited");
    assert.doesNotMatch(third.stderr(), /internal error|Error:/);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("pi-sessions mcp with pi 1.6's own MCP client (@earendil-works/pi-mcp)", function () {
  this.timeout(120_000);

  it("pi lists the tools and gets the answers; its roots scope the calls", () => {
    const home = mkdtempSync(join(tmpdir(), "pi-mcp-pi16-"));
    const agentDir = join(home, "agent");
    cpSync(join(REAL, "pi-1.6"), agentDir, { recursive: true });
    try {
      const [answer] = askPi16<Pi16Mcp>({
        op: "mcp",
        command: process.execPath,
        args: [CLI, "mcp", "--agent-dir", agentDir],
        env: { PATH: process.env.PATH ?? "", HOME: home, PI_SESSIONS_CACHE_DIR: join(home, "cache") },
        roots: [{ uri: pathToFileURL("/home/ana/src/tidepool").href, name: "tidepool" }],
        calls: [
          { name: "list_sessions", arguments: {} },
          { name: "search_sessions", arguments: { query: '"logs/heights.csv"' } },
          { name: "read_session", arguments: { session: "01a20ca7-961d-7164-bbff-7f8b174cf507", maxChars: 4000 } },
          { name: "read_session", arguments: { session: "/etc/passwd" } },
        ],
      });
      assert.deepEqual(answer!.tools.map((t) => t.name).sort(), TOOLS);
      const [list, search, read, refused] = answer!.results.map((r) => ({
        ...r,
        text: r.content.map((c) => c.text ?? "").join(""),
      }));
      // Scoped to pi's root: the tidepool sessions, from their raw headers.
      const tidepool = readdirSync(join(agentDir, "sessions", "--home-ana-src-tidepool--")).filter((f) =>
        f.endsWith(".jsonl"),
      );
      assert.equal(
        (dataOf({ content: [{ type: "text", text: list!.text }] }).sessions as unknown[]).length,
        tidepool.length,
      );
      assert.match(search!.text, /"entry": "eb4d7e3b"/);
      assert.match(read!.text, /<<<session-data [0-9a-f]{12}>>>/);
      assert.ok(read!.text.length <= 4000);
      assert.equal(refused!.isError, true);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
