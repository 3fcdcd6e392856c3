/** `pi-sessions list`: every session under the roots, with fork lineage; and the row shape of `list --json`. */
import { formatDateTime, oneLine, truncate } from "../protocol/format.js";
import {
  childKind,
  computeOwnership,
  entryStats,
  FamilyIndex,
  firstOwnPrompt,
  type ParentState,
  sessionTitle,
  type StoreSession,
} from "../node/store/index.js";
import { cacheDir } from "../node/cacheDir.js";
import { type Marks, SessionMarks } from "../node/manage/marks.js";
import { EXIT_OK, type Io, openStore, type StoreValues, text, whyEmpty } from "./args.js";
import { diagnosticLine } from "./fileCommands.js";

export interface ListedSession {
  id: string | null;
  file: string;
  flavor: "pi" | "omp" | null;
  cwd: string | null;
  name: string | null;
  /** What the session is called: its name or title, else its first prompt; a fork's own name or first own prompt. */
  title: string;
  /** A fork's first prompt after the fork point (null when it has none, and for a session that is no fork). */
  firstOwnPrompt: string | null;
  /** The file of the session that heads this session's fork family (the session itself when it has no parent). */
  familyRoot: string;
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
  /** Pinned (in OMP's pins for an OMP session, else ours): listed first. */
  pinned: boolean;
  /** Archived: left out of the listing unless `--archived`. */
  archived: boolean;
}

/** The `list --json` row of a session (call `computeOwnership` on the result first). */
export function listedSession(s: StoreSession, families?: FamilyIndex, marks?: Marks): ListedSession {
  const sum = s.summary;
  // Without the index, the chain of fork parents (acyclic: linkLineage cuts cycles).
  let root = s;
  if (families) root = families.root(s);
  else while (root.parent) root = root.parent;
  const id = s.summary.ok ? s.summary.id : null;
  const family = { title: sessionTitle(s), familyRoot: root.file };
  const marked = {
    pinned: id !== null && marks?.pinned.has(id) === true,
    archived: id !== null && marks?.archived.has(id) === true,
  };
  if (!sum.ok) {
    return {
      id: null,
      file: s.file,
      flavor: null,
      cwd: null,
      name: null,
      ...family,
      firstOwnPrompt: null,
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
      ...marked,
    };
  }
  let first = Infinity;
  let last = -Infinity;
  let own = 0;
  let count: number;
  if (s.inherited.size === 0) {
    // No copies: the stored counts and times answer, without decoding every entry (a long session has 750,000).
    const [n, f, l] = entryStats(sum);
    [count, own, first, last] = [n, n, f ?? Infinity, l ?? -Infinity];
  } else {
    count = sum.entries.length;
    for (const [id, time] of sum.entries) {
      if (s.inherited.has(id)) continue;
      own++;
      if (Number.isFinite(time)) {
        if (time < first) first = time;
        if (time > last) last = time;
      }
    }
  }
  const parentSummary = s.parent?.summary;
  return {
    id: sum.id,
    file: s.file,
    flavor: sum.flavor,
    cwd: sum.cwd,
    name: sum.name,
    ...family,
    firstOwnPrompt: sum.parentSession ? firstOwnPrompt(s) : null,
    nested: s.nestedIn !== null,
    parentSession: sum.parentSession?.raw ?? null,
    parentId: parentSummary?.ok ? parentSummary.id : null,
    parentFile: s.parent?.file ?? null,
    parentState: s.parentState,
    firstSeen: Number.isFinite(first) ? new Date(first).toISOString() : null,
    lastSeen: Number.isFinite(last) ? new Date(last).toISOString() : null,
    entryCount: count,
    ownEntryCount: own,
    sizeBytes: s.sizeBytes,
    sameIdAs: s.sameIdAs.map((o) => o.file),
    ...marked,
  };
}

export interface ListValues extends StoreValues {
  /** Families: each session under the one it was forked from. */
  tree?: boolean;
  /** Also the archived sessions. */
  archived?: boolean;
}

export async function listCommand(values: ListValues, io: Io): Promise<number> {
  const { store, result } = await openStore(values, io);
  const empty = whyEmpty(store, result, values.workspace);
  if (empty) text(io).err(`pi-sessions list: ${empty}`);
  computeOwnership(result);
  const families = new FamilyIndex(result);
  const marks = await new SessionMarks(cacheDir(), () => store.roots).read();
  const rows = new Map(result.map((s) => [s, listedSession(s, families, marks)]));
  const listed = values.archived ? result : result.filter((s) => !rows.get(s)!.archived);
  // A pinned session, and the family it is in, list first; then newest first.
  const pinnedFamily = new Set(listed.filter((s) => rows.get(s)!.pinned).map((s) => families.root(s)));
  const pinRank = (s: StoreSession) => (pinnedFamily.has(families.root(s)) ? 0 : 1);
  const newestFirst = (a: StoreSession, b: StoreSession) =>
    pinRank(a) - pinRank(b) ||
    (rows.get(b)!.lastSeen ?? "").localeCompare(rows.get(a)!.lastSeen ?? "") ||
    a.file.localeCompare(b.file);
  // Flat: newest first. --tree: each family root (newest family first), then its forks and subagents, indented.
  const order: { s: StoreSession; depth: number }[] = [];
  if (values.tree) {
    // Depth first, with a stack of its own: a lineage thousands of forks deep is no recursion.
    const tops = families.tops(listed);
    const stack = [...tops.filter((t) => pinRank(t) === 0), ...tops.filter((t) => pinRank(t) === 1)]
      .reverse()
      .map((s) => ({ s, depth: 0 }));
    for (let next = stack.pop(); next; next = stack.pop()) {
      order.push(next);
      const kids = [...families.forks(next.s), ...families.subagents(next.s)].filter(
        (k) => values.archived || !rows.get(k)?.archived,
      );
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ s: kids[i]!, depth: next.depth + 1 });
    }
  } else {
    for (const s of [...listed].sort(newestFirst)) order.push({ s, depth: 0 });
  }
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
    const sessions = order.map(({ s, depth }) => (values.tree ? { ...rows.get(s)!, depth } : rows.get(s)!));
    io.out(JSON.stringify({ sessions, diagnostics }));
    return EXIT_OK;
  }
  const table = [["last seen", "flavor", "entries", "own", "title", "fork", "cwd"]];
  for (const { s, depth } of order) {
    const row = rows.get(s)!;
    table.push([
      formatDateTime(row.lastSeen),
      row.flavor ?? "REJECTED",
      String(row.entryCount),
      String(row.ownEntryCount),
      indent(depth) + truncate(row.title, 200),
      forkText(s, row),
      oneLine(row.cwd ?? row.file),
    ]);
  }
  // Loaded for a text table only: measuring display widths (string-width) costs 25 ms to load, nothing JSON needs.
  const { formatTable } = await import("./table.js");
  io.out(formatTable(table, [2, 3], false, io));
  for (const d of diagnostics) text(io).out(diagnosticLine(d.file, d));
  return EXIT_OK;
}

/** Deepest indentation of `--tree`; a deeper fork says its depth instead of moving further right. */
const MAX_INDENT = 8;

function indent(depth: number): string {
  if (depth === 0) return "";
  if (depth <= MAX_INDENT) return `${"  ".repeat(depth - 1)}└ `;
  return `${"  ".repeat(MAX_INDENT - 1)}└(${depth}) `;
}

const CHILD_WORDS = { subagent: "subagent", tan: "/tan clone", fork: "fork" } as const;

/** The fork column: where a fork came from (by its parent's title), and the other lineage marks. */
function forkText(s: StoreSession, row: ListedSession): string {
  const kind = childKind(s);
  const sub = kind === "subagent";
  const lineage = !kind
    ? ""
    : s.parent
      ? `${CHILD_WORDS[kind]} of ${truncate(sessionTitle(s.parent), 40)}`
      : row.parentState === "none"
        ? "subagent"
        : `${row.parentState} fork`;
  const marks = [row.pinned ? "pinned" : "", row.archived ? "archived" : ""];
  return [...marks, lineage, row.nested && !sub && !s.parent ? "nested" : "", row.sameIdAs.length ? "same id" : ""]
    .filter(Boolean)
    .join(" · ");
}
