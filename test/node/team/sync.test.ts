// The team database (issue #39) on a real PostgreSQL 15 (a throwaway server: scripts/pg/postgres.mjs). Two machines
// are two agent dirs: A holds the real pi 1.6 sessions, B the real older pi sessions and a fork of one of A's
// sessions (its parent is not on B). Expectations come from the raw files (the fork's copied turns and an appended
// turn's usage, as written) and from each machine's own `pi-sessions usage --json`.
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliWithEnv as cli } from "../../support/cli.js";
import { REAL } from "../../support/fixtures.js";
import { generateStore } from "../../../bench/generate.js";
import { newDatabase, startServer, type TestServer, withClient } from "../../support/postgres.js";

const CLI = join(import.meta.dirname, "..", "..", "..", "dist", "cli.js");
const PARENT = "2026-11-24T08-12-00-004Z_01a20c9c-9c83-7164-bbff-7f88448216ec.jsonl";
const SECRET_PROMPT = "quixotic marmalade zebra";

interface Raw {
  type: string;
  id: string;
  timestamp: string;
  message?: { role: string; usage?: { input: number; output: number; totalTokens: number; cost: { total: number } } };
}
const rawOf = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Raw);

type Totals = { input: number; output: number; totalTokens: number; cost: number; messages: number };
const totalsOf = (json: string) => (JSON.parse(json) as { total: Totals }).total;

describe("team database: pi-sessions sync to a real PostgreSQL", function () {
  this.timeout(300_000);
  let server: TestServer;
  let home: string;
  let a: string;
  let b: string;
  let fork: string;
  let copied: Totals;
  let forkCreated: string;

  before(async () => {
    server = await startServer();
    home = mkdtempSync(join(tmpdir(), "pi-team-"));
    a = join(home, "a");
    b = join(home, "b");
    cpSync(join(REAL, "pi-1.6"), a, { recursive: true });
    cpSync(join(REAL, "pi"), b, { recursive: true });
    // B's fork of A's session: its first 12 lines copied (ids, times and usage as the parent wrote them), then a
    // turn of its own, with the distinctive prompt.
    const parent = join(a, "sessions", "--home-ana-src-tidepool--", PARENT);
    const lines = readFileSync(parent, "utf8").split("\n").filter(Boolean);
    const copies = lines.slice(1, 13).map((l) => JSON.parse(l) as Raw);
    forkCreated = "2026-11-25T10:00:00.000Z";
    copied = { input: 0, output: 0, totalTokens: 0, cost: 0, messages: 0 };
    for (const r of copies)
      if (r.message?.role === "assistant" && r.message.usage) {
        copied.input += r.message.usage.input;
        copied.output += r.message.usage.output;
        copied.totalTokens += r.message.usage.totalTokens;
        copied.cost += r.message.usage.cost.total;
        copied.messages++;
      }
    assert.ok(copied.messages >= 2, "the fork copies paid turns");
    const dir = join(b, "sessions", "--home-ana-src-tidepool--");
    mkdirSync(dir, { recursive: true });
    fork = join(dir, "2026-11-25T10-00-00-000Z_0fa11e00-0000-7000-8000-000000000001.jsonl");
    const header = {
      type: "session",
      version: 3,
      id: "0fa11e00-0000-7000-8000-000000000001",
      timestamp: forkCreated,
      cwd: "/home/ana/src/tidepool",
      parentSession: `/home/ana/.pi/agent/sessions/--home-ana-src-tidepool--/${PARENT}`,
    };
    const own = {
      type: "message",
      id: "f0000001",
      parentId: copies.at(-1)!.id,
      timestamp: "2026-11-25T10:00:05.000Z",
      message: { role: "user", content: [{ type: "text", text: `Now the ${SECRET_PROMPT} part` }], timestamp: 1 },
    };
    writeFileSync(fork, `${[JSON.stringify(header), ...lines.slice(1, 13), JSON.stringify(own)].join("\n")}\n`);
  });
  after(() => {
    server?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  const envOf = (url: string, cache: string) => ({ PI_SESSIONS_DATABASE_URL: url, PI_SESSIONS_CACHE_DIR: cache });

  it("two machines: team totals are both reports' sum, a fork's copies once; by machine, each its own", async () => {
    const url = await newDatabase(server, "two");
    const ea = envOf(url, join(home, "cache-a"));
    const eb = envOf(url, join(home, "cache-b"));
    assert.equal((await cli(ea, "sync", "--agent-dir", a, "--machine", "a")).code, 0);
    const syncB = await cli(eb, "sync", "--agent-dir", b, "--machine", "b", "--json");
    assert.equal(syncB.code, 0, syncB.err);
    const localA = totalsOf((await cli(ea, "usage", "--agent-dir", a, "--json")).out);
    const localB = totalsOf((await cli(eb, "usage", "--agent-dir", b, "--json")).out);
    const team = totalsOf((await cli(ea, "usage", "--database", "--json")).out);
    for (const k of ["input", "output", "totalTokens", "messages"] as const)
      assert.equal(team[k], localA[k] + localB[k] - copied[k], k);
    assert.ok(Math.abs(team.cost - (localA.cost + localB.cost - copied.cost)) < 1e-9, "cost");
    // By machine: A's own records; B's own minus the copies it shares with A (they are A's).
    const byMachine = JSON.parse((await cli(ea, "usage", "--database", "--by", "machine", "--json")).out) as {
      rows: (Totals & { key: string })[];
    };
    const row = (k: string) => byMachine.rows.find((r) => r.key === k)!;
    assert.equal(row("a").totalTokens, localA.totalTokens);
    assert.equal(row("b").totalTokens, localB.totalTokens - copied.totalTokens);
    const listed = JSON.parse((await cli(ea, "list", "--database", "--json")).out) as {
      sessions: { machine: string }[];
    };
    assert.equal(listed.sessions.filter((s) => s.machine === "a").length, 8);
    assert.ok(listed.sessions.some((s) => s.machine === "b"));
  });

  it("a second sync sends nothing; an appended turn adds exactly its tokens and cost", async () => {
    const url = await newDatabase(server, "incremental");
    const e = envOf(url, join(home, "cache-inc"));
    await cli(e, "sync", "--agent-dir", a, "--machine", "a");
    const before = totalsOf((await cli(e, "usage", "--database", "--json")).out);
    const again = JSON.parse((await cli(e, "sync", "--agent-dir", a, "--machine", "a", "--json")).out) as {
      sent: number;
      records: number;
    };
    assert.deepEqual([again.sent, again.records], [0, 0]);
    const file = join(a, "sessions", "--home-ana-src-tidepool--", PARENT);
    const last = rawOf(file).at(-1)!;
    const turn = {
      type: "message",
      id: "a9900001",
      parentId: last.id,
      timestamp: "2026-11-24T09:00:00.000Z",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "appended" }],
        provider: "anthropic",
        model: "claude-opus-5",
        usage: {
          input: 111,
          output: 22,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 133,
          cost: { input: 0.001, output: 0.002, cacheRead: 0, cacheWrite: 0, total: 0.003 },
        },
        stopReason: "stop",
        timestamp: 2,
      },
    };
    appendFileSync(file, `${JSON.stringify(turn)}\n`);
    const sent = JSON.parse((await cli(e, "sync", "--agent-dir", a, "--machine", "a", "--json")).out) as {
      sent: number;
      records: number;
    };
    assert.deepEqual([sent.sent, sent.records], [1, 1], "only the new record");
    const after = totalsOf((await cli(e, "usage", "--database", "--json")).out);
    assert.equal(after.totalTokens - before.totalTokens, 133);
    assert.equal(after.messages - before.messages, 1);
    assert.ok(Math.abs(after.cost - before.cost - 0.003) < 1e-12);
    // The file is put back (the other tests read A as the fixtures have it); the next sync removes the record.
    writeFileSync(file, readFileSync(join(REAL, "pi-1.6", "sessions", "--home-ana-src-tidepool--", PARENT)));
    await cli(e, "sync", "--agent-dir", a, "--machine", "a");
    assert.deepEqual(totalsOf((await cli(e, "usage", "--database", "--json")).out), before);
  });

  it("syncs from both machines at once", async () => {
    const url = await newDatabase(server, "together");
    const [ra, rb] = await Promise.all([
      cli(envOf(url, join(home, "cache-t-a")), "sync", "--agent-dir", a, "--machine", "a"),
      cli(envOf(url, join(home, "cache-t-b")), "sync", "--agent-dir", b, "--machine", "b"),
    ]);
    assert.equal(ra.code, 0, ra.err);
    assert.equal(rb.code, 0, rb.err);
    const expected = totalsOf((await cli(envOf(url, home), "usage", "--database", "--json")).out);
    assert.ok(expected.messages > 0);
  });

  it("a sync killed (kill -9) or cut off (connection ended) after a batch: the next one completes it", async () => {
    // A store of 1,200 sessions: six batches.
    const big = join(home, "big");
    await generateStore(join(big, "sessions"), {
      sessions: 1200,
      projects: 6,
      totalBytes: 24 << 20,
      forkShare: 0.1,
      seed: 39,
    });
    const whole = await newDatabase(server, "whole");
    assert.equal(
      (await cli(envOf(whole, join(home, "cache-whole")), "sync", "--agent-dir", big, "--machine", "m")).code,
      0,
    );
    const expected = totalsOf((await cli(envOf(whole, home), "usage", "--database", "--json")).out);
    const rows = (url: string) =>
      withClient(url, async (c) => {
        const r = await c.query("SELECT to_regclass('pi_sessions.usage') IS NOT NULL AS ok");
        if (!(r.rows[0] as { ok: boolean }).ok) return 0;
        return ((await c.query("SELECT count(*)::int AS n FROM pi_sessions.usage")).rows[0] as { n: number }).n;
      });
    const all = await rows(whole);
    for (const how of ["kill", "cut"] as const) {
      const db = await newDatabase(server, `stopped_${how}`);
      const cache = join(home, `cache-${how}`);
      const child = spawn(process.execPath, [CLI, "sync", "--agent-dir", big, "--machine", "m"], {
        env: { ...process.env, ...envOf(db, cache) },
        stdio: "ignore",
      });
      const exited = new Promise((r) => child.once("exit", r));
      let seen = 0;
      for (let i = 0; i < 1000 && seen === 0; i++) {
        await new Promise((r) => setTimeout(r, 10));
        seen = await rows(db).catch(() => 0);
      }
      if (how === "kill") child.kill("SIGKILL");
      else
        await withClient(db, (c) =>
          c.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'pi-sessions'"),
        );
      await exited;
      const partial = await rows(db);
      assert.ok(seen > 0 && partial < all, `${how}: stopped mid-way (${partial} of ${all} records)`);
      const again = await cli(envOf(db, cache), "sync", "--agent-dir", big, "--machine", "m");
      assert.equal(again.code, 0, again.err);
      assert.deepEqual(totalsOf((await cli(envOf(db, home), "usage", "--database", "--json")).out), expected, how);
      assert.equal(await rows(db), all);
    }
  });

  it("a database down, a newer schema: one line, exit code 2, nothing changed here, no password shown", async () => {
    const url = await newDatabase(server, "down");
    const cache = join(home, "cache-down");
    await cli(envOf(url, cache), "sync", "--agent-dir", a, "--machine", "a");
    const stateBefore = readFileSync(
      join(
        cache,
        (await import("node:fs")).readdirSync(cache).find((f) => f.startsWith("team-"))!,
      ),
    );
    server.pause();
    try {
      const down = await cli(envOf(url, cache), "sync", "--agent-dir", a, "--machine", "a");
      assert.equal(down.code, 2);
      assert.equal(down.err.trim().split("\n").length, 1, down.err);
      assert.match(down.err, /cannot connect to the team database at postgres@127\.0\.0\.1:\d+\/down/);
    } finally {
      server.resume();
    }
    const stateAfter = readFileSync(
      join(
        cache,
        (await import("node:fs")).readdirSync(cache).find((f) => f.startsWith("team-"))!,
      ),
    );
    assert.deepEqual(stateAfter, stateBefore);
    const withPassword = url.replace("postgres@", "postgres:s3cr3t-Pa55@").replace(/:\d+\//, ":1/");
    const refused = await cli({ PI_SESSIONS_CACHE_DIR: cache }, "sync", "--agent-dir", a, "--database", withPassword);
    assert.equal(refused.code, 2);
    assert.ok(!refused.err.includes("s3cr3t-Pa55") && !refused.out.includes("s3cr3t-Pa55"), refused.err);
    await withClient(url, (c) => c.query("UPDATE pi_sessions.meta SET value = '99' WHERE key = 'schema_version'"));
    const newer = await cli(envOf(url, cache), "sync", "--agent-dir", a, "--machine", "a");
    assert.equal(newer.code, 2);
    assert.match(newer.err, /schema is version 99, newer than this pi-sessions/);
    const report = await cli(envOf(url, cache), "usage", "--database");
    assert.equal(report.code, 2);
  });

  it("a default sync sends no conversation text; --content does, and team search finds it", async () => {
    const url = await newDatabase(server, "content");
    const e = envOf(url, join(home, "cache-content"));
    assert.equal((await cli(e, "sync", "--agent-dir", b, "--machine", "b", "--redact-paths")).code, 0);
    const found = await withClient(url, async (c) => {
      const cols = await c.query(
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'pi_sessions' " +
          "AND data_type IN ('text', 'character varying', 'tsvector')",
      );
      let hits = 0;
      for (const { table_name, column_name } of cols.rows as { table_name: string; column_name: string }[]) {
        const r = await c.query(
          `SELECT count(*)::int AS n FROM pi_sessions.${table_name} WHERE ${column_name}::text ILIKE '%marmalade%'`,
        );
        hits += (r.rows[0] as { n: number }).n;
      }
      const paths = await c.query(
        "SELECT count(*)::int AS n FROM pi_sessions.sessions WHERE file LIKE '/%' OR project LIKE '/%'",
      );
      return { hits, columns: cols.rows.length, paths: (paths.rows[0] as { n: number }).n };
    });
    assert.ok(found.columns >= 10);
    assert.equal(found.hits, 0, "no conversation text after a default sync");
    assert.equal(found.paths, 0, "paths redacted");
    assert.equal((await cli(e, "sync", "--agent-dir", b, "--machine", "b", "--content")).code, 0);
    const search = JSON.parse((await cli(e, "search", "marmalade zebra", "--database", "--json")).out) as {
      hits: { sessionId: string; entryId: string }[];
    };
    assert.deepEqual(
      search.hits.map((h) => [h.sessionId, h.entryId]),
      [["0fa11e00-0000-7000-8000-000000000001", "f0000001"]],
    );
    assert.ok(statSync(fork).size > 0);
  });
});
