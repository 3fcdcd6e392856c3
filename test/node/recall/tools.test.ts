// The recall tools in process, over the real pi 1.6 sessions (a fork among them) copied to a scratch agent dir.
// Expectations come from the raw JSONL records: which entry a phrase is in, which calls named a file and when, the
// entries of a branch (parent links from the leaf); usage from `pi-sessions usage --json`.
import * as assert from "node:assert/strict";
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveRoots } from "../../../src/node/roots.js";
import { StoreSource } from "../../../src/node/recall/storeSource.js";
import { callTool, type ToolName } from "../../../src/node/recall/tools.js";
import { cliIn } from "../../support/cli.js";
import { REAL } from "../../support/fixtures.js";
import { header, message } from "../../support/builders.js";
import { jsonl } from "../../support/helpers.js";

// The bundled search worker (`npm test` builds it before the unit tests), as the CLI starts it.
const WORKER = join(import.meta.dirname, "..", "..", "..", "dist", "searchWorker.cjs");

interface Raw {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
  message?: { role: string; content: unknown };
}

const rawOf = (file: string): Raw[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Raw);

function sessionFiles(dir: string): string[] {
  return readdirSync(join(dir, "sessions"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => join(dir, "sessions", f));
}

/** The JSON part of a JSON answer (after its first line). */
const dataOf = (text: string) => JSON.parse(text.slice(text.indexOf("\n") + 1)) as Record<string, unknown>;

describe("recall tools (in process)", function () {
  this.timeout(120_000);
  let home: string;
  let agentDir: string;
  let source: StoreSource;
  let saved: string | undefined;
  const call = async (name: ToolName, args: Record<string, unknown>) => callTool(name, args, source);

  before(() => {
    home = mkdtempSync(join(tmpdir(), "pi-recall-"));
    agentDir = join(home, "agent");
    cpSync(join(REAL, "pi-1.6"), agentDir, { recursive: true });
    saved = process.env.PI_SESSIONS_CACHE_DIR;
    process.env.PI_SESSIONS_CACHE_DIR = join(home, "cache");
    source = new StoreSource({
      roots: resolveRoots({ agentDirs: [agentDir] }),
      cacheDir: join(home, "cache"),
      useCache: true,
      searchWorker: WORKER,
      workspace: () => Promise.resolve([]),
    });
  });
  after(async () => {
    await source.dispose();
    if (saved === undefined) delete process.env.PI_SESSIONS_CACHE_DIR;
    else process.env.PI_SESSIONS_CACHE_DIR = saved;
    rmSync(home, { recursive: true, force: true });
  });

  it("search finds a tool's output in its session and entry; read_session opens the window at it", async () => {
    // From the raw files: the tool result that printed "Wall time".
    const file = sessionFiles(agentDir).find((f) => readFileSync(f, "utf8").includes("Wall time"))!;
    const record = rawOf(file).find(
      (r) => r.message?.role === "toolResult" && JSON.stringify(r).includes("Wall time"),
    )!;
    const header = rawOf(file)[0]! as unknown as { id: string };
    const found = await call("search_sessions", { query: '"wall time"' });
    assert.equal(found.isError, undefined, found.text);
    const hits = dataOf(found.text).hits as { session: string; entry: string; file: string; kind: string }[];
    assert.equal(hits[0]?.file, file);
    assert.equal(hits[0]?.session, header.id);
    assert.equal(hits[0]?.entry, record.id);
    assert.match(hits[0]!.kind, /^tool/);
    const read = await call("read_session", { session: header.id, entry: record.id });
    assert.equal(read.isError, undefined, read.text);
    assert.ok(read.text.includes(`entry ${record.id}`), "the window holds the entry");
    assert.ok(read.text.includes("Wall time"));
    // The call that produced the output is in the window too (the raw assistant entry with its tool call id).
    const callId = (record.message as unknown as { toolCallId: string }).toolCallId;
    const caller = rawOf(file).find((r) => r.message?.role === "assistant" && JSON.stringify(r).includes(callId))!;
    assert.ok(read.text.includes(`entry ${caller.id}`), caller.id);
  });

  it("read_session pages through a branch with `next`: every entry of the raw branch once, in order", async () => {
    const file = sessionFiles(agentDir).find((f) => f.includes("7f88448216ec"))!;
    const raw = rawOf(file);
    const byId = new Map(raw.filter((r) => r.id).map((r) => [r.id, r]));
    const leaf = raw.filter((r) => r.type !== "session").at(-1)!;
    const branch: string[] = [];
    for (let at: Raw | undefined = leaf; at; at = at.parentId ? byId.get(at.parentId) : undefined)
      branch.unshift(at.id);
    const seen: string[] = [];
    let from: string | undefined;
    let pages = 0;
    do {
      const r = await call("read_session", { session: file, maxChars: 2000, ...(from ? { from } : {}) });
      assert.equal(r.isError, undefined, r.text);
      assert.ok(r.text.length <= 2000, `a window of ${r.text.length} characters`);
      for (const m of r.text.matchAll(/entry ([0-9a-f]{8})\b/g)) if (!seen.includes(m[1]!)) seen.push(m[1]!);
      from = (r.data as { next: string | null }).next ?? undefined;
      pages++;
    } while (from && pages < 100);
    assert.ok(pages > 2, "paged");
    // Every entry of the branch that a reader sees is named, in branch order (ids from the raw parent links).
    const shown = branch.filter((id) => seen.includes(id));
    assert.deepEqual(
      seen.filter((id) => branch.includes(id)),
      shown,
    );
    const messages = raw.filter((r) => r.type === "message" && branch.includes(r.id)).map((r) => r.id);
    for (const id of messages) assert.ok(seen.includes(id), `message ${id} read`);
  });

  it("file_history lists the calls that named the file, newest first, with the prompt behind each", async () => {
    const target = "/home/ana/src/tidepool/scripts/extract.sh";
    // From the raw files: tool calls naming the file (relative to the session's cwd), once per entry id.
    const expected: { entry: string; time: string }[] = [];
    const seen = new Set<string>();
    for (const file of sessionFiles(agentDir)) {
      const raw = rawOf(file);
      const cwd = (raw[0] as unknown as { cwd: string }).cwd;
      for (const r of raw) {
        const content = r.message?.role === "assistant" && Array.isArray(r.message.content) ? r.message.content : [];
        for (const b of content as { type: string; arguments?: { path?: string } }[])
          if (b.type === "toolCall" && b.arguments?.path && join(cwd, b.arguments.path) === target && !seen.has(r.id)) {
            seen.add(r.id);
            expected.push({ entry: r.id, time: r.timestamp });
          }
      }
    }
    expected.sort((a, b) => b.time.localeCompare(a.time));
    const r = await call("file_history", { path: target });
    assert.equal(r.isError, undefined, r.text);
    const turns = dataOf(r.text).turns as { entry: string; prompt: string | null; kind: string }[];
    assert.deepEqual(
      turns.map((t) => t.entry),
      expected.map((e) => e.entry),
    );
    assert.ok(
      turns.every((t) => t.prompt && t.prompt.length > 0),
      "each with its prompt",
    );
  });

  it("session_usage equals `pi-sessions usage --json`; list_sessions lists every session newest first", async () => {
    for (const by of ["day", "model", "session"] as const) {
      const r = await call("session_usage", { by, scope: "all" });
      const cli = await cliIn(() => agentDir)("usage", "--by", by, "--json");
      const { scope: _scope, ...tool } = dataOf(r.text);
      assert.deepEqual(tool, JSON.parse(cli.out));
    }
    const list = dataOf((await call("list_sessions", { limit: 200 })).text);
    const files = sessionFiles(agentDir);
    assert.equal(list.total, files.length);
    const times = (list.sessions as { lastActive: string }[]).map((s) => s.lastActive);
    assert.deepEqual(times, [...times].sort().reverse());
  });

  it("refused with a message, nothing opened: a file outside the agent dirs, an unknown id, a bad cursor", async () => {
    const outside = join(home, "outside.jsonl");
    cpSync(sessionFiles(agentDir)[0]!, outside);
    for (const [args, reason] of [
      [{ session: outside }, /not a session file under the agent dirs/],
      [{ session: "/etc/passwd" }, /not a session file under the agent dirs/],
      [{ session: "nope-nope-nope" }, /no session "nope-nope-nope"/],
      [{ session: "01a2" }, /a prefix needs 8\+ characters/],
      [{ session: sessionFiles(agentDir)[0]!, from: "garbage" }, /not a cursor/],
      [{ session: sessionFiles(agentDir)[0]!, entry: "zzzzzzzz" }, /is not an entry/],
    ] as const) {
      const r = await call("read_session", args);
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.match(r.text, reason);
    }
    const bad = await call("search_sessions", { query: "-only" });
    assert.equal(bad.isError, true);
  });

  it("an entry appended to a session is found by the next search", async () => {
    const file = sessionFiles(agentDir).find((f) => f.includes("5ee85aaa4789"))!;
    const raw = rawOf(file);
    const last = raw.filter((r) => r.id).at(-1)!;
    appendFileSync(
      file,
      `${JSON.stringify({
        type: "message",
        id: "feedf00d",
        parentId: last.id,
        timestamp: new Date().toISOString(),
        message: { role: "user", content: [{ type: "text", text: "the zanzibarian importer decision" }], timestamp: 1 },
      })}\n`,
    );
    const r = await call("search_sessions", { query: "zanzibarian" });
    const hits = dataOf(r.text).hits as { entry: string }[];
    assert.deepEqual(
      hits.map((h) => h.entry),
      ["feedf00d"],
    );
  });
});

describe("recall tools: a search while the index is first built", function () {
  this.timeout(120_000);

  it("answers from what is indexed, marked partial; once built, the whole answer", async () => {
    const home = mkdtempSync(join(tmpdir(), "pi-recall-partial-"));
    const dir = join(home, "agent", "sessions", "--home-u-many--");
    mkdirSync(dir, { recursive: true });
    // 400 sessions, each with the word, each indexed in a transaction of its own.
    for (let i = 0; i < 400; i++)
      writeFileSync(
        join(dir, `2026-01-01T00-00-00-${String(i).padStart(3, "0")}Z_s${i}.jsonl`),
        jsonl(header({ id: `many-${i}`, cwd: "/home/u/many" }), message("u1", null, "user", `plover number ${i}`)),
      );
    const options = {
      roots: resolveRoots({ agentDirs: [join(home, "agent")] }),
      cacheDir: join(home, "cache"),
      useCache: false,
      searchWorker: WORKER,
      workspace: () => Promise.resolve([]),
    };
    const hurried = new StoreSource({ ...options, indexWaitMs: 0 });
    try {
      const first = dataOf((await callTool("search_sessions", { query: "plover", limit: 50 }, hurried)).text);
      assert.equal(first.partial, true);
      assert.ok((first.indexed as { sessions: number }).sessions < 400);
    } finally {
      await hurried.dispose();
    }
    const patient = new StoreSource(options);
    try {
      let answer = dataOf((await callTool("search_sessions", { query: "plover", limit: 50 }, patient)).text);
      for (let i = 0; i < 100 && answer.partial; i++)
        answer = dataOf((await callTool("search_sessions", { query: "plover", limit: 50 }, patient)).text);
      assert.equal(answer.partial, false);
      assert.equal((answer.indexed as { sessions: number }).sessions, 400);
      assert.equal((answer.hits as unknown[]).length, 50);
    } finally {
      await patient.dispose();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
