/**
 * The team database from the command line (issue #39): `pi-sessions sync`, and `usage`, `list` and `search` with
 * `--database`. The database code (with the `pg` client) is loaded only when one of these runs (`loadTeam`).
 */
import { hostname } from "node:os";
import {
  formatCost,
  formatCount,
  formatDateTime,
  formatDuration,
  formatRowCost,
  oneLine,
  truncate,
} from "../protocol/format.js";
import { cacheDir } from "../node/cacheDir.js";
import type { TeamConnection, TeamGroupBy } from "../node/team/index.js";
import { loadTeam } from "../node/team/load.js";
import { machineNameProblem } from "../node/team/machineName.js";
import { computeOwnership } from "../node/store/index.js";
import { EXIT_OK, EXIT_REJECTED, type Io, openStore, type StoreValues, text, UsageError } from "./args.js";
import { formatTable } from "./table.js";
import { checkedPeriod } from "./usage.js";

interface SyncValues extends StoreValues {
  database?: string;
  machine?: string;
  content?: boolean;
  redactPaths?: boolean;
  init?: boolean;
  full?: boolean;
  progress?: boolean;
}

type Team = Awaited<ReturnType<typeof loadTeam>>;

/**
 * Run a command on the team database `database` names (else the environment's): connected, then ended whatever
 * happens; a failure of the database is one line and the exit code (nothing of the store changes).
 */
export async function onTeamDatabase(
  database: string | undefined,
  io: Io,
  fn: (db: TeamConnection, team: Team) => Promise<number>,
): Promise<number> {
  const team = await loadTeam();
  try {
    return await team.withTeam(team.databaseUrl(database), process.env, (db) => fn(db, team));
  } catch (err) {
    if (err instanceof Error && (err.name === "TeamError" || err.name === "SchemaError")) {
      text(io).err(`pi-sessions: ${err.message}`);
      return EXIT_REJECTED;
    }
    throw err;
  }
}

export async function syncCommand(values: SyncValues, version: string, io: Io): Promise<number> {
  const machine = values.machine ?? hostname();
  const problem = machineNameProblem(machine);
  if (problem) throw new UsageError(`--machine ${JSON.stringify(machine)}: ${problem}`);
  return onTeamDatabase(values.database, io, async (db, { migrate, syncStore }) => {
    if (values.init) {
      const { from, to } = await migrate(db);
      text(io).err(from === to ? `the schema of ${db.where} is current (version ${to})` : `schema ${from} → ${to}`);
      return EXIT_OK;
    }
    const { result } = await openStore({ ...values, workspace: undefined }, io);
    computeOwnership(result);
    const t0 = performance.now();
    const r = await syncStore(db, result, {
      machine,
      content: values.content === true,
      redactPaths: values.redactPaths === true,
      cacheDir: cacheDir(),
      toolVersion: version,
      full: values.full === true,
      ...(values.progress ? { onProgress: (d: number, t: number) => io.err(`syncing sessions: ${d} of ${t}`) } : {}),
    });
    const ms = performance.now() - t0;
    const seconds = ms / 1000;
    if (values.json) io.out(JSON.stringify({ machine, database: db.where, ...r, seconds }));
    else
      text(io).err(
        `synced ${machine} to ${db.where}: ${formatCount(r.sent)} of ${formatCount(r.sessions)} sessions sent ` +
          `(${formatCount(r.records)} usage records${r.texts ? `, ${formatCount(r.texts)} texts` : ""}), ` +
          `${formatCount(r.removed)} removed, in ${formatDuration(ms)}`,
      );
    return EXIT_OK;
  });
}

interface TeamUsageValues {
  database?: string;
  breakdown?: boolean;
  file?: string;
  by: TeamGroupBy;
  since?: string;
  until?: string;
  timezone?: string;
  machine?: string;
  json?: boolean;
}

export async function teamUsageCommand(values: TeamUsageValues, io: Io): Promise<number> {
  if (values.breakdown || values.file !== undefined)
    throw new UsageError("--breakdown and --file read this machine's sessions: leave them out with --database");
  const { since, until } = checkedPeriod(values);
  return onTeamDatabase(values.database, io, async (db, { teamUsageReport }) => {
    const report = await teamUsageReport(db, {
      by: values.by,
      ...(since ? { since } : {}),
      ...(until ? { until } : {}),
      ...(values.timezone ? { timeZone: values.timezone } : {}),
      ...(values.machine ? { machine: values.machine } : {}),
    });
    if (values.json) {
      io.out(JSON.stringify(report));
      return EXIT_OK;
    }
    const table = [[values.by, "input", "output", "cache read", "cache write", "total tokens", "cost", "msgs"]];
    const cells = (t: (typeof report)["total"]) =>
      [t.input, t.output, t.cacheRead, t.cacheWrite, t.totalTokens].map(formatCount);
    for (const r of report.rows)
      table.push([
        oneLine(truncate(r.name ? `${r.key} ${r.name}` : r.key, 60)),
        ...cells({ ...r, inheritedCost: 0 }),
        formatRowCost(r),
        formatCount(r.messages),
      ]);
    table.push(["TOTAL", ...cells(report.total), formatCost(report.total.cost), formatCount(report.total.messages)]);
    io.out(formatTable(table, [1, 2, 3, 4, 5, 6, 7], true, io));
    text(io).err(
      `${db.where}: ${
        report.machines.map((m) => `${m.name} (synced ${formatDateTime(m.lastSync)})`).join(", ") ||
        "no machine synced yet"
      }`,
    );
    return EXIT_OK;
  });
}

export async function teamListCommand(
  values: { database?: string; machine?: string; json?: boolean },
  io: Io,
): Promise<number> {
  return onTeamDatabase(values.database, io, async (db, { teamSessionsList }) => {
    const sessions = await teamSessionsList(db, {
      ...(values.machine ? { machine: values.machine } : {}),
      limit: 100_000,
    });
    if (values.json) {
      io.out(JSON.stringify({ sessions }));
      return EXIT_OK;
    }
    const table = [["last active", "machine", "agent", "entries", "title", "project"]];
    for (const s of sessions)
      table.push([
        formatDateTime(s.lastActivity),
        s.machine,
        s.agent,
        formatCount(s.entryCount),
        truncate(s.title ?? s.sessionId, 60),
        oneLine(s.project ?? ""),
      ]);
    io.out(formatTable(table, [3], false, io));
    return EXIT_OK;
  });
}

export async function teamSearchCommand(
  words: string[],
  values: { database?: string; limit: string; json?: boolean },
  io: Io,
): Promise<number> {
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500)
    throw new UsageError("--limit takes a number from 1 to 500");
  return onTeamDatabase(values.database, io, async (db, { teamSearch }) => {
    const hits = await teamSearch(db, words.join(" "), limit);
    if (values.json) io.out(JSON.stringify({ hits }));
    else
      for (const h of hits)
        text(io).out(
          [
            formatDateTime(h.timestamp),
            h.machine,
            h.sessionId.slice(0, 8),
            h.tool ? `${h.role}:${h.tool}` : h.role,
            truncate(h.snippet, 160),
          ]
            .map(oneLine)
            .join("  "),
        );
    if (!hits.length) text(io).err("no match (only machines that sync with --content send text)");
    return EXIT_OK;
  });
}
