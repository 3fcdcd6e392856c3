// The least-privilege grants of docs/team.md, run as written: a machine's role syncs its own rows, reads the whole
// team's, and can change no other machine's (row-level security on `machine`, column grants on usage).
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliWithEnv as cli } from "../../support/cli.js";
import { REAL, ROOT } from "../../support/fixtures.js";
import { newDatabase, startServer, type TestServer, withClient } from "../../support/postgres.js";

/** The SQL block of docs/team.md marked `team-grants`. */
function grantsSql(): string {
  const doc = readFileSync(join(ROOT, "docs", "team.md"), "utf8");
  const at = doc.indexOf("<!-- team-grants:");
  const m = /```sql\n([\s\S]*?)```/.exec(doc.slice(at));
  assert.ok(m, "docs/team.md has the grants block");
  return m[1]!;
}

describe("team database: the grants of docs/team.md", function () {
  this.timeout(120_000);
  let server: TestServer;
  let home: string;
  before(async () => {
    server = await startServer();
    home = mkdtempSync(join(tmpdir(), "pi-team-grants-"));
  });
  after(() => {
    server?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("a machine's role syncs its own rows, reads the team's, and changes no other machine's", async () => {
    const admin = await newDatabase(server, "grants");
    assert.equal(
      (await cli({ PI_SESSIONS_CACHE_DIR: join(home, "c0") }, "sync", "--init", "--database", admin)).code,
      0,
    );
    const sql = join(home, "grants.sql");
    writeFileSync(sql, grantsSql());
    for (const machine of ["laptop", "desk"])
      execFileSync("psql", [admin, "-v", "ON_ERROR_STOP=1", "-v", `machine=${machine}`, "-q", "-f", sql], {
        stdio: "pipe",
      });
    const as = (role: string) => admin.replace("postgres@", `${role}@`);
    const a = join(home, "a");
    const b = join(home, "b");
    cpSync(join(REAL, "pi-1.6"), a, { recursive: true });
    cpSync(join(REAL, "pi"), b, { recursive: true });
    /** `dir`'s store synced as `machine` by `role`, with the state in cache dir `cache`. */
    const sync = (cache: string, dir: string, machine: string, role: string) =>
      cli(
        { PI_SESSIONS_CACHE_DIR: join(home, cache) },
        "sync",
        "--agent-dir",
        dir,
        "--machine",
        machine,
        "--database",
        as(role),
      );
    const laptop = await sync("c1", a, "laptop", "laptop");
    assert.equal(laptop.code, 0, laptop.err);
    const desk = await sync("c2", b, "desk", "desk");
    assert.equal(desk.code, 0, desk.err);
    // Another machine's name is refused to a role.
    const impostor = await sync("c3", b, "desk", "laptop");
    assert.equal(impostor.code, 2);
    assert.match(impostor.err, /row-level security|permission denied/);
    await withClient(as("laptop"), async (c) => {
      const seen = await c.query(
        "SELECT machine, count(*)::int AS n FROM pi_sessions.sessions GROUP BY machine ORDER BY 1",
      );
      assert.deepEqual(
        seen.rows.map((r) => r.machine),
        ["desk", "laptop"],
        "the team's rows are readable",
      );
      const deleted = await c.query("DELETE FROM pi_sessions.sessions WHERE machine = 'desk'");
      assert.equal(deleted.rowCount, 0, "no other machine's row");
      // Another machine's usage: neither taken over nor changed, nor removed while its files carry it.
      const taken = await c.query(
        "UPDATE pi_sessions.usage SET machine = 'laptop', active = false, project = 'pwned', cost = 0 " +
          "WHERE machine = 'desk'",
      );
      assert.equal(taken.rowCount, 0, "no other machine's record taken");
      const dropped = await c.query("DELETE FROM pi_sessions.usage WHERE machine = 'desk'");
      assert.equal(dropped.rowCount, 0, "no other machine's record removed");
      const carriers = await c.query("DELETE FROM pi_sessions.usage_carriers WHERE machine = 'desk'");
      assert.equal(carriers.rowCount, 0, "no other machine's carrier removed");
      await assert.rejects(c.query("UPDATE pi_sessions.usage SET entry_id = 'x'"), /permission denied/);
      await assert.rejects(c.query("DELETE FROM pi_sessions.meta"), /permission denied/);
    });
    const report = JSON.parse(
      (
        await cli(
          { PI_SESSIONS_CACHE_DIR: join(home, "c1") },
          "usage",
          "--database",
          as("laptop"),
          "--by",
          "machine",
          "--json",
        )
      ).out,
    ) as { rows: { key: string }[] };
    assert.deepEqual(report.rows.map((r) => r.key).sort(), ["desk", "laptop"]);
    // After an update that brings a newer schema, a machine's role cannot migrate it: one line says who can, and the
    // owner's --init does it. (Schema 2, as a tool before the texts' line and kind left it.)
    await withClient(admin, (c) =>
      c.query(
        "ALTER TABLE pi_sessions.texts DROP COLUMN line, DROP COLUMN kind; " +
          "UPDATE pi_sessions.meta SET value = '2' WHERE key = 'schema_version'",
      ),
    );
    const refused = await sync("c1", a, "laptop", "laptop");
    assert.equal(refused.code, 2);
    assert.match(refused.err, /schema is version 2 and this pi-sessions needs 3: run pi-sessions sync --init once as/);
    const listed = await cli({ PI_SESSIONS_CACHE_DIR: join(home, "c1") }, "list", "--database", as("laptop"));
    assert.match(listed.err, /sync --init once as the schema's owner/);
    assert.equal(
      (await cli({ PI_SESSIONS_CACHE_DIR: join(home, "c0") }, "sync", "--init", "--database", admin)).code,
      0,
    );
    const after = await sync("c1", a, "laptop", "laptop");
    assert.equal(after.code, 0, after.err);
  });
});
