// A remote session's transcript (issue #39): `pi-sessions export SESSION --database` on a real PostgreSQL 15, from
// the texts a machine sent with `sync --content`. Expectations come from the raw files: the entries, their order,
// their roles and their tool output as written; hostile text made inert as a permissive viewer renders it.
import * as assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliWithEnv as cli } from "../../support/cli.js";
import { REAL } from "../../support/fixtures.js";
import { header, message, toolResult, usage } from "../../support/builders.js";
import { jsonl } from "../../support/helpers.js";
import { permissiveViewer, startTags } from "../../support/markdownView.js";
import { newDatabase, startServer, type TestServer, withClient } from "../../support/postgres.js";
import { inTeamSnapshot, streamTeamTranscript, teamSessionsNamed, withTeam } from "../../../src/node/team/index.js";
import { loadTeam } from "../../../src/node/team/load.js";
import { teamTranscriptDocument } from "../../../src/node/views/teamTranscript.js";

const SESSION = "01a20ca7-961d-7164-bbff-7f8b174cf507";
/** A pi 1.6 fork (quillmark-next) and its parent (work-quillmark), both real. */
const FORK = "01a20cb3-e720-7164-bbff-7fa1f5076100";
const FORK_DIR = "--home-ana-src-quillmark-next--";
const PARENT_DIR = "--home-ana-work-quillmark--";
const HOSTILE = "0bad0000-0000-7000-8000-00000000000b";
const ESC = "\u001b";
const BEL = "\u0007";

interface Raw {
  type: string;
  id: string;
  summary?: string;
  replacement?: unknown;
  message?: { role: string; content: unknown; toolName?: string };
}
const rawOf = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Raw);

/** A message's text as written: its string, else its text, thinking and tool-call blocks. */
function hasText(m: NonNullable<Raw["message"]>): boolean {
  if (typeof m.content === "string") return m.content.trim() !== "";
  return (m.content as { type: string; text?: string; thinking?: string }[]).some(
    (b) => b.type === "toolCall" || (b.text ?? b.thinking ?? "").trim() !== "",
  );
}
/** The entries with text, as written: messages (a system message by its sections), summaries, context edits. */
function withText(r: Raw): boolean {
  if (r.type === "message") return r.message!.role === "system" || hasText(r.message!);
  if (r.type === "compaction" || r.type === "branch_summary") return (r.summary ?? "").trim() !== "";
  return r.type === "context_edit" && r.replacement !== undefined;
}
const HEADINGS: Record<string, string> = {
  user: "User",
  assistant: "Assistant",
  system: "System prompt",
  branch_summary: "Branch summary",
  compaction: "Compaction",
  context_edit: "Context edit",
};
const headingOf = (r: Raw) =>
  r.message?.role === "toolResult"
    ? `Tool result: ${r.message.toolName}`
    : (HEADINGS[r.message?.role ?? r.type] ?? r.type);
const words = (text: string) => text.replace(/[^\p{L}\p{N}]+/gu, " ").trim();

/** 60 turns of hostile text: a prompt, a reply with thinking, text and two calls, two outputs (7 rows a turn). */
function hostileSession(): string {
  const records: unknown[] = [header({ id: HOSTILE, cwd: "/home/eve/src/x" })];
  let parent: string | null = null;
  for (let t = 0; t < 60; t++) {
    const u = `u${t}`;
    const a = `a${t}`;
    records.push(
      message(
        u,
        parent,
        "user",
        `# forged heading ${t}\n</details><script>alert(${t})</script>\n\`\`\`\nopen ${ESC}[31m`,
        {
          time: t * 10 + 1,
        },
      ),
      message(
        a,
        u,
        "assistant",
        [
          { type: "thinking", thinking: `plan ${t} </summary><img src=x onerror=alert(1)>` },
          { type: "text", text: `reply ${t} ${ESC}]0;title${BEL}` },
          { type: "toolCall", id: `c${t}a`, name: "bash", arguments: { command: `echo ${t}` } },
          { type: "toolCall", id: `c${t}b`, name: "read", arguments: { path: `f${t}.md` } },
        ],
        { time: t * 10 + 2, usage: usage(10, 5, 0.01), stopReason: "toolUse" },
      ),
      toolResult(`r${t}a`, a, `${t}a`, "bash", `\`\`\`\`\n## Forged section ${t}\n<iframe src=x></iframe>\nout ${t}`, {
        time: t * 10 + 3,
      }),
      toolResult(`r${t}b`, `r${t}a`, `${t}b`, "read", `line ${t}\n\n</details>\n\n# not a heading`, {
        time: t * 10 + 4,
      }),
    );
    parent = `r${t}b`;
  }
  return jsonl(...records);
}

describe("team database: a remote session's transcript (export --database)", function () {
  this.timeout(300_000);
  let server: TestServer;
  let home: string;
  let url: string;
  let a: string;
  let env: Record<string, string>;

  before(async () => {
    server = await startServer();
    home = mkdtempSync(join(tmpdir(), "pi-team-transcript-"));
    a = join(home, "a");
    cpSync(join(REAL, "pi-1.6"), a, { recursive: true });
    const h = join(home, "h", "sessions", "--home-eve-src-x--");
    mkdirSync(h, { recursive: true });
    writeFileSync(join(h, `2026-01-01T00-00-00-000Z_${HOSTILE}.jsonl`), hostileSession());
    url = await newDatabase(server, "transcript");
    env = { PI_SESSIONS_DATABASE_URL: url, PI_SESSIONS_CACHE_DIR: join(home, "cache") };
    const sync = async (dir: string, machine: string, ...more: string[]) => {
      const r = await cli(
        { ...env, PI_SESSIONS_CACHE_DIR: join(home, `cache-${machine}`) },
        "sync",
        "--agent-dir",
        dir,
        "--machine",
        machine,
        ...more,
      );
      assert.equal(r.code, 0, r.err);
    };
    const lone = join(home, "lone", "sessions", FORK_DIR);
    mkdirSync(lone, { recursive: true });
    cpSync(join(a, "sessions", FORK_DIR), lone, { recursive: true });
    writeFileSync(
      join(h, "2026-01-02T00-00-00-000Z_enl.jsonl"),
      jsonl(header({ id: "enl\npi-sessions: forged second line", cwd: "/home/eve/src/x" })),
    );
    await sync(a, "laptop", "--content");
    await sync(join(home, "lone"), "lone", "--content");
    await sync(a, "server");
    await sync(join(home, "h"), "eve", "--content");
  });
  after(() => {
    server?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("a session's entries in the order written, each under its role, tool output verbatim", async () => {
    const dir = join(a, "sessions", "--home-ana-src-tidepool--");
    const file = join(
      dir,
      readdirSync(dir).find((f) => f.includes(SESSION))!,
    );
    const raw = rawOf(file).filter(withText);
    assert.ok(raw.some((r) => r.type === "context_edit") && raw.some((r) => r.type === "branch_summary"));
    const r = await cli(env, "export", SESSION.slice(0, 8), "--database", "--machine", "laptop");
    assert.equal(r.code, 0, r.err);
    const ids = [...r.out.matchAll(/^\*entry (\S+)\*$/gm)].map((m) => m[1]);
    assert.deepEqual(
      ids,
      raw.map((e) => e.id),
    );
    const headings = [...r.out.matchAll(/^## (.+?)(?: · .*)?$/gm)].map((m) => m[1]);
    assert.deepEqual(headings, raw.map(headingOf));
    for (const e of raw.filter((x) => x.type === "message" && x.message!.role !== "system")) {
      const blocks = e.message!.content as { type: string; text?: string }[] | string;
      const texts = typeof blocks === "string" ? [blocks] : blocks.filter((b) => b.text).map((b) => b.text!);
      for (const t of texts) {
        // Tool output is fenced verbatim; a message's own Markdown is written again, its words kept.
        if (e.message!.role === "toolResult") assert.ok(r.out.includes(t.slice(0, 2000)), `${e.id}'s output`);
        else assert.ok(words(r.out).includes(words(t).slice(0, 200)), `${e.id}'s words`);
      }
    }
    assert.match(r.out, new RegExp(`session ${SESSION} on laptop, from the team database`));
  });

  it("hostile text stays inert, and entries cut across fetches come out whole", async () => {
    const r = await cli(env, "export", HOSTILE, "--database");
    assert.equal(r.code, 0, r.err);
    assert.equal(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.exec(r.out), null, "no raw control character");
    const html = permissiveViewer.render(r.out);
    const tags = new Set(startTags(html).map((t) => t.name));
    for (const live of ["script", "img", "iframe"]) assert.ok(!tags.has(live), `no live <${live}>`);
    // One section per entry (60 turns of four entries), no forged heading, every entry once and in order.
    assert.equal([...html.matchAll(/<h2>/g)].length, 240);
    assert.equal([...html.matchAll(/<h1>/g)].length, 1);
    const expected = Array.from({ length: 60 }, (_, t) => [`u${t}`, `a${t}`, `r${t}a`, `r${t}b`]).flat();
    assert.deepEqual(
      [...r.out.matchAll(/^\*entry (\S+)\*$/gm)].map((m) => m[1]),
      expected,
    );
    // A reply's four units together: its thinking, text and both calls under its one heading.
    const a59 = r.out.slice(r.out.indexOf("*entry a59*"), r.out.indexOf("*entry r59a*"));
    assert.match(a59, /Thinking/);
    assert.match(a59, /reply 59/);
    assert.match(a59, /\*\*Tool call\*\* bash[\s\S]*echo 59[\s\S]*\*\*Tool call\*\* read[\s\S]*f59\.md/);
  });

  it("a fork: its own entries when its parent is on its machine, else all, and the head says which", async () => {
    const forkFile = (dir: string) =>
      join(
        dir,
        readdirSync(dir).find((f) => f.includes(FORK) && f.endsWith(".jsonl"))!,
      );
    const raw = rawOf(forkFile(join(a, "sessions", FORK_DIR))).filter(withText);
    const parentDir = join(a, "sessions", PARENT_DIR);
    const parentIds = new Set(
      readdirSync(parentDir)
        .filter((f) => f.endsWith(".jsonl"))
        .flatMap((f) => rawOf(join(parentDir, f)).map((r) => r.id)),
    );
    const own = raw.filter((r) => !parentIds.has(r.id));
    assert.ok(own.length > 0 && own.length < raw.length, "the fork copies some entries and adds its own");
    const ids = (out: string) => [...out.matchAll(/^\*entry (\S+)\*$/gm)].map((m) => m[1]);
    const here = await cli(env, "export", FORK, "--database", "--machine", "laptop");
    assert.equal(here.code, 0, here.err);
    assert.deepEqual(
      ids(here.out),
      own.map((r) => r.id),
    );
    assert.match(here.out, /the entries copied from it are in its transcript/);
    const alone = await cli(env, "export", FORK, "--database", "--machine", "lone");
    assert.equal(alone.code, 0, alone.err);
    assert.deepEqual(
      ids(alone.out),
      raw.map((r) => r.id),
    );
    assert.match(alone.out, /which was not on lone: its copied entries are here/);
  });

  it("one snapshot: texts a sync removes while the transcript is read are still read whole", async () => {
    const read = await withTeam(url, {}, (db) =>
      inTeamSnapshot(db, async () => {
        const [s] = await teamSessionsNamed(db, FORK, "lone");
        await withClient(url, (c) => c.query("DELETE FROM pi_sessions.texts WHERE machine = 'lone'"));
        let n = 0;
        await streamTeamTranscript(db, s!, (batch) => void (n += batch.length));
        return n;
      }),
    );
    assert.ok(read > 20, `${read} entries`);
    const after = await cli(env, "export", FORK, "--database", "--machine", "lone");
    assert.equal(after.code, 2);
  });

  it("the editor's document stops at its size with a line saying how to read all of it", async () => {
    const team = await loadTeam();
    const doc = await withTeam(url, {}, async (db) => {
      const [s] = await teamSessionsNamed(db, HOSTILE);
      return teamTranscriptDocument(team, db, s!, 20_000);
    });
    assert.ok(doc && doc.entries > 5 && doc.entries < 240, `${doc?.entries} entries`);
    assert.ok(doc.markdown.length < 21_000);
    const ids = [...doc.markdown.matchAll(/^\*entry (\S+)\*$/gm)].map((m) => m[1]);
    const expected = Array.from({ length: 60 }, (_, t) => [`u${t}`, `a${t}`, `r${t}a`, `r${t}b`]).flat();
    assert.deepEqual(ids, expected.slice(0, doc.entries), "whole entries, in order");
    assert.match(doc.markdown, /The transcript stops here, after \d+ entries \(16 MB\): pi-sessions export 0bad0000/);
    const whole = await withTeam(url, {}, async (db) => {
      const [s] = await teamSessionsNamed(db, HOSTILE);
      return teamTranscriptDocument(team, db, s!);
    });
    assert.equal(whole?.entries, 240);
    assert.equal(whole!.markdown, (await cli(env, "export", HOSTILE, "--database")).out, "the CLI's document");
  });

  it("-o writes the same document; a .jsonl target is refused", async () => {
    const out = join(home, "eve.md");
    const w = await cli(env, "export", HOSTILE, "--database", "-o", out);
    assert.equal(w.code, 0, w.err);
    assert.match(w.err, /wrote .*eve\.md \(240 entries of 0bad0000/);
    assert.equal(readFileSync(out, "utf8"), (await cli(env, "export", HOSTILE, "--database")).out);
    const refused = await cli(env, "export", HOSTILE, "--database", "-o", join(home, "x.jsonl"));
    assert.equal(refused.code, 64);
  });

  it("an ambiguous, unknown or text-less session is one clear line and exit code 2", async () => {
    const both = await cli(env, "export", SESSION, "--database");
    assert.equal(both.code, 2);
    assert.match(both.err, /names more than one session/);
    assert.match(both.err, /laptop/);
    assert.match(both.err, /server/);
    const none = await cli(env, "export", "ffffffff", "--database");
    assert.equal(none.code, 2);
    assert.match(none.err, /no session "ffffffff"/);
    const bare = await cli(env, "export", SESSION, "--database", "--machine", "server");
    assert.equal(bare.code, 2);
    assert.match(bare.err, /server syncs without --content/);
    assert.equal(bare.out, "");
    const html = await cli(env, "export", HOSTILE, "--database", "--format", "html");
    assert.equal(html.code, 64);
    for (const args of [
      ["--machine", ""],
      ["-o", ""],
    ])
      assert.equal((await cli(env, "export", HOSTILE, "--database", ...args)).code, 64, args.join(" "));
    // A session id cannot forge a line of the message.
    const forged = await cli(env, "export", "enl", "--database");
    assert.equal(forged.code, 2);
    assert.equal(forged.err.trim().split("\n").length, 1, forged.err);
    assert.match(forged.err, /holds no text of enl\\x0api-sessions: forged/);
  });

  it("texts sent by a tool before lines were kept are sent again by the next sync, then read in order", async () => {
    const cache = join(home, "cache-eve");
    // As schema 2 and the tool before it left them: no line, no kind, and a state whose content is `true`.
    await withClient(url, (c) =>
      c.query("UPDATE pi_sessions.texts SET line = NULL, kind = NULL WHERE machine = 'eve'"),
    );
    const stateFile = join(
      cache,
      readdirSync(cache).find((f) => /^team-[0-9a-f]+\.json$/.test(f))!,
    );
    const state = JSON.parse(readFileSync(stateFile, "utf8")) as { files: Record<string, { content: unknown }> };
    for (const f of Object.values(state.files)) f.content = true;
    writeFileSync(stateFile, JSON.stringify(state));
    // Read meanwhile: by time, as written (the hostile session's entries are a second apart).
    const old = await cli(env, "export", HOSTILE, "--database");
    assert.equal([...old.out.matchAll(/^\*entry (\S+)\*$/gm)].length, 240);
    const again = await cli(
      { ...env, PI_SESSIONS_CACHE_DIR: cache },
      "sync",
      "--agent-dir",
      join(home, "h"),
      "--machine",
      "eve",
      "--content",
      "--json",
    );
    assert.equal(again.code, 0, again.err);
    assert.equal((JSON.parse(again.out) as { sent: number }).sent, 2, "both of its sessions");
    const missing = await withClient(url, (c) =>
      c.query(
        "SELECT count(*)::int AS n FROM pi_sessions.texts WHERE machine = 'eve' AND (line IS NULL OR kind IS NULL)",
      ),
    );
    assert.equal((missing.rows[0] as { n: number }).n, 0);
  });
});
