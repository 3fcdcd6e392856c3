/**
 * One session's fork facts (its parent, and which of its entries are copies the parent paid for) as a listing of
 * the whole store gives them, at the cost of reading its relatives only: every other file is known from its first
 * and last few KB (or the metadata cache), which is all lineage needs (the header's id and parent); only the parent
 * (or an ambiguous fork's candidates) and the files sharing the session's id are read in full, since ownership
 * compares their entries. `pi-sessions export` needs no more.
 */
import { summarize } from "../../core/summary.js";
import type { ParseResult } from "../../core/session/index.js";
import { ioReason } from "../ioReason.js";
import { realFs } from "./fs.js";
import { computeOwnership } from "./lineage.js";
import { loadStore, type StoreOptions } from "./load.js";
import type { StoreSession } from "./storeSession.js";

/**
 * `parsed`: the session's file as already read. Undefined when the file is not under the roots; errors reading a
 * relative leave it as the listing knew it (its copies are then counted as the listing would).
 */
export async function forkFactsOf(
  file: string,
  parsed: ParseResult,
  options: Pick<StoreOptions, "roots" | "cacheFile" | "ompHistory">,
): Promise<{ session: StoreSession | undefined; errors: { path: string; message: string }[] }> {
  const store = await loadStore({ ...options, probe: true });
  const session = store.sessions.find((s) => s.file === file);
  if (!session) return { session, errors: store.errors };
  session.summary = summarize(parsed);
  const relatives = [...(session.parent ? [session.parent] : session.parentCandidates), ...session.sameIdAs];
  const partial = new Set(store.partial);
  for (const r of relatives.filter((x) => partial.has(x))) {
    try {
      r.summary = summarize(await realFs.readSession(r.file));
    } catch (err) {
      store.errors.push({ path: r.file, message: ioReason(err) });
    }
  }
  computeOwnership([session, ...relatives]);
  return { session, errors: store.errors };
}
