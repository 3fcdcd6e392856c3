/**
 * What a compaction replaced by its summary, in one definition for every view (the tree's "Replaced" row, Effective
 * Context's table of compactions): the messages on its path before the entry it keeps from, or all of them when it
 * keeps nothing. Messages are what the model saw (pi's `buildSessionContext` sends messages, custom messages and
 * branch summaries); a model or thinking change is no message, and an earlier compaction is a summary, not a message.
 */
import { type CompactionInfo, type Entry, pathTo, type Session } from "./session/index.js";

const MESSAGE_TYPES = new Set(["message", "custom_message", "branch_summary"]);

function isContextMessageEntry(e: Entry): boolean {
  return MESSAGE_TYPES.has(e.type);
}

/** The path to the compaction (`path`, root first, when the caller has it) cut before its kept entry. */
export function replacedMessages(session: Session, info: CompactionInfo, path?: readonly Entry[]): Entry[] {
  const toCompaction = path ?? pathTo(session, info.id);
  const at = toCompaction.findIndex((e) => e.id === info.id);
  const end = at < 0 ? toCompaction.length : at;
  const keptAt = info.keptFromId === null ? -1 : toCompaction.findIndex((e) => e.id === info.keptFromId);
  return toCompaction.slice(0, keptAt < 0 || keptAt > end ? end : keptAt).filter(isContextMessageEntry);
}
