/**
 * Fork lineage and ownership over the listed sessions: which session each fork came from (never by opening a path a
 * file names), which of a fork's entries are copies of its parent's (counted once, for the parent), and which
 * sessions belong to a workspace folder.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { cwdMatches, type HostPaths, isAbsolutePath, slugMatches, workspaceSlugVariants } from "../../core/slug.js";
import type { SessionRoot } from "../roots.js";
import type { ParentState, StoreSession } from "./storeSession.js";
import { slicer } from "./fs.js";

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
  const byId = new Map<string, StoreSession[]>();
  // Built only when a fork names a path outside the roots (a listed file is under its root: its path past the root's
  // is cut, not worked out by `relative`, which cost more than all the rest on 8,000 files).
  let byRootRel: Map<string, StoreSession> | undefined;
  const atRootRel = (rel: string) => {
    if (!byRootRel) {
      byRootRel = new Map();
      for (const s of sessions) {
        const under = s.file.startsWith(s.root.dir + sep) ? s.file.slice(s.root.dir.length + 1) : null;
        byRootRel.set((under ?? relative(s.root.dir, s.file)).split(sep).join("/"), s);
      }
    }
    return byRootRel.get(rel);
  };
  for (const s of sessions) {
    byFile.set(s.file, s);
    if (s.summary.ok) {
      const same = byId.get(s.summary.id);
      if (same) same.push(s);
      else byId.set(s.summary.id, [s]);
    }
  }
  for (const s of sessions) {
    s.parent = null;
    s.parentCandidates = [];
    s.children = [];
    s.sameIdAs = s.summary.ok ? byId.get(s.summary.id)!.filter((o) => o !== s) : [];
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
      const candidates = byId.get(raw) ?? [];
      parent = candidates.length === 1 ? candidates[0] : undefined;
      state = candidates.length > 1 ? "ambiguous" : parent ? "resolved" : "orphan";
    } else {
      const native = isAbsolute(raw) && !raw.includes("\0");
      const abs = native ? resolve(raw) : null;
      if (abs && insideRoots(abs, roots)) {
        parent = byFile.get(abs);
        state = parent ? "resolved" : "orphan";
      } else {
        const m = /(?:^|[/\\])sessions[/\\](.+)$/.exec(raw);
        parent = m ? atRootRel(m[1]!.split(/[/\\]/).join("/")) : undefined;
        state = parent ? "resolved" : "external";
      }
    }
    if (parent === s || (state === "ambiguous" && byId.get(raw)!.includes(s))) {
      parent = undefined;
      if (state !== "ambiguous") state = "orphan";
    }
    s.parentState = state;
    s.parent = parent ?? null;
    if (state === "ambiguous") s.parentCandidates = byId.get(raw)!.filter((o) => o !== s);
    if (parent) parent.children.push(s);
  }
  // Guard against lineage cycles (A says B is its parent, B says A): break at the repeat. Linear: each session is
  // walked once, marked as on the current walk, then as done; a walk stops at a session already done.
  const ON_WALK = 1;
  const DONE = 2;
  const mark = new Map<StoreSession, number>();
  for (const s of sessions) {
    if (mark.has(s)) continue;
    const walk: StoreSession[] = [];
    for (let p: StoreSession | null = s; p && !mark.has(p); p = p.parent) {
      mark.set(p, ON_WALK);
      walk.push(p);
      const next: StoreSession | null = p.parent;
      if (next && mark.get(next) === ON_WALK) {
        // `next` is where the walk closes a cycle: its own parent link is the one cut.
        next.parent!.children = next.parent!.children.filter((c) => c !== next);
        next.parent = null;
        next.parentState = "orphan";
        break;
      }
    }
    for (const p of walk) mark.set(p, DONE);
  }
}

/**
 * Deduplication over a result set, so that every entry is counted once (docs/session-format.md#forks):
 * - a fork: an entry is inherited when its parent is in the result, the parent has the same entry id, and the
 *   entry's timestamp is not after the fork's header timestamp. A fork whose parent is not in the result keeps them.
 *   An ambiguous fork inherits an entry any of its candidate parents in the result has.
 * - files with one session id (a copy, a backup): one of them owns the session (the one with the most entries, then
 *   the first by path); an entry of another one is inherited when the owner has the same entry id with the same
 *   timestamp. A byte-identical copy thus adds nothing.
 * Inherited entries are counted for their owner only.
 */
export function computeOwnership(result: StoreSession[]): void {
  const own = ownershipOf(result);
  for (const s of result) Object.assign(s, own(s));
}

/**
 * `computeOwnership` in slices, for an editor's event loop (a fork's entries are decoded from the cache as they are
 * needed: about 50 ms for 8,000 sessions with 800 forks). Nothing is changed until all is computed, so a reader in
 * between sees the sessions as they were.
 */
export async function computeOwnershipInSlices(result: StoreSession[], every = 128): Promise<void> {
  const own = ownershipOf(result);
  const computed: [StoreSession, Ownership][] = [];
  const tick = slicer(every);
  for (const s of result) {
    computed.push([s, own(s)]);
    await tick();
  }
  for (const [s, o] of computed) Object.assign(s, o);
}

type Ownership = Pick<StoreSession, "inherited" | "forkPointId">;

/** A session's inherited entries and fork point within `result` (see computeOwnership). */
function ownershipOf(result: StoreSession[]): (s: StoreSession) => Ownership {
  const inResult = new Set(result);
  const timesOf = new Map<StoreSession, Map<string, number>>();
  const entriesOf = (s: StoreSession) => {
    let map = timesOf.get(s);
    if (!map) {
      map = new Map(s.summary.ok ? s.summary.entries : []);
      timesOf.set(s, map);
    }
    return map;
  };
  return (s) => {
    const out: Ownership = { inherited: new Set(), forkPointId: null };
    if (!s.summary.ok) return out;
    // An ambiguous fork is linked to none of its candidates, but its copies were paid for by one of them.
    const sources = (s.parent ? [s.parent] : s.parentCandidates).filter((p) => inResult.has(p)).map(entriesOf);
    if (sources.length) {
      const created = s.summary.created;
      for (const [id, time] of s.summary.entries) {
        if (sources.some((p) => p.has(id)) && !(time > created)) {
          out.inherited.add(id);
          out.forkPointId = id;
        }
      }
    }
    const owner = sessionOwner(s, inResult);
    if (owner !== s) {
      const ownerEntries = entriesOf(owner);
      for (const [id, time] of s.summary.entries) if (ownerEntries.get(id) === time) out.inherited.add(id);
    }
    return out;
  };
}

/** Of the files in the result that carry `s`'s session id, the one that owns the shared entries. */
function sessionOwner(s: StoreSession, inResult: Set<StoreSession>): StoreSession {
  let owner = s;
  for (const o of s.sameIdAs) {
    if (!inResult.has(o) || !o.summary.ok || !owner.summary.ok) continue;
    const [a, b] = [o.summary.entries.length, owner.summary.entries.length];
    if (a > b || (a === b && o.file < owner.file)) owner = o;
  }
  return owner;
}

/**
 * Sessions that belong to a workspace folder: by `header.cwd` when it is an absolute path, else (an old or damaged
 * header) by the slug folder's name.
 */
export function belongsToWorkspace(s: StoreSession, workspace: string, host: HostPaths): boolean {
  return inWorkspace({ cwd: s.summary.ok ? s.summary.cwd : null, slug: s.slug }, workspace, host);
}

/** `belongsToWorkspace` from the two facts it needs (the search index keeps them without the listing). */
export function inWorkspace(
  s: { cwd: string | null; slug: string | null },
  workspace: string,
  host: HostPaths,
): boolean {
  // The header's cwd decides when it is a path: a slug cannot tell `/srv/app/x` from the sibling `/srv/app-x`.
  if (s.cwd && isAbsolutePath(s.cwd)) return cwdMatches(s.cwd, workspace);
  // Without one, only the workspace folder's own slug: a prefix cannot be bounded at a separator it erased.
  return s.slug !== null && slugMatches(s.slug, workspaceSlugVariants(workspace, host), true);
}
