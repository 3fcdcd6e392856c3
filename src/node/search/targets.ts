/**
 * What the search index needs to know of a listed session to index it: its file's size and mtime (to see a change),
 * its title, project and slug (for hits without the listing), its parents and the entries it copied from them (a
 * fork's copies are indexed once, in the session that wrote them). Small and cloneable: the extension sends these to
 * its indexing worker.
 */
import { createHash } from "node:crypto";
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
  /** A digest of `parents` and `copies`: when it changes (a parent found or gone), the file is indexed again. */
  lineage: string;
}

/** The targets of a listing whose fork ownership is computed (`computeOwnership`). */
export function indexTargets(sessions: readonly StoreSession[]): IndexTarget[] {
  return sessions.map((s) => {
    const parents = s.parent ? [s.parent] : s.parentCandidates;
    const copies = parents.length ? [...s.inherited] : null;
    const parentFiles = parents.map((p) => p.file);
    return {
      file: s.file,
      sizeBytes: s.sizeBytes,
      mtimeMs: s.mtimeMs,
      title: sessionTitle(s),
      cwd: s.summary.ok ? s.summary.cwd : null,
      slug: s.slug,
      parents: parentFiles,
      copies,
      lineage: createHash("sha1")
        // Sorted: the CLI's listing and the extension's may meet the same sets in another order.
        .update(JSON.stringify([[...parentFiles].sort(), copies ? [...copies].sort() : null]))
        .digest("base64"),
    };
  });
}
