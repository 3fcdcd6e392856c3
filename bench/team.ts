/**
 * Bench rows of the team database (issue #39) on a throwaway PostgreSQL (scripts/pg/postgres.mjs), each against a
 * baseline of the same run: `pi-sessions sync` of the 2,000-session bench store, cold (records/s, against the server
 * writing as many rows into a copy of the usage table, with its indexes, by itself), then incremental (an append to 20
 * sessions, against a sync that finds nothing); and the team usage report over 1,000,000 usage rows of 20 machines
 * (the rows written by the sync's own statements, each machine's sessions under ids of its own), against a count of
 * the table. Run: `npm run bench:team` (after `npm run build`; generates the bench store if missing).
 */
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres } from "../scripts/pg/postgres.mjs";
import * as team from "../src/node/team/index.js";
import { connectTeam, migrate, type TeamConnection, teamUsageReport } from "../src/node/team/index.js";
import { teamDashboardModel } from "../src/node/views/teamDashboard.js";
import { type TeamSession, teamSessions } from "../src/node/team/records.js";
import { upsertSession, upsertUsage } from "../src/node/team/writes.js";
import { computeOwnership, loadStore } from "../src/node/store/index.js";
import { generateStore } from "./generate.js";
import { medianOf, ms, type Row } from "./row.js";

const ROOT = join(import.meta.dirname, "..");
const CLI = join(ROOT, "dist", "cli.js");
const STORE = { sessions: 2000, projects: 40, totalBytes: 300 * 1048576, forkShare: 0.1, seed: 7 };
const MACHINES = 20;
const TEAM_ROWS = 1_000_000;

async function benchStore(): Promise<string> {
  const dir = join(ROOT, ".bench", `store-v1-${STORE.sessions}`);
  if (!existsSync(join(dir, ".done"))) {
    rmSync(dir, { recursive: true, force: true });
    const g = await generateStore(join(dir, "sessions"), STORE);
    writeFileSync(join(dir, ".done"), JSON.stringify(g));
  }
  return dir;
}

function sync(agentDir: string, url: string, cache: string): { records: number; sent: number; seconds: number } {
  const out = execFileSync(
    process.execPath,
    [CLI, "sync", "--agent-dir", agentDir, "--database", url, "--machine", "bench", "--json"],
    { encoding: "utf8", env: { ...process.env, PI_SESSIONS_CACHE_DIR: cache }, maxBuffer: 1 << 24 },
  );
  return JSON.parse(out) as { records: number; sent: number; seconds: number };
}

async function timed<T>(fn: () => Promise<T>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** The server writing `n` rows into a copy of the usage table (its indexes too), by itself: the write ceiling. */
async function serverInsertMs(db: TeamConnection, n: number): Promise<number> {
  await db.query("DROP TABLE IF EXISTS bench_usage");
  await db.query("CREATE TABLE bench_usage (LIKE pi_sessions.usage INCLUDING ALL)");
  const t = await timed(() =>
    db.query(
      `INSERT INTO bench_usage (entry_id, stamp, seq, time, source, provider, model, input, output, cache_read,
         cache_write, total_tokens, cost, active, own, machine, session_id, project)
       SELECT 'e' || g, (now() - g * interval '1 second')::text, 0, now() - g * interval '1 second', 'assistant',
         'anthropic', 'm' || (g % 7), g % 5000, g % 900, g % 20000, g % 3000, g % 29000, (g % 1000) / 1000.0,
         g % 3 = 0, true, 'bench', 'o' || (g / 50), 'p' || (g % 40)
       FROM generate_series(1, $1::int) AS g`,
      [n],
    ),
  );
  await db.query("DROP TABLE bench_usage");
  return t;
}

async function syncRows(server: { url: string }): Promise<Row[]> {
  const store = await benchStore();
  const work = mkdtempSync(join(tmpdir(), "pi-bench-team-"));
  const url = server.url.replace(/\/postgres$/, "/bench_sync");
  const rows: Row[] = [];
  try {
    const admin = await connectTeam(server.url, {});
    await admin.query("CREATE DATABASE bench_sync");
    await admin.end();
    // A copy: the incremental row appends to it.
    cpSync(join(store, "sessions"), join(work, "agent", "sessions"), { recursive: true });
    const agentDir = join(work, "agent");
    const cold = sync(agentDir, url, join(work, "cache"));
    const db = await connectTeam(url, {});
    const ceiling = await serverInsertMs(db, cold.records);
    await db.end();
    const rate = cold.records / cold.seconds;
    const ceilingRate = cold.records / (ceiling / 1000);
    rows.push({
      n: 39,
      measure: `pi-sessions sync, cold: ${STORE.sessions} sessions, ${cold.records} usage records (the sync alone)`,
      value: `${Math.round(rate)} records/s (${cold.seconds.toFixed(1)} s)`,
      baseline: `the server writing as many rows by itself: ${Math.round(ceilingRate)} rows/s`,
      ratio: `${(rate / ceilingRate).toFixed(2)}×`,
      goal: "a first sync of a 2,000-session store in well under a minute",
      met: cold.seconds < 30,
    });
    const idle: number[] = [];
    for (let i = 0; i < 3; i++) idle.push(sync(agentDir, url, join(work, "cache")).seconds * 1000);
    const files = readdirSync(join(agentDir, "sessions"), { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile() && d.name.endsWith(".jsonl"))
      .slice(0, 20)
      .map((d) => join(d.parentPath, d.name));
    for (const [k, f] of files.entries()) {
      const last = readFileSync(f, "utf8").trimEnd().split("\n").at(-1)!;
      appendFileSync(f, `${appendedTurn(k, (JSON.parse(last) as { id: string }).id)}\n`);
    }
    const inc = sync(agentDir, url, join(work, "cache"));
    rows.push({
      n: 39,
      measure: "pi-sessions sync, incremental: one turn appended to 20 sessions",
      value: `${inc.records} records in ${ms(inc.seconds * 1000)} ms (${inc.sent} sessions sent)`,
      baseline: `a sync that finds nothing: ${ms(medianOf(idle))} ms (median of 3)`,
      ratio: `${((inc.seconds * 1000) / medianOf(idle)).toFixed(2)}×`,
      goal: "only the appended records are sent",
      met: inc.records === 20 && inc.sent === 20,
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return rows;
}

/** A reply appended to a session: its own id, after everything, with usage (a pi `message` line). */
function appendedTurn(k: number, parentId: string): string {
  const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 120 };
  return JSON.stringify({
    type: "message",
    id: `bench${String(k).padStart(3, "0")}`,
    parentId,
    timestamp: "2026-12-06T00:00:00.000Z",
    message: {
      role: "assistant",
      content: [{ type: "text", text: "appended" }],
      provider: "anthropic",
      model: "claude-bench",
      usage: { ...usage, cost: { input: 0.001, output: 0.001, cacheRead: 0, cacheWrite: 0, total: 0.002 } },
      stopReason: "stop",
      timestamp: Date.parse("2026-12-06T00:00:00.000Z"),
    },
  });
}

/** The store's sessions as machine `m` would send them: the same shapes under ids of that machine. */
function asMachine(sessions: TeamSession[], m: number): TeamSession[] {
  const id = (x: string) => `m${m}-${x}`;
  return sessions.map((s) => ({
    ...s,
    file: `/machine-${m}${s.file}`,
    sessionId: id(s.sessionId),
    parentSessionId: s.parentSessionId && id(s.parentSessionId),
    familyRoot: s.familyRoot && id(s.familyRoot),
    records: s.records.map((r) => ({ ...r, entryId: id(r.entryId) })),
  }));
}

async function teamQueryRows(server: { url: string }): Promise<Row[]> {
  const store = await benchStore();
  const loaded = await loadStore({
    roots: [{ dir: join(store, "sessions"), agent: "pi", source: "bench" }],
    cacheFile: null,
  });
  computeOwnership(loaded.sessions);
  const base = teamSessions(loaded.sessions, { redactPaths: false, content: false });
  const url = server.url.replace(/\/postgres$/, "/bench_team");
  const admin = await connectTeam(server.url, {});
  await admin.query("CREATE DATABASE bench_team");
  await admin.end();
  const db = await connectTeam(url, {});
  await migrate(db);
  const perMachine = TEAM_ROWS / MACHINES;
  let written = 0;
  for (let m = 0; m < MACHINES; m++) {
    const name = `machine-${String(m).padStart(2, "0")}`;
    await db.query("INSERT INTO pi_sessions.machines (name, first_sync, last_sync) VALUES ($1, now(), now())", [name]);
    let sent = 0;
    await db.query("BEGIN");
    // The store's records again, under the machine's own ids, until the machine holds its share.
    for (let round = 0; sent < perMachine; round++)
      for (const s of asMachine(base, m * 1000 + round)) {
        if (sent >= perMachine) break;
        const records = s.records.slice(0, perMachine - sent);
        await upsertSession(db, name, s);
        await upsertUsage(db, name, s, records);
        sent += records.length;
      }
    await db.query("COMMIT");
    written += sent;
  }
  await db.query("ANALYZE");
  const reports: Record<string, number[]> = {};
  for (let i = 0; i < 5; i++)
    for (const by of ["model", "machine", "day", "project", "session"] as const)
      (reports[by] ??= []).push(await timed(() => teamUsageReport(db, { by })));
  const counts: number[] = [];
  for (let i = 0; i < 3; i++) counts.push(await timed(() => db.query("SELECT count(*) FROM pi_sessions.usage")));
  const count = medianOf(counts);
  // The editor's Team scope: every table of the dashboard in one model.
  const dashboards: number[] = [];
  for (let i = 0; i < 3; i++) dashboards.push(await timed(() => teamDashboardModel(team, db, {})));
  await db.end();
  const worst = Math.max(...Object.values(reports).map(medianOf));
  return [
    {
      n: 39,
      measure:
        `team usage report over ${written} usage rows of ${MACHINES} machines (written by the sync's statements), ` +
        `median of 5: ${Object.entries(reports)
          .map(([by, t]) => `--by ${by} ${ms(medianOf(t))} ms`)
          .join(", ")}`,
      value: `${ms(worst)} ms (the slowest grouping)`,
      baseline: `SELECT count(*) of the table ${ms(count)} ms`,
      ratio: `${(worst / count).toFixed(2)}×`,
      goal: "≤ 1 s",
      met: worst <= 1000,
    },
    {
      n: 39,
      measure: `Usage & Cost's Team scope over the same rows: the whole model (five queries), median of 3`,
      value: `${ms(medianOf(dashboards))} ms`,
      baseline: `SELECT count(*) of the table ${ms(count)} ms`,
      ratio: `${(medianOf(dashboards) / count).toFixed(2)}×`,
      goal: "a few seconds at most",
      met: medianOf(dashboards) <= 3000,
    },
  ];
}

const server = await startPostgres();
try {
  console.log(
    `machine: ${availableParallelism()} cores, node ${process.version}, ${new Date().toISOString().slice(0, 10)}`,
  );
  const rows = [...(await syncRows(server)), ...(await teamQueryRows(server))];
  console.log("| # | measure | value | baseline (same run) | ratio | goal | met |");
  console.log("|---|---|---|---|---|---|---|");
  for (const r of rows) {
    const met = r.met === null ? "" : r.met ? "yes" : "no";
    console.log(`| ${r.n} | ${r.measure} | ${r.value} | ${r.baseline} | ${r.ratio} | ${r.goal} | ${met} |`);
  }
} finally {
  server.stop();
}
