/**
 * The Usage & Cost dashboard: the same fork-aware aggregation as `pi-sessions usage`, over a scope and a date
 * range.
 */
import type { HostPaths } from "../../core/slug.js";
import type { UsageTotals } from "../../core/usage.js";
import type { Buckets, DashboardModel, UsageTableRow } from "../../protocol/views.js";
import { type UsageRow, usageReport } from "../report.js";
import { belongsToWorkspace, type StoreSession } from "../store/index.js";

export interface DashboardOptions {
  scope: "workspace" | "all";
  since?: string | null;
  until?: string | null;
  folders: string[];
  host: HostPaths;
}

export function buckets(t: UsageTotals): Buckets {
  return {
    cost: t.cost,
    input: t.input,
    output: t.output,
    cacheRead: t.cacheRead,
    cacheWrite: t.cacheWrite,
    totalTokens: t.totalTokens,
    messages: t.messages,
    unpriced: t.unpriced,
  };
}

function tableRow(r: UsageRow, label = r.key): UsageTableRow {
  const row: UsageTableRow = { key: r.key, label, activeCost: r.activeCost, ...buckets(r) };
  if (r.inheritedCost !== undefined) row.inheritedCost = r.inheritedCost;
  if (r.file !== undefined) row.file = r.file;
  if (r.includedInParent) row.includedInParent = true;
  return row;
}

/** The sessions of a scope: this workspace's folders, or everything. */
function scopeSessions(
  sessions: StoreSession[],
  scope: "workspace" | "all",
  folders: string[],
  host: HostPaths,
): StoreSession[] {
  return scope === "all" ? sessions : sessions.filter((s) => folders.some((f) => belongsToWorkspace(s, f, host)));
}

export function dashboardModel(all: StoreSession[], o: DashboardOptions): DashboardModel {
  const sessions = scopeSessions(all, o.scope, o.folders, o.host);
  const range = { since: o.since ?? undefined, until: o.until ?? undefined };
  const byDay = usageReport(sessions, { by: "day", ...range, cellKey: (r) => r.model || "(unknown model)" });
  const byModel = usageReport(sessions, { by: "model", ...range });
  const byProject = usageReport(sessions, { by: "project", ...range });
  const bySession = usageReport(sessions, { by: "session", ...range });
  const days = byDay.rows.map((r) => {
    const cells = byDay.cells?.get(r.key) ?? new Map<string, UsageTotals>();
    return { day: r.key, cost: r.cost, byModel: Object.fromEntries([...cells].map(([m, t]) => [m, t.cost])) };
  });
  return {
    kind: "usage",
    scope: o.scope,
    since: o.since ?? null,
    until: o.until ?? null,
    folders: o.folders,
    sessions: sessions.length,
    totals: {
      ...buckets(byModel.total),
      activeCost: byModel.total.activeCost,
      inheritedCost: byModel.total.inheritedCost,
    },
    days,
    models: byModel.rows.map((r) => tableRow(r)),
    projects: byProject.rows.map((r) => tableRow(r)),
    topSessions: bySession.rows.slice(0, 15).map((r) => tableRow(r, r.name ?? r.key)),
  };
}

const CSV_COLUMNS = [
  "key",
  "label",
  "cost",
  "activeCost",
  "inheritedCost",
  "input",
  "output",
  "cacheRead",
  "cacheWrite",
  "totalTokens",
  "messages",
  "unpriced",
] as const;

function csvCell(v: unknown): string {
  const s = v === undefined || v === null ? "" : String(v);
  // Quote, and defuse spreadsheet formulas in untrusted text (names and prompts come from sessions).
  const safe = /^[=+\-@\t\r]/.test(s) && typeof v === "string" ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A dashboard table as CSV or JSON text. */
export function exportTable(
  model: DashboardModel,
  table: "models" | "projects" | "sessions" | "days" | "machines",
  format: "csv" | "json",
): string {
  const rows: Record<string, unknown>[] =
    table === "days"
      ? model.days.map((d) => ({
          key: d.day,
          label: d.day,
          cost: d.cost,
          ...Object.fromEntries(Object.entries(d.byModel).map(([m, c]) => [`cost:${m}`, c])),
        }))
      : table === "models"
        ? model.models
        : table === "projects"
          ? model.projects
          : table === "machines"
            ? (model.team?.machines ?? [])
            : model.topSessions;
  if (format === "json")
    return `${JSON.stringify({ scope: model.scope, since: model.since, until: model.until, table, rows }, null, 2)}\n`;
  const extra =
    table === "days"
      ? [...new Set(rows.flatMap((r) => Object.keys(r).filter((k) => k.startsWith("cost:"))))].sort()
      : [];
  const columns =
    table === "days" ? ["key", "cost", ...extra] : [...CSV_COLUMNS, ...(table === "machines" ? ["lastSync"] : [])];
  // Every cell is escaped, the header row too: the day table's headers carry model names from sessions.
  const line = (cells: unknown[]) => cells.map(csvCell).join(",");
  return `${[line(columns), ...rows.map((r) => line(columns.map((c) => r[c])))].join("\n")}\n`;
}
