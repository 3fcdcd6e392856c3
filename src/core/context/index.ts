/**
 * The effective context: the messages the model saw at a given leaf.
 *
 * pi files: equal to pi 1.6's `buildSessionProjection()` (docs/session-format.md#context): same message objects,
 * same order, same thinkingLevel and model, context edits applied. OMP files: OMP's rules (omp.ts).
 */
import { type Entry, pathTo, type Session, settingsAt } from "../session/index.js";
import { lastOfType, selectEntries, type SessionContext } from "./entries.js";
import { buildOmpContext } from "./omp.js";
import { projectPiEntries } from "./pi.js";

export { entryMessages, lastEdits } from "./pi.js";

export type { ContextMessage, ProjectedEntry, SessionContext } from "./entries.js";

export class UnknownEntryError extends Error {
  constructor(readonly entryId: string) {
    super(`no entry with id ${JSON.stringify(entryId)} in this session`);
    this.name = "UnknownEntryError";
  }
}

/**
 * Build the context at `leafId` (default: the active leaf). `null` means "before the first entry" (empty),
 * as in pi. An id that is not in the session throws `UnknownEntryError`.
 */
export function buildContext(session: Session, leafId?: string | null): SessionContext {
  let leaf: string | null;
  if (leafId === undefined) leaf = session.leafId;
  else if (leafId === null) leaf = null;
  else if (session.byId.has(leafId)) leaf = leafId;
  else throw new UnknownEntryError(leafId);
  return session.flavor === "omp" ? buildOmpContext(session, leaf) : buildPiContext(session, leaf);
}

function buildPiContext(session: Session, leafId: string | null): SessionContext {
  const path = pathTo(session, leafId);
  const { thinkingLevel, model } = settingsAt(session, leafId);
  const compaction = lastOfType(path, "compaction");
  const entries = projectPiEntries(selectEntries(path, compaction, -1, isSystemMessage));
  return {
    leafId,
    messages: entries.flatMap((e) => e.messages),
    entries,
    thinkingLevel,
    model,
    compactionId: compaction?.id ?? null,
  };
}

/** pi 1.6 drops the system messages of a compaction's kept range: the compaction's `systemMessage` replaces them. */
function isSystemMessage(entry: Entry): boolean {
  return entry.type === "message" && entry.message?.role === "system";
}
