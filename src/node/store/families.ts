/**
 * Fork families: a session with no listed parent together with every session forked from it (and from its forks).
 * What tells a fork apart from its parent (its title) is `sessionTitle`. The Sessions view lists one row per family
 * and nests forks under "Forks (N)"; `pi-sessions list --tree` prints the same nesting.
 *
 * A session's family parent is its resolved fork parent; an OMP subagent whose parent is not resolved (and a /tan
 * clone that names none, or an id several files carry) still belongs to the session whose artifacts dir holds it
 * (`nestedIn`), so a subagent is never a family of its own. Every walk here is linear and iterative: a lineage
 * thousands of forks deep (a hostile store) costs no more than a wide one and never exhausts the stack.
 */
import { lastActivity, type StoreSession } from "./storeSession.js";

/** A subagent session (OMP `session_init`): listed under its parent's subagents, not among its forks. */
const isSubagent = (s: StoreSession) => s.summary.ok && s.summary.subagent;

/**
 * The family structure of a set of sessions: each session's family parent, direct children, family root, the
 * newest activity below it and its number of forks. Built once per listing change.
 */
export class FamilyIndex {
  private readonly parentOf = new Map<StoreSession, StoreSession>();
  private readonly kids = new Map<StoreSession, StoreSession[]>();
  private readonly rootOf = new Map<StoreSession, StoreSession>();
  private readonly activity = new Map<StoreSession, number>();
  private readonly forksBelow = new Map<StoreSession, number>();

  constructor(sessions: readonly StoreSession[]) {
    const byFile = new Map(sessions.map((s) => [s.file, s]));
    const viaHolder = new Set<StoreSession>();
    for (const s of sessions) {
      let p = s.parent;
      const unresolved = s.parentState === "none" || s.parentState === "ambiguous" || isSubagent(s);
      if (!p && s.nestedIn && unresolved) {
        // No parent resolved (none named, an ambiguous id; a subagent always): the session whose folder holds it.
        const holder = byFile.get(s.nestedIn);
        if (holder && holder !== s) {
          p = holder;
          viaHolder.add(s);
        }
      }
      if (p && byFile.get(p.file) === p) this.parentOf.set(s, p);
    }
    this.cutCycles(sessions, viaHolder);
    for (const [s, p] of this.parentOf) {
      const list = this.kids.get(p);
      if (list) list.push(s);
      else this.kids.set(p, [s]);
    }
    // Parents before children (breadth first from the roots), then the per-family facts from the leaves up.
    const order = sessions.filter((s) => !this.parentOf.has(s));
    for (const s of order) this.rootOf.set(s, s);
    for (let i = 0; i < order.length; i++) {
      const s = order[i]!;
      for (const k of this.kids.get(s) ?? []) {
        this.rootOf.set(k, this.rootOf.get(s)!);
        order.push(k);
      }
    }
    for (let i = order.length - 1; i >= 0; i--) {
      const s = order[i]!;
      let latest = lastActivity(s);
      let forks = 0;
      for (const k of this.kids.get(s) ?? []) {
        latest = Math.max(latest, this.activity.get(k)!);
        forks += (isSubagent(k) ? 0 : 1) + this.forksBelow.get(k)!;
      }
      this.activity.set(s, latest);
      this.forksBelow.set(s, forks);
    }
    for (const list of this.kids.values()) list.sort((a, b) => this.latest(b) - this.latest(a) || byName(a, b));
  }

  /**
   * Fork parents form no cycle (`linkLineage` cuts them), but an artifacts-dir link can close one (a holder that names
   * its own subagent as its parent). Each session is walked once (on the walk, then done); a cycle is cut at one of
   * its artifacts-dir links.
   */
  private cutCycles(sessions: readonly StoreSession[], viaHolder: Set<StoreSession>): void {
    const ON_WALK = 1;
    const DONE = 2;
    const mark = new Map<StoreSession, number>();
    for (const s of sessions) {
      const walk: StoreSession[] = [];
      for (let p: StoreSession | undefined = s; p && !mark.has(p); p = this.parentOf.get(p)) {
        mark.set(p, ON_WALK);
        walk.push(p);
        const next = this.parentOf.get(p);
        if (next && mark.get(next) === ON_WALK) {
          const cycle = walk.slice(walk.indexOf(next));
          this.parentOf.delete(cycle.find((c) => viaHolder.has(c)) ?? p);
          break;
        }
      }
      for (const p of walk) mark.set(p, DONE);
    }
  }

  parent(s: StoreSession): StoreSession | null {
    return this.parentOf.get(s) ?? null;
  }

  /** The session that heads `s`'s family (`s` itself when it has no family parent). */
  root(s: StoreSession): StoreSession {
    return this.rootOf.get(s) ?? s;
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
    return this.forksBelow.get(s) ?? 0;
  }

  /** The newest activity of `s` and everything below it. */
  latest(s: StoreSession): number {
    return this.activity.get(s) ?? lastActivity(s);
  }

  /** The chain from `s`'s family root down to `s` (both included). */
  chain(s: StoreSession): StoreSession[] {
    const out: StoreSession[] = [];
    for (let p: StoreSession | undefined = s; p; p = this.parentOf.get(p)) out.push(p);
    return out.reverse();
  }

  /**
   * The rows of a list of sessions (a workspace's, a project's): each session whose family parent is not in the
   * list heads a row, the families newest first. A fork of a session listed elsewhere heads a row here too.
   */
  tops(list: readonly StoreSession[]): StoreSession[] {
    const inList = new Set(list);
    return list
      .filter((s) => {
        const p = this.parentOf.get(s);
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
