// The team database when a store shifts under it, on a real PostgreSQL: a fork of a fork on another machine, a
// parent deleted and restored, a branch that moves the active path, a name with a NUL in it, a sync of another
// folder. The expectation is always the machine's own `pi-sessions usage --json` (or the sum of two machines', less
// what they share), read from the same files.
import * as assert from "node:assert/strict";
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliWithEnv as cli } from "../../support/cli.js";
import { REAL } from "../../support/fixtures.js";
import { newDatabase, startServer, type TestServer, withClient } from "../../support/postgres.js";

const PROJECT = "--home-ana-src-tidepool--";
const PARENT = "2026-11-24T08-12-00-004Z_01a20c9c-9c83-7164-bbff-7f88448216ec.jsonl";
const B_ID = "0b0b0b0b-0000-7000-8000-00000000000b";
const C_ID = "0c0c0c0c-0000-7000-8000-00000000000c";
const B_FILE = `2026-11-25T10-00-00-000Z_${B_ID}.jsonl`;
const C_FILE = `2026-11-26T10-00-00-000Z_${C_ID}.jsonl`;

type Totals = { totalTokens: number; cost: number; messages: number; activeCost: number };

function assertSameTotals(team: Totals, local: Totals, what: string): void {
  assert.equal(team.messages, local.messages, `${what}: messages`);
  assert.equal(team.totalTokens, local.totalTokens, `${what}: tokens`);
  assert.ok(Math.abs(team.cost - local.cost) < 1e-9, `${what}: cost ${team.cost} vs ${local.cost}`);
  assert.ok(
    Math.abs(team.activeCost - local.activeCost) < 1e-9,
    `${what}: active ${team.activeCost} vs ${local.activeCost}`,
  );
}

const assistant = (id: string, parentId: string, timestamp: string, cost: number, tokens: number) => ({
  type: "message",
  id,
  parentId,
  timestamp,
  message: {
    role: "assistant",
    content: [{ type: "text", text: "on it" }],
    provider: "anthropic",
    model: "claude-opus-5",
    usage: {
      input: tokens - 10,
      output: 10,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: tokens,
      cost: { input: cost / 2, output: cost / 2, cacheRead: 0, cacheWrite: 0, total: cost },
    },
    stopReason: "stop",
    timestamp: Date.parse(timestamp),
  },
});

describe("team database: a store that shifts (forks of forks, parents deleted, branches, hostile names)", function () {
  this.timeout(300_000);
  let server: TestServer;
  let home: string;
  let m1: string;
  let m2: string;
  let parentText: string;
  /** A's paid turns that B copies, from the raw file. */
  let copiedPaid: number;

  const sessionsOf = (m: string) => join(m, "sessions", PROJECT);
  const local = async (m: string, cache: string) =>
    (
      JSON.parse((await cli({ PI_SESSIONS_CACHE_DIR: cache }, "usage", "--agent-dir", m, "--json")).out) as {
        total: Totals;
      }
    ).total;
  const team = async (url: string) =>
    (
      JSON.parse((await cli({ PI_SESSIONS_DATABASE_URL: url }, "usage", "--database", "--json")).out) as {
        total: Totals;
      }
    ).total;
  async function sync(url: string, cache: string, m: string, machine: string) {
    const r = await cli(
      { PI_SESSIONS_DATABASE_URL: url, PI_SESSIONS_CACHE_DIR: cache },
      "sync",
      "--agent-dir",
      m,
      "--machine",
      machine,
      "--json",
    );
    assert.equal(r.code, 0, r.err);
    return JSON.parse(r.out) as { sent: number; records: number; removed: number };
  }

  before(async () => {
    server = await startServer();
    home = mkdtempSync(join(tmpdir(), "pi-team-shift-"));
    m1 = join(home, "m1");
    m2 = join(home, "m2");
    mkdirSync(sessionsOf(m1), { recursive: true });
    mkdirSync(sessionsOf(m2), { recursive: true });
    parentText = readFileSync(join(REAL, "pi-1.6", "sessions", PROJECT, PARENT), "utf8");
    const lines = parentText.split("\n").filter(Boolean);
    const cwd = (JSON.parse(lines[0]!) as { cwd: string }).cwd;
    copiedPaid = lines
      .slice(1, 14)
      .map((l) => JSON.parse(l) as { message?: { role: string; usage?: unknown } })
      .filter((r) => r.message?.role === "assistant" && r.message.usage).length;
    writeFileSync(join(sessionsOf(m1), PARENT), parentText);
    // B, on machine 1: a fork of A after its 13th entry, with a paid turn of its own.
    const b = [
      {
        type: "session",
        version: 3,
        id: B_ID,
        timestamp: "2026-11-25T10:00:00.000Z",
        cwd,
        parentSession: join(sessionsOf(m1), PARENT),
      },
      ...lines.slice(1, 14).map((l) => JSON.parse(l) as object),
      assistant("b0000001", "1576b50c", "2026-11-25T10:00:05.000Z", 0.004, 1_000),
    ];
    writeFileSync(join(sessionsOf(m1), B_FILE), `${b.map((r) => JSON.stringify(r)).join("\n")}\n`);
    // C, on machine 2 only: a fork of B (all of it: A's copies and B's turn), nothing paid of its own.
    const c = [
      {
        type: "session",
        version: 3,
        id: C_ID,
        timestamp: "2026-11-26T10:00:00.000Z",
        cwd,
        parentSession: `/home/ana/.pi/agent/sessions/${PROJECT}/${B_FILE}`,
      },
      ...b.slice(1),
    ];
    writeFileSync(join(sessionsOf(m2), C_FILE), `${c.map((r) => JSON.stringify(r)).join("\n")}\n`);
  });
  after(() => {
    server?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("a fork of a fork made on another machine counts once: the team is machine 1's own report", async () => {
    const url = await newDatabase(server, "nested");
    await sync(url, join(home, "n1"), m1, "one");
    await sync(url, join(home, "n2"), m2, "two");
    const mine = await local(m1, join(home, "n1"));
    assert.ok(mine.messages > 10, "machine 1 has A's and B's turns");
    assertSameTotals(await team(url), mine, "A, B and C's copies of both");
    // Machine 2's own report counts C's copies as C's; the team counts them once.
    const theirs = await local(m2, join(home, "n2"));
    assert.equal(theirs.messages, copiedPaid + 1, "C carries A's turns that B copied, and B's");
  });

  it("a parent deleted here leaves its fork's copies counted; restored, nothing twice", async () => {
    const url = await newDatabase(server, "orphan");
    const cache = join(home, "o1");
    await sync(url, cache, m1, "one");
    assertSameTotals(await team(url), await local(m1, cache), "both");
    unlinkSync(join(sessionsOf(m1), PARENT));
    try {
      await sync(url, cache, m1, "one");
      const alone = await local(m1, cache);
      assert.equal(alone.messages, copiedPaid + 1, "B now owns the turns it copied, and its own");
      assertSameTotals(await team(url), alone, "the parent deleted");
    } finally {
      writeFileSync(join(sessionsOf(m1), PARENT), parentText);
    }
    await sync(url, cache, m1, "one");
    assertSameTotals(await team(url), await local(m1, cache), "the parent restored");
  });

  it("a new branch moves the active path: the team's active cost follows it", async () => {
    const url = await newDatabase(server, "branch");
    const cache = join(home, "b1");
    const file = join(sessionsOf(m1), PARENT);
    await sync(url, cache, m1, "one");
    // A turn after the third reply: everything after it in the file is now off the active branch.
    appendFileSync(
      file,
      `${JSON.stringify(assistant("a0000001", "632d81cb", "2026-11-24T09:00:00.000Z", 0.002, 500))}\n`,
    );
    try {
      await sync(url, cache, m1, "one");
      const mine = await local(m1, cache);
      assert.ok(mine.activeCost < mine.cost - 0.05, "most of A is off the active branch now");
      assertSameTotals(await team(url), mine, "after the branch");
    } finally {
      writeFileSync(file, parentText);
    }
  });

  it("a NUL in a session's name: sent (as U+FFFD), not a batch refused for good", async () => {
    const url = await newDatabase(server, "nul");
    const cache = join(home, "z1");
    const file = join(sessionsOf(m1), B_FILE);
    const before = readFileSync(file, "utf8");
    const info = {
      type: "session_info",
      id: "b0000002",
      parentId: "b0000001",
      timestamp: "2026-11-25T10:01:00.000Z",
      name: "evil\u0000name",
    };
    appendFileSync(file, `${JSON.stringify(info)}\n`);
    try {
      await sync(url, cache, m1, "one");
      const titles = await withClient(url, (c) =>
        c.query("SELECT title FROM pi_sessions.sessions WHERE session_id = $1", [B_ID]),
      );
      assert.deepEqual(
        titles.rows.map((r) => r.title),
        ["evil\uFFFDname"],
      );
      assertSameTotals(await team(url), await local(m1, cache), "every record arrived");
    } finally {
      writeFileSync(file, before);
    }
  });

  it("a sync of another folder keeps this machine's other sessions; a file deleted still goes", async () => {
    const url = await newDatabase(server, "roots");
    const cache = join(home, "r1");
    await sync(url, cache, m1, "one");
    const other = join(home, "m3");
    cpSync(m2, other, { recursive: true });
    const count = () =>
      withClient(url, async (c) =>
        Number((await c.query("SELECT count(*) AS n FROM pi_sessions.sessions WHERE machine = 'one'")).rows[0]!.n),
      );
    // The same machine and cache, another --agent-dir: machine 1's sessions stay.
    assert.equal((await sync(url, cache, other, "one")).removed, 0);
    assert.equal(await count(), 3);
    const bFile = join(sessionsOf(m1), B_FILE);
    const bText = readFileSync(bFile, "utf8");
    unlinkSync(bFile);
    try {
      assert.equal((await sync(url, cache, other, "one")).removed, 1, "a file deleted is removed, listed or not");
      assert.equal(await count(), 2);
    } finally {
      writeFileSync(bFile, bText);
    }
  });

  it("the team report checks --since, --until and --timezone as the local one does, before connecting", async () => {
    // The database is never reached: a refused flag is a usage error (64), not a database's (2).
    const env = { PI_SESSIONS_DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" };
    for (const [flags, said] of [
      [["--since", "yesterday"], /--since "yesterday" is not a date/],
      [["--since", "2026-13-45"], /--since "2026-13-45" is not a date/],
      [["--since", "2026-12-02", "--until", "2026-12-01"], /--since 2026-12-02 is after --until 2026-12-01/],
      [["--timezone", "+03:00"], /--timezone "\+03:00" is not a time zone/],
    ] as const) {
      const r = await cli(env, "usage", "--database", ...flags);
      assert.equal(r.code, 64, `${flags.join(" ")}: ${r.err}`);
      assert.match(r.err, said);
    }
  });

  it("a lost state, or --full: a file deleted here still goes, and a file's records it no longer has", async () => {
    const url = await newDatabase(server, "lost");
    const bFile = join(sessionsOf(m1), B_FILE);
    const bText = readFileSync(bFile, "utf8");
    await sync(url, join(home, "l1"), m1, "one");
    unlinkSync(bFile);
    try {
      // The state is gone (a cleared cache): the database still says which files this machine sent.
      assert.equal((await sync(url, join(home, "l2"), m1, "one")).removed, 1);
      assertSameTotals(await team(url), await local(m1, join(home, "l2")), "state lost");
    } finally {
      writeFileSync(bFile, bText);
    }
    await sync(url, join(home, "l2"), m1, "one");
    // B cut back to its copies (its own turn gone), then --full (which starts from no state).
    writeFileSync(bFile, `${bText.trimEnd().split("\n").slice(0, -1).join("\n")}\n`);
    try {
      const r = await cli(
        { PI_SESSIONS_DATABASE_URL: url, PI_SESSIONS_CACHE_DIR: join(home, "l2") },
        "sync",
        "--agent-dir",
        m1,
        "--machine",
        "one",
        "--full",
      );
      assert.equal(r.code, 0, r.err);
      assertSameTotals(await team(url), await local(m1, join(home, "l2")), "--full after a rewrite");
    } finally {
      writeFileSync(bFile, bText);
    }
  });

  it("values PostgreSQL would refuse: a time out of its range, a 3 KB model name and entry id", async () => {
    const url = await newDatabase(server, "hostile");
    const cache = join(home, "h1");
    const file = join(sessionsOf(m1), B_FILE);
    const before = readFileSync(file, "utf8");
    const ancient = assistant("b0000003", "b0000001", "0000-06-01T00:00:00.000Z", 0.001, 100);
    const long = assistant("x".repeat(3_000), "b0000003", "2026-11-25T10:02:00.000Z", 0.002, 200);
    long.message.model = "m".repeat(3_000);
    appendFileSync(file, `${JSON.stringify(ancient)}\n${JSON.stringify(long)}\n`);
    try {
      await sync(url, cache, m1, "one");
      assertSameTotals(await team(url), await local(m1, cache), "every record arrived");
      // Idempotent: the same keys again.
      assert.deepEqual((await sync(url, cache, m1, "one")).sent, 0);
      assert.equal((await sync(url, join(home, "h2"), m1, "one")).removed, 0, "a long key is still this file's");
      assertSameTotals(await team(url), await local(m1, cache), "after a sync without state");
    } finally {
      writeFileSync(file, before);
    }
  });
});
