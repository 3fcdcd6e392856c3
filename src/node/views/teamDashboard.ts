/**
 * The Usage & Cost dashboard's Team scope: the same model as the local scopes (dashboard.ts), its numbers read from
 * the team database (src/node/team, aggregated in SQL), with each machine's share and when they were read.
 */
import { emptyTotals } from "../../core/usage.js";
import type { DashboardModel, UsageTableRow } from "../../protocol/views.js";
import type { TeamConnection } from "../team/index.js";
import { buckets } from "./dashboard.js";

type Team = typeof import("../team/index.js");
type TeamRow = Awaited<ReturnType<Team["teamUsageReport"]>>["rows"][number];

function tableRow(r: TeamRow, label = r.key): UsageTableRow {
  return { key: r.key, label, activeCost: r.activeCost, ...buckets(r) };
}

export async function teamDashboardModel(
  team: Team,
  db: TeamConnection,
  range: { since?: string | null; until?: string | null },
): Promise<DashboardModel> {
  const o = { ...(range.since ? { since: range.since } : {}), ...(range.until ? { until: range.until } : {}) };
  const report = (by: "model" | "project" | "session" | "machine") => team.teamUsageReport(db, { by, ...o });
  const [byModel, byProject, bySession, byMachine, daily] = [
    await report("model"),
    await report("project"),
    await report("session"),
    await report("machine"),
    await team.teamDailyByModel(db, o),
  ];
  const days = new Map<string, DashboardModel["days"][number]>();
  for (const d of daily) {
    let day = days.get(d.day);
    if (!day) days.set(d.day, (day = { day: d.day, byModel: {}, cost: 0 }));
    day.byModel[d.model] = (day.byModel[d.model] ?? 0) + d.cost;
    day.cost += d.cost;
  }
  const lastSync = new Map(byMachine.machines.map((m) => [m.name, m.lastSync]));
  return {
    kind: "usage",
    scope: "team",
    since: range.since ?? null,
    until: range.until ?? null,
    folders: [],
    // The sessions that reported usage in the range (the report's rows by session).
    sessions: bySession.rows.length,
    totals: { ...buckets(byModel.total), activeCost: byModel.total.activeCost, inheritedCost: 0 },
    days: [...days.values()],
    models: byModel.rows.map((r) => tableRow(r)),
    projects: byProject.rows.map((r) => tableRow(r)),
    topSessions: bySession.rows.slice(0, 15).map((r) => tableRow(r, r.name ?? r.key)),
    team: {
      database: db.where,
      machines: byMachine.machines.map((m) => {
        const row = byMachine.rows.find((r) => r.key === m.name) ?? { key: m.name, ...emptyTotals(), activeCost: 0 };
        return { ...tableRow(row), lastSync: lastSync.get(m.name) ?? "" };
      }),
      asOf: new Date().toISOString(),
    },
  };
}

/** The Team scope with no numbers: no database set, or none read yet (`error`: why). */
export function emptyTeamModel(
  range: { since?: string | null; until?: string | null },
  facts: Omit<DashboardModel["team"] & object, "machines" | "asOf">,
): DashboardModel {
  return {
    kind: "usage",
    scope: "team",
    since: range.since ?? null,
    until: range.until ?? null,
    folders: [],
    sessions: 0,
    totals: { ...emptyTotals(), activeCost: 0, inheritedCost: 0 },
    days: [],
    models: [],
    projects: [],
    topSessions: [],
    team: { ...facts, machines: [], asOf: "" },
  };
}
