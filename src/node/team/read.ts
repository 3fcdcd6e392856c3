/**
 * Reading the team database: the usage report aggregated in SQL (the local report's rows and totals, plus `by
 * machine` and a machine filter), the sessions of every machine, and a full-text search of the text machines sent
 * with `--content` (PostgreSQL's own `tsvector`, searched with the query language where it maps: words, phrases and
 * exclusions; the filters role, tool, project, since, until and session).
 */
import { parseQuery } from "../../core/search/query.js";
import type { UsageTotals } from "../../core/usage.js";
import type { TeamSessionRow } from "../../core/export/teamMarkdown.js";
import type { Queryable } from "./connect.js";
import { requireSchema, SchemaError } from "./schema.js";

export type TeamGroupBy = "day" | "week" | "month" | "model" | "project" | "session" | "machine";

export interface TeamUsageOptions {
  by: TeamGroupBy;
  since?: string;
  until?: string;
  /** The IANA zone days are cut in (default: this machine's). */
  timeZone?: string;
  machine?: string;
}

export interface TeamUsageRow extends UsageTotals {
  key: string;
  activeCost: number;
  name?: string | null;
}

export interface TeamUsageReport {
  by: TeamGroupBy;
  rows: TeamUsageRow[];
  total: UsageTotals & { activeCost: number; inheritedCost: number };
  machines: { name: string; lastSync: string }[];
}

const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** A row's key as the local report makes it (report.ts `modelKey`, core/periods.ts), in SQL; `zone`: its parameter. */
function keyExpression(by: TeamGroupBy, zone: () => string): string {
  const local = `(u.time AT TIME ZONE ${by === "day" || by === "week" || by === "month" ? zone() : ""})`;
  switch (by) {
    case "day":
      return `coalesce(to_char(${local}, 'YYYY-MM-DD'), 'unknown')`;
    case "week":
      return `coalesce(to_char(date_trunc('week', ${local}), 'YYYY-MM-DD'), 'unknown')`;
    case "month":
      return `coalesce(to_char(${local}, 'YYYY-MM'), 'unknown')`;
    case "model":
      return (
        "CASE WHEN u.source IN ('tool_result', 'branch_summary', 'compaction_summary') THEN 'Tools/summaries' " +
        "ELSE u.provider || '/' || u.model || CASE WHEN u.source = 'server_compaction' " +
        "THEN ' (server compaction)' ELSE '' END END"
      );
    case "project":
      return "coalesce(u.project, '(unknown)')";
    case "session":
      return "u.session_id";
    case "machine":
      return "u.machine";
  }
}

const SUMS =
  "sum(u.input)::float8 AS input, sum(u.output)::float8 AS output, sum(u.cache_read)::float8 AS cache_read, " +
  "sum(u.cache_write)::float8 AS cache_write, sum(u.total_tokens)::float8 AS total_tokens, sum(u.cost) AS cost, " +
  "count(*)::float8 AS messages, (count(*) FILTER (WHERE u.source = 'server_compaction'))::float8 AS unpriced, " +
  "coalesce(sum(u.cost) FILTER (WHERE u.active), 0) AS active_cost";

function totalsOf(r: Record<string, unknown>): UsageTotals & { activeCost: number } {
  const n = (k: string) => Number(r[k] ?? 0);
  return {
    input: n("input"),
    output: n("output"),
    cacheRead: n("cache_read"),
    cacheWrite: n("cache_write"),
    totalTokens: n("total_tokens"),
    cost: n("cost"),
    messages: n("messages"),
    unpriced: n("unpriced"),
    activeCost: n("active_cost"),
  };
}

/** A query's parameters, its time zone's parameter (added when first used) and the report's filter of `usage u`. */
function usageFilter(o: Omit<TeamUsageOptions, "by">) {
  const values: unknown[] = [];
  const param = (v: unknown) => `$${values.push(v)}`;
  let zoneParam: string | undefined;
  const zone = () => (zoneParam ??= param(o.timeZone ?? localZone()));
  const where: string[] = [];
  if (o.since) where.push(`(u.time AT TIME ZONE ${zone()})::date >= ${param(o.since)}::date`);
  if (o.until) where.push(`(u.time AT TIME ZONE ${zone()})::date <= ${param(o.until)}::date`);
  if (o.machine) where.push(`u.machine = ${param(o.machine)}`);
  return { values, zone, filter: where.length ? `WHERE ${where.join(" AND ")}` : "" };
}

export async function teamUsageReport(db: Queryable, o: TeamUsageOptions): Promise<TeamUsageReport> {
  await requireSchema(db);
  const { values, zone, filter } = usageFilter(o);
  const key = keyExpression(o.by, zone);
  const name = o.by === "session";
  // Grouped first, then each group's session named through its index (not once per record).
  const grouped = await db.query(
    name
      ? `SELECT g.*, (SELECT s.title FROM pi_sessions.sessions s WHERE s.session_id = g.key LIMIT 1) AS name
         FROM (SELECT ${key} AS key, ${SUMS} FROM pi_sessions.usage u ${filter} GROUP BY 1) g`
      : `SELECT ${key} AS key, ${SUMS} FROM pi_sessions.usage u ${filter} GROUP BY 1`,
    values,
  );
  const spent = (r: TeamUsageRow) => r.cost > 0 || r.input + r.output + r.cacheRead + r.cacheWrite > 0;
  const all = grouped.rows.map((r): TeamUsageRow => ({
    key: String(r.key),
    ...totalsOf(r),
    ...(name ? { name: r.name as string | null } : {}),
  }));
  // The total of every row (model rows that spent nothing leave the list, not the total).
  const total = { ...totalsOf({}), inheritedCost: 0 };
  const fields = ["input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost", "messages", "unpriced"] as const;
  for (const r of all) {
    for (const k of fields) total[k] += r[k];
    total.activeCost += r.activeCost;
  }
  const rows = all.filter((r) => r.messages > 0 && (o.by !== "model" || spent(r)));
  if (o.by === "day" || o.by === "week" || o.by === "month") rows.sort((a, b) => a.key.localeCompare(b.key));
  else rows.sort((a, b) => b.cost - a.cost || a.key.localeCompare(b.key));
  const machines = await db.query("SELECT name, last_sync FROM pi_sessions.machines ORDER BY name");
  return {
    by: o.by,
    rows,
    total,
    machines: machines.rows.map((m) => ({
      name: String(m.name),
      lastSync: new Date(m.last_sync as string).toISOString(),
    })),
  };
}

/** Per day, cost by model (the dashboard's stacked chart), in the same range and zone as the report. */
export async function teamDailyByModel(
  db: Queryable,
  o: Omit<TeamUsageOptions, "by">,
): Promise<{ day: string; model: string; cost: number }[]> {
  await requireSchema(db);
  const { values, zone, filter } = usageFilter(o);
  const r = await db.query(
    `SELECT ${keyExpression("day", zone)} AS day, ` +
      "CASE WHEN u.model = '' THEN '(unknown model)' ELSE u.model END AS model, sum(u.cost) AS cost " +
      `FROM pi_sessions.usage u ${filter} GROUP BY 1, 2 ORDER BY 1, 2`,
    values,
  );
  return r.rows.map((x) => ({ day: String(x.day), model: String(x.model), cost: Number(x.cost) }));
}

export type { TeamSessionRow } from "../../core/export/teamMarkdown.js";

const iso = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string).toISOString());

/** A session row's columns, read back by `sessionRow`. */
export const SESSION_COLUMNS =
  "machine, file, session_id, agent, project, title, first_activity, last_activity, parent_session_id, entry_count";

export function sessionRow(x: Record<string, unknown>): TeamSessionRow {
  return {
    machine: String(x.machine),
    file: String(x.file),
    sessionId: String(x.session_id),
    agent: String(x.agent),
    project: (x.project as string | null) ?? null,
    title: (x.title as string | null) ?? null,
    firstActivity: iso(x.first_activity),
    lastActivity: iso(x.last_activity),
    parentSessionId: (x.parent_session_id as string | null) ?? null,
    entryCount: Number(x.entry_count),
  };
}

export async function teamSessionsList(
  db: Queryable,
  /** `withText`: only sessions whose texts are in the database (their machine syncs with --content). */
  o: { machine?: string; limit: number; withText?: boolean },
): Promise<TeamSessionRow[]> {
  await requireSchema(db);
  const r = await db.query(
    `SELECT ${SESSION_COLUMNS} FROM pi_sessions.sessions s WHERE ($1::text IS NULL OR machine = $1) ` +
      "AND (NOT $3 OR EXISTS (SELECT 1 FROM pi_sessions.texts t WHERE t.machine = s.machine AND t.file = s.file)) " +
      "ORDER BY last_activity DESC NULLS LAST, machine, file LIMIT $2",
    [o.machine ?? null, o.limit, o.withText === true],
  );
  return r.rows.map(sessionRow);
}

export interface TeamHit {
  machine: string;
  file: string;
  sessionId: string;
  entryId: string;
  role: string;
  tool: string | null;
  timestamp: string | null;
  snippet: string;
}

/** The query language's filters, taken out of the words (PostgreSQL searches the words). */
const FILTER_TOKEN = /(^|\s)(role|tool|project|since|until|session):\S+/g;

export async function teamSearch(db: Queryable, text: string, limit: number): Promise<TeamHit[]> {
  await requireSchema(db);
  const parsed = parseQuery(text);
  if (!parsed.ok) throw new SchemaError(parsed.message);
  const f = parsed.filters;
  // Prefixes are not mapped: `pars*` searches `pars` (PostgreSQL's web syntax has no prefix).
  const words = text.replace(FILTER_TOKEN, " ").replace(/\*/g, "").trim();
  const where: string[] = ["t.tsv @@ q"];
  const values: unknown[] = [words, limit];
  if (f.roles.length) where.push(`t.role = ANY($${values.push(f.roles)}::text[])`);
  else where.push("t.role NOT IN ('thinking', 'system')");
  if (f.tool) where.push(`t.tool = $${values.push(f.tool)}`);
  if (f.since !== null) where.push(`t.time >= $${values.push(new Date(f.since).toISOString())}`);
  if (f.until !== null) where.push(`t.time < $${values.push(new Date(f.until + 86_400_000).toISOString())}`);
  if (f.sessionPrefix)
    where.push(`t.session_id LIKE $${values.push(`${f.sessionPrefix.replace(/[%_\\]/g, "\\$&")}%`)}`);
  if (f.project)
    where.push(
      `EXISTS (SELECT 1 FROM pi_sessions.sessions s WHERE s.machine = t.machine AND s.file = t.file AND ` +
        `s.project ILIKE $${values.push(`%${f.project.replace(/[%_\\]/g, "\\$&")}%`)})`,
    );
  const r = await db.query(
    "SELECT t.machine, t.file, t.session_id, t.entry_id, t.role, t.tool, t.time, " +
      "ts_headline('english', t.text, q, " +
      "'StartSel=«, StopSel=», MaxWords=30, MinWords=12, MaxFragments=1') AS snippet " +
      `FROM pi_sessions.texts t, websearch_to_tsquery('english', $1) q WHERE ${where.join(" AND ")} ` +
      "ORDER BY ts_rank(t.tsv, q) DESC, t.time DESC NULLS LAST LIMIT $2",
    values,
  );
  return r.rows.map((x) => ({
    machine: String(x.machine),
    file: String(x.file),
    sessionId: String(x.session_id),
    entryId: String(x.entry_id),
    role: String(x.role),
    tool: (x.tool as string | null) ?? null,
    timestamp: iso(x.time),
    snippet: String(x.snippet),
  }));
}
