/** `pi-sessions usage`: tokens and cost by session, model, day or project, forks never double-counted. */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { summarize } from "../core/summary.js";
import { readSessionFile } from "../node/readSession.js";
import { type GroupBy, usageReport } from "../node/report.js";
import { newStoreSession, type StoreSession } from "../node/store/index.js";
import { formatCost, formatCount, formatRowCost, oneLine, truncate, unpricedNote } from "../protocol/format.js";
import { EXIT_OK, type Io, openStore, parse, reportUnreadable, STORE_OPTIONS, text, UsageError } from "./args.js";
import { formatTable, shortId } from "./table.js";

export async function usageCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    ...STORE_OPTIONS,
    file: { type: "string" },
    by: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
  });
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const by = (values.by ?? "session") as GroupBy;
  if (!["session", "model", "day", "project"].includes(by))
    throw new UsageError(`--by must be session, model, day or project`);
  for (const flag of ["since", "until"] as const) {
    const v = values[flag];
    if (v !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(v)) throw new UsageError(`--${flag} takes a date YYYY-MM-DD`);
  }
  let result: StoreSession[];
  if (values.file !== undefined) {
    const file = resolve(values.file);
    const { store } = await openStore({ ...values, workspace: undefined });
    const known = store.sessions.find((s) => s.file === file);
    if (known) result = [known];
    else {
      const read = await readSessionFile(file, { validate: false });
      if (!read.ok) return reportUnreadable(read, !!values.json, io);
      result = [
        newStoreSession(
          {
            file,
            root: { dir: file, agent: "any", source: "--file" },
            slug: null,
            nestedIn: null,
            size: (await stat(file)).size,
          },
          summarize(read),
        ),
      ];
    }
  } else {
    result = (await openStore(values)).result;
  }
  const report = usageReport(result, { by, since: values.since, until: values.until });
  if (values.json) {
    io.out(JSON.stringify(report));
    return EXIT_OK;
  }
  const table = [
    [by, "input", "output", "cache read", "cache write", "total tokens", "cost", "active", "inherited", "msgs"],
  ];
  for (const r of report.rows) {
    const key =
      by === "session"
        ? `${oneLine(shortId(r.key))} ${truncate(r.name ?? "", 30)}${r.includedInParent ? " (in parent)" : ""}`
        : oneLine(r.key);
    table.push([
      key,
      formatCount(r.input),
      formatCount(r.output),
      formatCount(r.cacheRead),
      formatCount(r.cacheWrite),
      formatCount(r.totalTokens),
      formatRowCost(r),
      formatCost(r.activeCost),
      r.inheritedCost === undefined ? "" : formatCost(r.inheritedCost),
      formatCount(r.messages),
    ]);
  }
  const t = report.total;
  table.push([
    "TOTAL",
    formatCount(t.input),
    formatCount(t.output),
    formatCount(t.cacheRead),
    formatCount(t.cacheWrite),
    formatCount(t.totalTokens),
    formatRowCost(t),
    formatCost(t.activeCost),
    formatCost(t.inheritedCost),
    formatCount(t.messages),
  ]);
  text(io).out(formatTable(table, [1, 2, 3, 4, 5, 6, 7, 8, 9], true));
  const note = unpricedNote(t.unpriced);
  if (note) text(io).out(note);
  return EXIT_OK;
}
