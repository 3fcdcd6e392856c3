// Two machines at once on one record, on a real PostgreSQL: machine A removes the last file of its own that carries a
// record while machine B, in a transaction still open, adds its copy of it. The record must stay (B carries it).
import * as assert from "node:assert/strict";
import { connectTeam } from "../../../src/node/team/connect.js";
import type { TeamSession, TeamUsage } from "../../../src/node/team/records.js";
import { migrate } from "../../../src/node/team/schema.js";
import { deleteFileRows, upsertSession, upsertUsage } from "../../../src/node/team/writes.js";
import { newDatabase, startServer, type TestServer } from "../../support/postgres.js";

const RECORD: TeamUsage = {
  stamp: "2026-11-24T08:12:41.888Z",
  entryId: "05ee0004",
  seq: 0,
  time: Date.parse("2026-11-24T08:12:41.888Z"),
  source: "assistant",
  provider: "anthropic",
  model: "claude-opus-5",
  input: 100,
  output: 10,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 110,
  cost: 0.01,
  active: true,
  own: true,
};

const session = (file: string, sessionId: string, records: TeamUsage[]): TeamSession => ({
  file,
  localFile: file,
  sessionId,
  agent: "pi",
  project: "/home/ana/src/tidepool",
  title: null,
  firstActivity: RECORD.time,
  lastActivity: RECORD.time,
  parentSessionId: null,
  familyRoot: sessionId,
  entryCount: 3,
  copies: new Set(),
  sizeBytes: 1,
  mtimeMs: 1,
  records,
});

describe("team database: two machines at once on one record", function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server?.stop());

  it("A removes its last carrier while B's open transaction adds one: the record stays, carried by B", async () => {
    const url = await newDatabase(server, "race");
    const [a, b, check] = await Promise.all([connectTeam(url), connectTeam(url), connectTeam(url)]);
    try {
      await migrate(a);
      await a.query("INSERT INTO pi_sessions.machines VALUES ('A', now(), now(), ''), ('B', now(), now(), '')");
      const own = session("/a/s.jsonl", "sa", [RECORD]);
      await upsertSession(a, "A", own);
      await upsertUsage(a, "A", own, own.records);
      // B's fork of A's session carries a copy, in a transaction it has not committed yet.
      await b.query("BEGIN");
      const fork = session("/b/f.jsonl", "sb", [{ ...RECORD, own: false }]);
      await upsertSession(b, "B", fork);
      await upsertUsage(b, "B", fork, fork.records);
      // A deletes its file meanwhile: its removal waits for B's row, then sees B's carrier.
      await a.query("BEGIN");
      const removing = deleteFileRows(a, "A", own.file, true).then(() => a.query("COMMIT"));
      await new Promise((r) => setTimeout(r, 500));
      await b.query("COMMIT");
      await removing;
      const rows = await check.query("SELECT machine, session_id FROM pi_sessions.usage");
      assert.equal(rows.rows.length, 1, "the record B carries is still there");
      const carriers = await check.query("SELECT machine FROM pi_sessions.usage_carriers");
      assert.deepEqual(
        carriers.rows.map((r) => r.machine),
        ["B"],
      );
    } finally {
      await Promise.all([a.end(), b.end(), check.end()]);
    }
  });
});
