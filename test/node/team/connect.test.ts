// Connecting to the team database, against a real PostgreSQL: TLS read as libpq reads it (psql's meaning of sslmode),
// on a server that offers TLS with a certificate of its own CA for `localhost` only; a server that stops answering.
import * as assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { connectTeam, TeamError } from "../../../src/node/team/connect.js";
import { cliWithEnv as cli, withEnv } from "../../support/cli.js";
import { REAL } from "../../support/fixtures.js";
import { startPostgres } from "../../../scripts/pg/postgres.mjs";

type Server = Awaited<ReturnType<typeof startPostgres>>;

/** Whether `url` connects, and whether the connection is encrypted (the server's own view, pg_stat_ssl). */
async function encrypted(url: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const db = await connectTeam(url, env);
  try {
    const { rows } = await db.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()");
    return rows[0]!.ssl === true;
  } finally {
    await db.end();
  }
}

async function refusal(url: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  try {
    await encrypted(url, env);
  } catch (err) {
    assert.ok(err instanceof TeamError, `a TeamError, not ${String(err)}`);
    assert.equal(err.message.split("\n").length, 1, "one line");
    return err.message;
  }
  assert.fail(`${url ?? "(environment)"} connected`);
}

describe("team database: connecting (TLS as libpq reads sslmode; a server that stops answering)", function () {
  this.timeout(120_000);
  let secure: Server;
  let plain: Server;
  let ca: string;
  let otherCa: string;
  const at = (server: Server, host: string, query: string) =>
    `postgres://postgres:s3cret-pass@${host}:${server.port}/postgres?${query}`;

  before(async () => {
    [secure, plain] = [await startPostgres({ tls: true }), await startPostgres()];
    ({ ca, otherCa } = secure.tls!);
  });
  after(() => {
    secure?.stop();
    plain?.stop();
  });

  it("require: encrypted, the certificate not checked (pg alone would refuse it); plain servers refused", async () => {
    const url = at(secure, "127.0.0.1", "sslmode=require");
    assert.equal(await encrypted(url), true);
    // `pg` by itself reads require as verify-full, and refuses this server's certificate.
    const bare = new pg.Client({ connectionString: url });
    bare.on("error", () => undefined);
    await assert.rejects(bare.connect());
    await bare.end().catch(() => undefined);
    assert.equal(await encrypted(at(secure, "127.0.0.1", "sslmode=disable")), false);
    assert.match(await refusal(at(plain, "127.0.0.1", "sslmode=require")), /does not support SSL/);
  });

  it("verify-full with sslrootcert: the chain and the name checked; verify-ca: the chain only", async () => {
    assert.equal(await encrypted(at(secure, "localhost", `sslmode=verify-full&sslrootcert=${ca}`)), true);
    const wrongName = await refusal(at(secure, "127.0.0.1", `sslmode=verify-full&sslrootcert=${ca}`));
    assert.match(wrongName, /127\.0\.0\.1.*(not in the cert|altnames)/i);
    assert.equal(await encrypted(at(secure, "127.0.0.1", `sslmode=verify-ca&sslrootcert=${ca}`)), true);
    const stranger = await refusal(at(secure, "localhost", `sslmode=verify-full&sslrootcert=${otherCa}`));
    assert.match(stranger, /^cannot connect to the team database at postgres@localhost:\d+\/postgres: .*certificate/i);
    // require with a CA is verify-ca, as in libpq.
    assert.match(await refusal(at(secure, "localhost", `sslmode=require&sslrootcert=${otherCa}`)), /certificate/i);
    for (const message of [wrongName, stranger]) assert.ok(!message.includes("s3cret-pass"), message);
  });

  it("an unreadable CA file, an unknown mode, a key=value string: one line naming it, before connecting", async () => {
    const missing = join(tmpdir(), "no-such-ca.pem");
    const message = await refusal(at(secure, "localhost", `sslmode=verify-full&sslrootcert=${missing}`));
    assert.match(message, new RegExp(`sslrootcert file ${missing.replace(/\./g, "\\.")} cannot be read \\(ENOENT\\)`));
    assert.match(await refusal(at(secure, "localhost", "sslmode=verify-everything")), /sslmode=verify-everything is/);
    const keyValue = await refusal(`host=localhost port=${secure.port} user=postgres password=s3cret-pass`);
    assert.match(keyValue, /is not a postgres:\/\/ URL/);
    assert.ok(!keyValue.includes("s3cret-pass"), keyValue);
  });

  it("libpq's PGSSLMODE and PGSSLROOTCERT are honoured, and the URL's own parameters win over them", async () => {
    const libpq = {
      PGHOST: "localhost",
      PGPORT: String(secure.port),
      PGUSER: "postgres",
      PGDATABASE: "postgres",
      PGSSLMODE: "verify-full",
      PGSSLROOTCERT: ca,
    };
    await withEnv(libpq, async () => {
      assert.equal(await encrypted(undefined), true);
      assert.equal(await encrypted(at(secure, "localhost", "application_name=x")), true);
      assert.equal(await encrypted(at(secure, "127.0.0.1", "sslmode=disable")), false);
    });
    await withEnv({ ...libpq, PGSSLROOTCERT: otherCa }, async () => {
      assert.match(await refusal(undefined), /certificate/i);
    });
  });

  it("pi-sessions sync and usage over verify-full", async () => {
    const cache = mkdtempSync(join(tmpdir(), "pi-team-tls-"));
    const url = at(secure, "localhost", `sslmode=verify-full&sslrootcert=${ca}`);
    const sync = ["sync", "--database", url, "--agent-dir", join(REAL, "pi-1.6"), "--machine", "tls-box"];
    const env = { PI_SESSIONS_CACHE_DIR: cache };
    try {
      const synced = await cli(env, ...sync);
      assert.equal(synced.code, 0, synced.err);
      const { code, out, err } = await cli(env, "usage", "--database", url, "--by", "machine", "--json");
      assert.equal(code, 0, err);
      const report = JSON.parse(out) as { rows: { key: string }[]; total: { messages: number } };
      assert.deepEqual(
        report.rows.map((r) => r.key),
        ["tls-box"],
      );
      assert.ok(report.total.messages > 0, "the machine's turns arrived");
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it("a server that stops answering: given up after the time-out, one line, and nothing more waits on it", async () => {
    const db = await connectTeam(at(plain, "127.0.0.1", "application_name=x"), process.env, { timeoutMs: 1_500 });
    const pid = Number((await db.query("SELECT pg_backend_pid() AS pid")).rows[0]!.pid);
    process.kill(pid, "SIGSTOP");
    try {
      const t0 = Date.now();
      await assert.rejects(db.query("SELECT 1"), (err: Error) => {
        assert.ok(err instanceof TeamError);
        assert.match(err.message, /^the team database at postgres@127\.0\.0\.1:\d+\/postgres did not answer within/);
        assert.ok(!err.message.includes("s3cret-pass"));
        return true;
      });
      assert.ok(Date.now() - t0 < 20_000, "given up, not waiting for ever");
      // A ROLLBACK after it is refused at once; ending does not wait for the server.
      const t1 = Date.now();
      await assert.rejects(db.query("ROLLBACK"), /did not answer/);
      await db.end();
      assert.ok(Date.now() - t1 < 5_000, "nothing more waits on the stopped server");
    } finally {
      process.kill(pid, "SIGCONT");
    }
  });
});
