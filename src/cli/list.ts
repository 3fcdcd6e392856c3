/** `pi-sessions list`: every session under the roots, with fork lineage; and the row shape of `list --json`. */
import { formatDateTime, oneLine, truncate } from "../protocol/format.js";
import { computeOwnership, type ParentState, type StoreSession } from "../node/store/index.js";
import { EXIT_OK, type Io, openStore, type StoreValues, text, whyEmpty } from "./args.js";
import { diagnosticLine } from "./fileCommands.js";
import { formatTable, shortId } from "./table.js";

export interface ListedSession {
  id: string | null;
  file: string;
  flavor: "pi" | "omp" | null;
  cwd: string | null;
  name: string | null;
  nested: boolean;
  parentSession: string | null;
  parentId: string | null;
  parentFile: string | null;
  parentState: ParentState;
  firstSeen: string | null;
  lastSeen: string | null;
  entryCount: number;
  ownEntryCount: number;
  sizeBytes: number;
  /** Other files that carry this session's id (a copy, a backup); shared entries count once. */
  sameIdAs: string[];
}

/** The `list --json` row of a session (call `computeOwnership` on the result first). */
export function listedSession(s: StoreSession): ListedSession {
  const sum = s.summary;
  if (!sum.ok) {
    return {
      id: null,
      file: s.file,
      flavor: null,
      cwd: null,
      name: null,
      nested: s.nestedIn !== null,
      parentSession: null,
      parentId: null,
      parentFile: null,
      parentState: "none",
      firstSeen: null,
      lastSeen: null,
      entryCount: 0,
      ownEntryCount: 0,
      sizeBytes: s.sizeBytes,
      sameIdAs: [],
    };
  }
  let first = Infinity;
  let last = -Infinity;
  let own = 0;
  for (const [id, time] of sum.entries) {
    if (s.inherited.has(id)) continue;
    own++;
    if (Number.isFinite(time)) {
      if (time < first) first = time;
      if (time > last) last = time;
    }
  }
  const parentSummary = s.parent?.summary;
  return {
    id: sum.id,
    file: s.file,
    flavor: sum.flavor,
    cwd: sum.cwd,
    name: sum.name,
    nested: s.nestedIn !== null,
    parentSession: sum.parentSession?.raw ?? null,
    parentId: parentSummary?.ok ? parentSummary.id : null,
    parentFile: s.parent?.file ?? null,
    parentState: s.parentState,
    firstSeen: Number.isFinite(first) ? new Date(first).toISOString() : null,
    lastSeen: Number.isFinite(last) ? new Date(last).toISOString() : null,
    entryCount: sum.entries.length,
    ownEntryCount: own,
    sizeBytes: s.sizeBytes,
    sameIdAs: s.sameIdAs.map((o) => o.file),
  };
}

export async function listCommand(values: StoreValues, io: Io): Promise<number> {
  const { store, result } = await openStore(values);
  const empty = whyEmpty(store, result, values.workspace);
  if (empty) text(io).err(`pi-sessions list: ${empty}`);
  computeOwnership(result);
  const rows = result.map((s) => ({ row: listedSession(s), s }));
  rows.sort(
    (a, b) => (b.row.lastSeen ?? "").localeCompare(a.row.lastSeen ?? "") || a.row.file.localeCompare(b.row.file),
  );
  type Row = { file: string; line: number; severity: "error" | "warning"; code: string; message: string };
  const diagnostics: Row[] = [
    ...result.flatMap((s): Row[] =>
      s.summary.ok
        ? s.summary.diagnostics.filter((d) => d.severity === "error").map((d) => ({ file: s.file, ...d }))
        : [
            {
              file: s.file,
              line: s.summary.rejection.line,
              severity: "error" as const,
              code: s.summary.rejection.code,
              message: `file rejected: ${s.summary.rejection.message}`,
            },
          ],
    ),
    ...store.errors.map((e) => ({ file: e.path, line: 0, severity: "error" as const, code: "io", message: e.message })),
  ];
  if (values.json) {
    io.out(JSON.stringify({ sessions: rows.map((r) => r.row), diagnostics }));
    return EXIT_OK;
  }
  const table = [["last seen", "flavor", "entries", "own", "fork", "name", "cwd"]];
  for (const { row } of rows) {
    const fork =
      row.parentState === "none" ? "" : row.parentState === "resolved" ? `↳ ${shortId(row.parentId)}` : row.parentState;
    table.push([
      formatDateTime(row.lastSeen),
      row.flavor ?? "REJECTED",
      String(row.entryCount),
      String(row.ownEntryCount),
      fork + (row.nested ? " nested" : "") + (row.sameIdAs.length ? " same id" : ""),
      truncate(row.name ?? "", 40),
      oneLine(row.cwd ?? row.file),
    ]);
  }
  io.out(formatTable(table, [2, 3], false, io));
  for (const d of diagnostics) text(io).out(diagnosticLine(d.file, d));
  return EXIT_OK;
}
