/**
 * Fork families: a session with no listed parent together with every session forked from it (and from its forks).
 * What tells a fork apart from its parent (its title) is `sessionTitle`. The Sessions view lists one row per family
 * and nests forks under "Forks (N)"; `pi-sessions list --tree` prints the same nesting.
 *
 * A session's family parent is its resolved fork parent; an OMP subagent (or /tan) session that names no listed
 * parent still belongs to the session whose artifacts dir holds it (`nestedIn`), so it is never a family of its own.
 */
import { lastActivity, type StoreSession } from "./storeSession.js";

/** The session a family row nests `s` under, or null when `s` heads a family. */
function familyParent(s: StoreSession, byFile: (file: string) => StoreSession | undefined): StoreSession | null {
  if (s.parent) return s.parent;
  if (s.nestedIn && s.parentState !== "ambiguous") {
    const holder = byFile(s.nestedIn);
    if (holder && holder !== s) return holder;
  }
  return null;
}

/** A subagent session (OMP `session_init`): listed under its parent's subagents, not among its forks. */
const isSubagent = (s: StoreSession) => s.summary.ok && s.summary.subagent;

/**
 * The family structure of a set of sessions: each session's family parent and direct children, and each family's
 * latest activity (its newest member). Built once per listing change; cycles cannot occur (`linkLineage` cuts them,
 * and a walk stops at a session it has seen).
 */
export class FamilyIndex {
  private readonly parentOf = new Map<StoreSession, StoreSession | null>();
  private readonly kids = new Map<StoreSession, StoreSession[]>();
  private readonly activity = new Map<StoreSession, number>();

  constructor(sessions: readonly StoreSession[]) {
    const byFile = new Map(sessions.map((s) => [s.file, s]));
    for (const s of sessions) {
      const p = familyParent(s, (f) => byFile.get(f));
      this.parentOf.set(s, p);
      if (!p) continue;
      const list = this.kids.get(p);
      if (list) list.push(s);
      else this.kids.set(p, [s]);
    }
    // A nestedIn link can close a loop that lineage did not see (a holder that names its own subagent as parent):
    // the link back to a session already on the walk is cut.
    for (const s of sessions) {
      const seen = new Set<StoreSession>([s]);
      for (let c = s, p = this.parentOf.get(s) ?? null; p; c = p, p = this.parentOf.get(p) ?? null) {
        if (!seen.has(p)) {
          seen.add(p);
          continue;
        }
        this.parentOf.set(c, null);
        const list = this.kids.get(p)!;
        list.splice(list.indexOf(c), 1);
        break;
      }
    }
    for (const list of this.kids.values()) list.sort((a, b) => this.latest(b) - this.latest(a) || byName(a, b));
  }

  parent(s: StoreSession): StoreSession | null {
    return this.parentOf.get(s) ?? null;
  }

  /** Direct forks (subagents left out), the most recently active family first. */
  forks(s: StoreSession): StoreSession[] {
    return (this.kids.get(s) ?? []).filter((k) => !isSubagent(k));
  }

  /** Direct subagent sessions, the most recently active first. */
  subagents(s: StoreSession): StoreSession[] {
    return (this.kids.get(s) ?? []).filter(isSubagent);
  }

  /** Forks below `s` at any depth (subagents left out). */
  forkCount(s: StoreSession): number {
    let n = 0;
    for (const k of this.kids.get(s) ?? []) n += (isSubagent(k) ? 0 : 1) + this.forkCount(k);
    return n;
  }

  /** The newest activity of `s` and everything below it. */
  latest(s: StoreSession): number {
    let t = this.activity.get(s);
    if (t === undefined) {
      t = lastActivity(s);
      this.activity.set(s, t); // set before the walk: a loop (cut above) cannot recurse forever
      for (const k of this.kids.get(s) ?? []) t = Math.max(t, this.latest(k));
      this.activity.set(s, t);
    }
    return t;
  }

  /** The chain from `s`'s family root down to `s` (both included). */
  chain(s: StoreSession): StoreSession[] {
    const out = [s];
    for (let p = this.parent(s); p && !out.includes(p); p = this.parent(p)) out.unshift(p);
    return out;
  }

  /**
   * The rows of a list of sessions (a workspace's, a project's): each session whose family parent is not in the
   * list heads a row, the families newest first. A fork of a session listed elsewhere heads a row here too.
   */
  tops(list: readonly StoreSession[]): StoreSession[] {
    const inList = new Set(list);
    return list
      .filter((s) => {
        const p = this.parent(s);
        return !p || !inList.has(p);
      })
      .sort((a, b) => this.latest(b) - this.latest(a) || byName(a, b));
  }
}

const byName = (a: StoreSession, b: StoreSession) => a.file.localeCompare(b.file);

/** A fork's first prompt of its own (after the fork point), or null when it has none. */
export function firstOwnPrompt(s: StoreSession): string | null {
  return s.summary.ok ? s.summary.laterPrompt : null;
}
