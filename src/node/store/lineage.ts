/**
 * Fork lineage and ownership over the listed sessions: which session each fork came from (never by opening a path a
 * file names), which of a fork's entries are copies of its parent's (counted once, for the parent), and which
 * sessions belong to a workspace folder.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { cwdMatches, type HostPaths, slugMatches, workspaceSlugVariants } from "../../core/slug.js";
import type { SessionRoot } from "../roots.js";
import type { ParentState, StoreSession } from "./storeSession.js";

/** Is an absolute host path inside one of the roots? */
function insideRoots(p: string, roots: SessionRoot[]): boolean {
  return roots.some((r) => p === r.dir || p.startsWith(r.dir + sep));
}

/**
 * Resolve every fork's parent against the sessions already discovered — never by opening the path a file names:
 * - a session id (OMP /fork, --fork, /tan) → the discovered session with that header id, else "orphan";
 * - a path inside the roots → that discovered file, else "orphan";
 * - a path outside the roots (a moved store, `/etc/passwd`, `../../x`) → a discovered file at the same
 *   `sessions/<slug>/<file>` position under a root (a relocated agent dir), else "external". Nothing is opened.
 */
export function linkLineage(sessions: StoreSession[], roots: SessionRoot[]): void {
  const byFile = new Map<string, StoreSession>();
  const byId = new Map<string, StoreSession>();
  const byRootRel = new Map<string, StoreSession>();
  for (const s of sessions) {
    byFile.set(s.file, s);
    if (s.summary.ok && !byId.has(s.summary.id)) byId.set(s.summary.id, s);
    byRootRel.set(relative(s.root.dir, s.file).split(sep).join("/"), s);
  }
  for (const s of sessions) {
    s.parent = null;
    s.children = [];
  }
  for (const s of sessions) {
    if (!s.summary.ok || !s.summary.parentSession) {
      s.parentState = "none";
      continue;
    }
    const { raw, kind } = s.summary.parentSession;
    let parent: StoreSession | undefined;
    let state: ParentState;
    if (kind === "id") {
      parent = byId.get(raw);
      state = parent ? "resolved" : "orphan";
    } else {
      const native = isAbsolute(raw) && !raw.includes("\0");
      const abs = native ? resolve(raw) : null;
      if (abs && insideRoots(abs, roots)) {
        parent = byFile.get(abs);
        state = parent ? "resolved" : "orphan";
      } else {
        const m = /(?:^|[/\\])sessions[/\\](.+)$/.exec(raw);
        parent = m ? byRootRel.get(m[1]!.split(/[/\\]/).join("/")) : undefined;
        state = parent ? "resolved" : "external";
      }
    }
    if (parent === s) {
      parent = undefined;
      state = "orphan";
    }
    s.parentState = state;
    s.parent = parent ?? null;
    if (parent) parent.children.push(s);
  }
  // Guard against lineage cycles (A says B is its parent, B says A): break at the repeat.
  for (const s of sessions) {
    const seen = new Set<StoreSession>([s]);
    for (let p = s.parent; p; p = p.parent) {
      if (seen.has(p)) {
        p.parent!.children = p.parent!.children.filter((c) => c !== p);
        p.parent = null;
        p.parentState = "orphan";
        break;
      }
      seen.add(p);
    }
  }
}

/**
 * Fork deduplication over a result set (docs/session-format.md#forks): an entry of a fork is inherited when its
 * parent is in the result, the parent has the same entry id, and the entry's timestamp is not after the fork's
 * header timestamp.
 * Inherited entries are counted for the parent only; a fork whose parent is not in the result keeps them.
 */
export function computeOwnership(result: StoreSession[]): void {
  const inResult = new Set(result);
  const idSets = new Map<StoreSession, Set<string>>();
  const idsOf = (s: StoreSession) => {
    let set = idSets.get(s);
    if (!set) {
      set = new Set(s.summary.ok ? s.summary.entries.map(([id]) => id) : []);
      idSets.set(s, set);
    }
    return set;
  };
  for (const s of result) {
    s.inherited = new Set();
    s.forkPointId = null;
    if (!s.summary.ok || !s.parent || !inResult.has(s.parent)) continue;
    const parentIds = idsOf(s.parent);
    const created = s.summary.created;
    for (const [id, time] of s.summary.entries) {
      if (parentIds.has(id) && !(time > created)) {
        s.inherited.add(id);
        s.forkPointId = id;
      }
    }
  }
}

/** Sessions that belong to a workspace folder: by `header.cwd` first, then by the slug folder's name. */
export function belongsToWorkspace(s: StoreSession, workspace: string, host: HostPaths): boolean {
  const cwd = s.summary.ok ? s.summary.cwd : null;
  if (cwd && cwdMatches(cwd, workspace)) return true;
  return s.slug !== null && slugMatches(s.slug, workspaceSlugVariants(workspace, host));
}
