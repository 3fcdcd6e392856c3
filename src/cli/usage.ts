/**
 * `pi-sessions usage`: tokens and cost by day, week, month, session, model or project, forks never double-counted;
 * `--breakdown` adds per-model rows under each row, as ccusage does.
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { isTimeZone, parseDay } from "../core/periods.js";
import { summarize } from "../core/summary.js";
import type { UsageTotals } from "../core/usage.js";
import { readSessionFile } from "../node/readSession.js";
import { type GroupBy, modelKey, usageReport, type UsageRow } from "../node/report.js";
import { newStoreSession, type StoreSession } from "../node/store/index.js";
import { formatCost, formatCount, formatRowCost, oneLine, truncate, unpricedNote } from "../protocol/format.js";
import { EXIT_OK, type Io, openStore, reportUnreadable, type StoreValues, text, UsageError, whyEmpty } from "./args.js";
import type { shortId as ShortId } from "./table.js";

interface UsageValues extends StoreValues {
  by: GroupBy;
  since?: string;
  until?: string;
  timezone?: string;
  breakdown?: boolean;
  file?: string;
}

/** Per-model totals under a row (`--breakdown`), largest cost first. */
type Breakdown = (UsageTotals & { model: string })[];

function checkedDay(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const day = parseDay(value);
  if (!day) throw new UsageError(`--${flag} ${JSON.stringify(value)} is not a date (YYYY-MM-DD or YYYYMMDD)`);
  return day;
}

async function oneFileSessions(file: string, values: UsageValues, io: Io): Promise<StoreSession[] | number> {
  const path = resolve(file);
  const { store } = await openStore({ ...values, workspace: undefined }, io);
  const known = store.sessions.find((s) => s.file === path);
  if (known) return [known];
  const read = await readSessionFile(path, { validate: false });
  if (!read.ok) return reportUnreadable(read, !!values.json, io);
  const size = (await stat(path)).size;
  const at = { file: path, root: { dir: path, agent: "any" as const, source: "--file" }, slug: null, nestedIn: null };
  return [newStoreSession({ ...at, size }, summarize(read))];
}

/** `--since`, `--until` as days, and `--timezone`, checked (a usage error names the flag); the team report's too. */
export function checkedPeriod(values: { since?: string; until?: string; timezone?: string }): {
  since: string | undefined;
  until: string | undefined;
} {
  const since = checkedDay("since", values.since);
  const until = checkedDay("until", values.until);
  if (since && until && since > until) throw new UsageError(`--since ${since} is after --until ${until}`);
  if (values.timezone !== undefined && !isTimeZone(values.timezone))
    throw new UsageError(`--timezone ${JSON.stringify(values.timezone)} is not a time zone (e.g. UTC, Europe/Berlin)`);
  return { since, until };
}

export async function usageCommand(values: UsageValues, io: Io): Promise<number> {
  const { since, until } = checkedPeriod(values);
  const by = values.by;
  if ((by as string) === "machine") throw new UsageError("--by machine goes with --database (the team database)");
  if (values.breakdown && (by === "model" || by === "session"))
    throw new UsageError("--breakdown goes with --by day, week, month or project");

  let result: StoreSession[];
  let empty: string | undefined;
  if (values.file !== undefined) {
    const sessions = await oneFileSessions(values.file, values, io);
    if (typeof sessions === "number") return sessions;
    result = sessions;
  } else {
    const opened = await openStore(values, io, true);
    result = opened.result;
    empty = whyEmpty(opened.store, result, values.workspace);
  }
  const report = usageReport(result, {
    by,
    since,
    until,
    timeZone: values.timezone,
    ...(values.breakdown ? { cellKey: modelKey } : {}),
  });
  const breakdown = (key: string): Breakdown =>
    [...(report.cells?.get(key) ?? [])]
      .map(([model, t]) => ({ model, ...t }))
      .sort((a, b) => b.cost - a.cost || a.model.localeCompare(b.model));
  if (!report.rows.length) {
    const range = since || until ? ` between ${since ?? "the start"} and ${until ?? "today"}` : "";
    text(io).err(`pi-sessions usage: ${empty ?? `no usage${range}`}`);
  }
  if (values.json) {
    const { cells: _cells, ...json } = report;
    const rows = values.breakdown ? report.rows.map((r) => ({ ...r, breakdown: breakdown(r.key) })) : report.rows;
    io.out(JSON.stringify({ ...json, rows }));
    return EXIT_OK;
  }
  // The table module is loaded only for a table: its Unicode width tables take tens of milliseconds to build.
  const { formatTable, shortId } = await import("./table.js");
  const table = [
    [by, "input", "output", "cache read", "cache write", "total tokens", "cost", "active", "inherited", "msgs"],
  ];
  for (const r of report.rows) {
    table.push(rowCells(r, by, shortId));
    if (values.breakdown)
      for (const m of breakdown(r.key))
        table.push([`  └ ${m.model}`, ...tokenCells(m), formatRowCost(m), "", "", formatCount(m.messages)]);
  }
  const t = report.total;
  table.push([
    "TOTAL",
    ...tokenCells(t),
    formatRowCost(t),
    formatCost(t.activeCost),
    formatCost(t.inheritedCost),
    formatCount(t.messages),
  ]);
  io.out(formatTable(table, [1, 2, 3, 4, 5, 6, 7, 8, 9], true, io));
  const note = unpricedNote(t.unpriced);
  if (note) text(io).out(note);
  return EXIT_OK;
}

function tokenCells(t: UsageTotals): string[] {
  return [t.input, t.output, t.cacheRead, t.cacheWrite, t.totalTokens].map(formatCount);
}

function rowCells(r: UsageRow, by: GroupBy, shortId: typeof ShortId): string[] {
  const key =
    by === "session"
      ? `${shortId(r.key)} ${truncate(r.name ?? "", 30)}${r.includedInParent ? " (in parent)" : ""}`
      : oneLine(r.key);
  return [
    key,
    ...tokenCells(r),
    formatRowCost(r),
    formatCost(r.activeCost),
    r.inheritedCost === undefined ? "" : formatCost(r.inheritedCost),
    formatCount(r.messages),
  ];
}
