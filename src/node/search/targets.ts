/**
 * What the search index needs to know of a listed session to index it: its file's size and mtime (to see a change),
 * its title, project and slug (for hits without the listing), its parents and the entries it copied from them (a
 * fork's copies are indexed once, in the session that wrote them). Small and cloneable: the extension sends these to
 * its indexing worker.
 */
import { sessionTitle, type StoreSession } from "../store/index.js";

export interface IndexTarget {
  file: string;
  sizeBytes: number;
  mtimeMs: number;
  title: string;
  cwd: string | null;
  slug: string | null;
  /** The parents' files: the resolved parent, or every candidate of an ambiguous fork. */
  parents: string[];
  /** The ids of the entries copied from a parent (not indexed here), or null when it is no fork. */
  copies: string[] | null;
}

/** The targets of a listing whose fork ownership is computed (`computeOwnership`). */
export function indexTargets(sessions: readonly StoreSession[]): IndexTarget[] {
  return sessions.map((s) => {
    const parents = s.parent ? [s.parent] : s.parentCandidates;
    return {
      file: s.file,
      sizeBytes: s.sizeBytes,
      mtimeMs: s.mtimeMs,
      title: sessionTitle(s),
      cwd: s.summary.ok ? s.summary.cwd : null,
      slug: s.slug,
      parents: parents.map((p) => p.file),
      copies: parents.length ? [...s.inherited] : null,
    };
  });
}
