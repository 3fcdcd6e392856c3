/**
 * What a compaction replaced by its summary, in one definition for every view (the tree's "Replaced" row, Effective
 * Context's table of compactions, the checkpoint inspector, the transcript's card, exports): the messages it
 * summarized itself, as pi's `prepareCompaction` chooses them: on its path, from where the previous compaction kept
 * (the start, for the first) up to the entry it keeps from (or up to itself when it keeps nothing). What an earlier
 * compaction summarized reaches it as that compaction's summary, not as messages. Messages are what the model saw
 * (messages, custom messages, branch summaries); a model or thinking change is no message.
 */
import type { CompactionInfo, Entry, Session } from "./session/index.js";
import { pathTo } from "./session/index.js";

const MESSAGE_TYPES = new Set(["message", "custom_message", "branch_summary"]);

/** `path`: the path to the compaction (or through it), root first, when the caller has it. */
export function replacedMessages(session: Session, info: CompactionInfo, path?: readonly Entry[]): Entry[] {
  const toCompaction = path ?? pathTo(session, info.id);
  const at = toCompaction.findIndex((e) => e.id === info.id);
  const self = at < 0 ? toCompaction.length : at;
  const keptAt = info.keptFromId === null ? -1 : toCompaction.findIndex((e) => e.id === info.keptFromId);
  const end = keptAt < 0 || keptAt > self ? self : keptAt;
  const start = previousBoundary(session, toCompaction, self);
  return toCompaction.slice(start, Math.max(start, end)).filter((e) => MESSAGE_TYPES.has(e.type));
}

/** Where the nearest earlier compaction on the path left off: its kept entry, or just after it when it kept none. */
function previousBoundary(session: Session, path: readonly Entry[], before: number): number {
  for (let i = before - 1; i >= 0; i--) {
    if (path[i]!.type !== "compaction") continue;
    const prev = session.compactions.find((c) => c.id === path[i]!.id);
    const kept = prev?.keptFromId ? path.findIndex((e) => e.id === prev.keptFromId) : -1;
    return kept >= 0 && kept < i ? kept : i + 1;
  }
  return 0;
}
