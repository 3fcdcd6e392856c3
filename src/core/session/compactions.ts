/** A session's compactions: what each keeps, and which are on the active path. */
import { ancestorIndex, isAncestor } from "../ancestry.js";
import type { Entry } from "./entry.js";
import type { CompactionInfo, Session } from "./model.js";

export type CompactionFacts = Pick<CompactionInfo, "firstKeptEntryId" | "keptFromId" | "tokensBefore" | "tokensAfter">;

export function collectCompactions(
  session: Session,
  keptFrom: Map<string, CompactionFacts>,
  compactionEntries: Entry[],
): CompactionInfo[] {
  // Which compactions are on the active path: one walk up from the leaf, marking only compactions (no set of the
  // whole path; this runs on every append).
  const active = new Set<string>();
  if (compactionEntries.length) {
    const wanted = new Set(compactionEntries.map((e) => e.id));
    // At most one step per entry: a parentId cycle cannot loop (pathTo stops at a repeated id the same way).
    let steps = session.byId.size;
    for (
      let e = session.leafId === null ? undefined : session.byId.get(session.leafId);
      e && steps-- > 0 && active.size < wanted.size;
      e = e.parentId === null ? undefined : session.byId.get(e.parentId)
    ) {
      if (e.type === "compaction" && wanted.has(e.id)) active.add(e.id);
    }
  }
  const result: CompactionInfo[] = [];
  // A walk up from each compaction, while the walks stay within a few steps per entry in all (kept entries are just
  // above); past that (a crafted file), one index of the tree answers the rest.
  const budget = { steps: 4 * session.byId.size + 1000 };
  let index: ((id: string, e: Entry) => boolean) | undefined;
  const above = (id: string, e: Entry) => {
    const walked = index ? undefined : isAncestor(session, id, e, budget);
    return walked ?? (index ??= ancestorIndex(session))(id, e);
  };
  for (const entry of compactionEntries) {
    if (entry.shadowed) continue;
    let facts = keptFrom.get(entry.id);
    if (facts === undefined) {
      const d = entry.data;
      const firstKept = typeof d.firstKeptEntryId === "string" ? d.firstKeptEntryId : null;
      let keptFromId: string | null = null;
      if (firstKept && above(firstKept, entry)) keptFromId = firstKept;
      facts = {
        firstKeptEntryId: firstKept,
        keptFromId,
        tokensBefore: typeof d.tokensBefore === "number" ? d.tokensBefore : null,
        tokensAfter: typeof d.tokensAfter === "number" ? d.tokensAfter : null,
      };
      keptFrom.set(entry.id, facts);
    }
    result.push({
      id: entry.id,
      line: entry.line,
      firstKeptEntryId: facts.firstKeptEntryId,
      keptFromId: facts.keptFromId,
      replacesThroughId: entry.parentId,
      tokensBefore: facts.tokensBefore,
      tokensAfter: facts.tokensAfter,
      onActivePath: active.has(entry.id),
    });
  }
  return result;
}
