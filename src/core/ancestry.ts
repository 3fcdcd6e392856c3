/**
 * Ancestry in a session's tree, for compactions' kept ranges (`collectCompactions` in session/compactions.ts): is an
 * entry above another, by a walk up or, for many questions at once, by one index of the tree. Pure.
 */
import type { Entry } from "./session/entry.js";
import type { Session } from "./session/model.js";

/**
 * Whether `ancestorId` is on the path from the root to `entry`, `entry` excluded (as `pathTo` reads it: a parentId
 * cycle ends the path). A walk up that stops where it finds it: the kept entries of a compaction are just above it,
 * so this is short where a whole path per compaction would be quadratic in a long session. Undefined when the walk
 * takes more than `budget.steps` steps (spent from it).
 */
export function isAncestor(
  session: Session,
  ancestorId: string,
  entry: Entry,
  budget = { steps: Number.POSITIVE_INFINITY },
): boolean | undefined {
  let steps = session.byId.size;
  for (
    let e = entry.parentId === null ? undefined : session.byId.get(entry.parentId);
    e && e !== entry && steps-- > 0;
    e = e.parentId === null ? undefined : session.byId.get(e.parentId)
  ) {
    if (budget.steps-- <= 0) return undefined;
    if (e.id === ancestorId) return true;
  }
  return false;
}

/**
 * `isAncestor` for many entries at once: one pass gives each entry whose parent chain ends at a root its entry and
 * exit times in a walk of that forest, so that an answer is two comparisons; an entry in or under a parentId cycle is
 * walked as `isAncestor` walks it. (A crafted file of compactions that keep nothing above them took quadratic time.)
 */
export function ancestorIndex(session: Session): (ancestorId: string, entry: Entry) => boolean {
  const kids = new Map<Entry, Entry[]>();
  const roots: Entry[] = [];
  for (const e of session.byId.values()) {
    const parent = e.parentId === null ? undefined : session.byId.get(e.parentId);
    if (!parent) roots.push(e);
    else if (parent !== e) {
      const list = kids.get(parent);
      if (list) list.push(e);
      else kids.set(parent, [e]);
    }
  }
  const enter = new Map<Entry, number>();
  const exit = new Map<Entry, number>();
  let clock = 0;
  for (const root of roots) {
    enter.set(root, clock++);
    const stack: { e: Entry; next: number }[] = [{ e: root, next: 0 }];
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const list = kids.get(top.e);
      if (list && top.next < list.length) {
        const child = list[top.next++]!;
        enter.set(child, clock++);
        stack.push({ e: child, next: 0 });
      } else {
        exit.set(top.e, clock++);
        stack.pop();
      }
    }
  }
  return (ancestorId, entry) => {
    const at = enter.get(entry);
    if (at === undefined) return isAncestor(session, ancestorId, entry)!;
    const a = session.byId.get(ancestorId);
    const from = a && enter.get(a);
    return from !== undefined && from < at && exit.get(entry)! < exit.get(a!)!;
  };
}
