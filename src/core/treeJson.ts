/** The stable JSON shapes printed by `pi-sessions tree --json` (and consumed by tests and scripts). */
import type { Diagnostic, Rejection } from "./diagnostics.js";
import type { Session } from "./session/index.js";

export interface TreeJson {
  file: string;
  flavor: "pi" | "omp";
  version: number;
  header: Record<string, unknown>;
  titleSlot: Record<string, unknown> | null;
  name: string | null;
  leafId: string | null;
  roots: string[];
  entries: {
    id: string;
    parentId: string | null;
    type: string;
    role?: string;
    line: number;
    children: string[];
    label?: string;
  }[];
  compactions: {
    id: string;
    firstKeptEntryId: string | null;
    keptFromId: string | null;
    replacesThroughId: string | null;
    tokensBefore: number | null;
    onActivePath: boolean;
  }[];
  forkOf: { raw: string; kind: "path" | "id" } | null;
  diagnostics: Diagnostic[];
}

export function treeJson(session: Session): TreeJson {
  return {
    ...treeJsonBefore(session),
    entries: session.entries.map((e) => entryJson(session, e)),
    ...treeJsonAfter(session),
  };
}

/**
 * `JSON.stringify(treeJson(session))` in pieces of `batch` entries: the same text, without the whole document's
 * objects and string at once (a 100 MB session's is about 5 MB of text and more of objects).
 */
export function* treeJsonPieces(session: Session, batch = 2000): Generator<string> {
  // The keys before `entries` (an object that always has keys: its closing brace is cut), then those after it.
  yield `${JSON.stringify(treeJsonBefore(session)).slice(0, -1)},"entries":[`;
  const { entries } = session;
  for (let i = 0; i < entries.length; i += batch) {
    const part = entries.slice(i, i + batch).map((e) => JSON.stringify(entryJson(session, e)));
    yield (i ? "," : "") + part.join(",");
  }
  yield `],${JSON.stringify(treeJsonAfter(session)).slice(1)}`;
}

function treeJsonBefore(session: Session) {
  return {
    file: session.file,
    flavor: session.flavor,
    version: session.version,
    header: session.header,
    titleSlot: session.titleSlot,
    name: session.name,
    leafId: session.leafId,
    roots: session.roots,
  };
}

function entryJson(session: Session, e: Session["entries"][number]): TreeJson["entries"][number] {
  const out: TreeJson["entries"][number] = {
    id: e.id,
    parentId: e.parentId,
    type: e.type,
    line: e.line,
    children: e.shadowed ? [] : (session.children.get(e.id) ?? []),
  };
  if (e.role !== undefined) out.role = e.role;
  const label = e.shadowed ? undefined : session.labels.get(e.id);
  if (label) out.label = label.label;
  return out;
}

function treeJsonAfter(session: Session) {
  return {
    compactions: session.compactions.map((c) => ({
      id: c.id,
      firstKeptEntryId: c.firstKeptEntryId,
      keptFromId: c.keptFromId,
      replacesThroughId: c.replacesThroughId,
      tokensBefore: c.tokensBefore,
      onActivePath: c.onActivePath,
    })),
    forkOf: session.forkOf ? { raw: session.forkOf.raw, kind: session.forkOf.kind } : null,
    diagnostics: session.diagnostics,
  };
}

export function rejectedJson(file: string, rejection: Rejection): { file: string; rejected: Rejection } {
  return { file, rejected: rejection };
}
