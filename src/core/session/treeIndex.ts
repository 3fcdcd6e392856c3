/** The tree indexes of a session's entries (ids, children, roots, labels, names), built once, extended on appends. */
import type { Diagnostic } from "../diagnostics.js";
import type { SessionHeader, TitleSlot } from "../schema.js";
import { collectCompactions, type CompactionFacts } from "./compactions.js";
import type { Entry } from "./entry.js";
import { detectFlavor, forkOfHeader, isOmpEntry, resolveName } from "./flavor.js";
import type { LabelInfo, Session } from "./model.js";

/** The tree indexes of a run of entries; kept by `SessionReader` and extended in place when entries are appended. */
export interface Index {
  count: number;
  byId: Map<string, Entry>;
  children: Map<string, string[]>;
  roots: string[];
  detached: string[];
  detachedSet: Set<string>;
  /** Parent ids that orphan entries point at: an entry with such an id arriving later re-parents them. */
  missingParents: Set<string>;
  labels: Map<string, LabelInfo>;
  sessionInfoName: string | null | undefined;
  titleChanges: { title: string; source: string | undefined }[];
  /** The diagnostics the indexing found (duplicate ids, orphans, self-parents, cycles). */
  diagnostics: Diagnostic[];
  /** What a compaction records, and its keptFromId: fixed once the compaction is indexed (its path never
   * changes after). */
  keptFrom: Map<string, CompactionFacts>;
  /** Compaction entries in file order. */
  compactionEntries: Entry[];
  /** Whether an entry only OMP writes was seen. */
  ompEntry: boolean;
}

export function buildIndex(entries: Entry[]): Index {
  const diagnostics: Diagnostic[] = [];
  // Index: like pi's Map, a later duplicate id replaces the earlier one.
  const byId = new Map<string, Entry>();
  for (const entry of entries) {
    const previous = byId.get(entry.id);
    if (previous) {
      previous.shadowed = true;
      diagnostics.push({
        line: entry.line,
        severity: "warning",
        code: "duplicate-id",
        message: `id ${JSON.stringify(entry.id)} is already used on line ${previous.line}; the later entry wins`,
      });
    }
    byId.set(entry.id, entry);
  }
  const children = new Map<string, string[]>();
  const roots: string[] = [];
  const missingParents = new Set<string>();
  for (const entry of entries) {
    if (entry.shadowed) continue;
    const { parentId } = entry;
    if (parentId === null) {
      roots.push(entry.id);
    } else if (parentId === entry.id) {
      roots.push(entry.id);
      diagnostics.push({
        line: entry.line,
        severity: "warning",
        code: "self-parent",
        message: "entry is its own parent; shown as a root",
      });
    } else if (byId.has(parentId)) {
      const list = children.get(parentId);
      // Most entries have one child: a one-element literal is sized 1, where [] grows to 17 on its first push.
      if (!list) children.set(parentId, [entry.id]);
      else list.push(entry.id);
    } else {
      roots.push(entry.id);
      missingParents.add(parentId);
      diagnostics.push(orphanDiagnostic(entry, parentId));
    }
  }
  // pi's getTree: children sorted by entry timestamp, oldest first; Array.sort is stable, so ties keep file order.
  for (const list of children.values()) {
    if (list.length > 1) list.sort((a, b) => timeOf(byId.get(a)!) - timeOf(byId.get(b)!));
  }
  const detached = findDetached(entries, roots, children, diagnostics);
  const index: Index = {
    count: entries.length,
    byId,
    children,
    roots,
    detached,
    detachedSet: new Set(detached),
    missingParents,
    labels: new Map(),
    sessionInfoName: undefined,
    titleChanges: [],
    diagnostics,
    keptFrom: new Map(),
    compactionEntries: [],
    ompEntry: false,
  };
  for (const entry of entries) noteMetadata(index, entry);
  return index;
}

function orphanDiagnostic(entry: Entry, parentId: string): Diagnostic {
  return {
    line: entry.line,
    severity: "warning",
    code: "orphan",
    message: `parent ${JSON.stringify(parentId)} is not in the file; shown as a root`,
  };
}

/** Labels, names, titles and compactions. Reads the body of those entries only (messages are never parsed again). */
function noteMetadata(index: Index, entry: Entry): void {
  if (!index.ompEntry && isOmpEntry(entry)) index.ompEntry = true;
  const type = entry.type;
  if (type === "compaction") {
    if (!entry.shadowed) index.compactionEntries.push(entry);
  } else if (type === "label") {
    const d = entry.data;
    if (typeof d.targetId !== "string") return;
    if (typeof d.label === "string" && d.label)
      index.labels.set(d.targetId, { label: d.label, timestamp: entry.timestamp, line: entry.line });
    else index.labels.delete(d.targetId);
  } else if (type === "session_info") {
    const d = entry.data;
    // pi 0.73: the latest session_info wins, an empty or absent name clears it.
    index.sessionInfoName = typeof d.name === "string" && d.name.trim() ? d.name.trim() : null;
  } else if (type === "title_change") {
    const d = entry.data;
    if (typeof d.title === "string")
      index.titleChanges.push({ title: d.title, source: typeof d.source === "string" ? d.source : undefined });
  }
}

/**
 * Extend an index by appended entries, or return false when only a full rebuild gives pi's answer: a reused id, an
 * entry an earlier orphan was waiting for, or a timestamp that does not order.
 */
export function extendIndex(index: Index, added: Entry[]): boolean {
  const later = new Set(added.map((e) => e.id));
  if (later.size !== added.length) return false;
  const ids = new Set<string>();
  for (const e of added) {
    if (index.byId.has(e.id) || index.missingParents.has(e.id) || Number.isNaN(timeOf(e))) return false;
    // A parent that comes later in the same batch: the entry is no orphan (a full rebuild gets that right).
    if (e.parentId !== null && later.has(e.parentId) && !ids.has(e.parentId)) return false;
    ids.add(e.id);
  }
  for (const e of added) {
    index.byId.set(e.id, e);
    const { parentId } = e;
    if (parentId === null) index.roots.push(e.id);
    else if (parentId === e.id) {
      index.roots.push(e.id);
      index.diagnostics.push({
        line: e.line,
        severity: "warning",
        code: "self-parent",
        message: "entry is its own parent; shown as a root",
      });
    } else if (index.byId.has(parentId)) {
      let list = index.children.get(parentId);
      if (!list) index.children.set(parentId, (list = []));
      // Stable insertion by timestamp: after every sibling that is not later.
      const t = timeOf(e);
      if (list.some((id) => Number.isNaN(timeOf(index.byId.get(id)!)))) return false;
      let at = list.length;
      while (at > 0 && timeOf(index.byId.get(list[at - 1]!)!) > t) at--;
      list.splice(at, 0, e.id);
      if (index.detachedSet.has(parentId)) {
        index.detached.push(e.id);
        index.detachedSet.add(e.id);
        index.diagnostics.push({
          line: e.line,
          severity: "warning",
          code: "parent-cycle",
          message: "entry is inside a parentId cycle and reachable from no root",
        });
      }
    } else {
      index.roots.push(e.id);
      index.missingParents.add(parentId);
      index.diagnostics.push(orphanDiagnostic(e, parentId));
    }
    noteMetadata(index, e);
  }
  index.count += added.length;
  return true;
}

export function sessionOf(
  file: string,
  header: SessionHeader,
  headerLine: number,
  version: number,
  titleSlot: TitleSlot | null,
  entries: Entry[],
  index: Index,
  diagnostics: Diagnostic[],
): Session {
  const flavor = detectFlavor(header, titleSlot, index.ompEntry);
  const { name, titleSource } = resolveName(flavor, header, titleSlot, index.titleChanges, index.sessionInfoName);
  const session: Session = {
    file,
    flavor,
    version,
    header,
    headerLine,
    titleSlot,
    entries,
    byId: index.byId,
    children: index.children,
    roots: index.roots,
    detached: index.detached,
    // The last entry in file order is the active leaf (docs/session-format.md#t3).
    leafId: entries.length ? entries[entries.length - 1]!.id : null,
    labels: index.labels,
    name,
    titleSource,
    compactions: [],
    forkOf: forkOfHeader(header),
    diagnostics,
    endsWithNewline: true,
    truncatedTail: false,
  };
  session.compactions = collectCompactions(session, index.keptFrom, index.compactionEntries);
  return session;
}

function timeOf(entry: Entry): number {
  return new Date(entry.timestamp as string).getTime();
}

/** Entries unreachable from every root sit in a parentId cycle: pi loops or drops them; we report them. */
function findDetached(
  entries: Entry[],
  roots: string[],
  children: Map<string, string[]>,
  diagnostics: Diagnostic[],
): string[] {
  const reached = new Set<string>();
  const stack = [...roots];
  while (stack.length) {
    const id = stack.pop()!;
    if (reached.has(id)) continue;
    reached.add(id);
    const kids = children.get(id);
    if (kids) for (const k of kids) stack.push(k);
  }
  const detached: string[] = [];
  for (const entry of entries) {
    if (entry.shadowed || reached.has(entry.id)) continue;
    detached.push(entry.id);
    diagnostics.push({
      line: entry.line,
      severity: "warning",
      code: "parent-cycle",
      message: "entry is inside a parentId cycle and reachable from no root",
    });
  }
  return detached;
}
