/**
 * pi's effective context, as pi 1.6's `buildSessionProjection()` builds it (docs/session-format.md#context):
 * every selected entry with the messages it contributes, the latest `context_edit` of each target applied.
 * Older pi files hold no system messages, context edits or compaction checkpoints, so this is also pi 0.73's
 * `buildSessionContext()` for them.
 */
import { isPlainObject } from "../jsonShape.js";
import type { Entry } from "../session/index.js";
import {
  branchSummaryMessage,
  compactionSummaryMessage,
  type ContextMessage,
  customMessage,
  type ProjectedEntry,
} from "./entries.js";

/** The roles whose content a `context_edit` replacement replaces (pi's `projectContextEntry`). */
const EDITABLE_ROLES = new Set(["user", "assistant", "toolResult", "custom"]);
/** The roles pi gives an empty content list when the file has none. */
const LIST_CONTENT_ROLES = new Set(["user", "assistant", "toolResult"]);

/**
 * What a `context_edit` entry does to its target: leaves it out (`replacement: null`), or replaces its content (for
 * a replacement that is no `{content}` object, pi reads `content` as undefined, and so do we). Null for an entry that
 * is no edit, or one without a replacement (pi would fail on it).
 */
function contextEditOf(entry: Entry): { targetId: string; omitted: boolean; content: unknown } | null {
  if (entry.type !== "context_edit" || typeof entry.data.targetId !== "string") return null;
  const replacement = entry.data.replacement;
  if (replacement === undefined) return null;
  return {
    targetId: entry.data.targetId,
    omitted: replacement === null,
    content: isPlainObject(replacement) ? replacement.content : undefined,
  };
}

/** The last edit of each target among `entries`, in path order (pi applies the last). */
export function lastEdits(
  entries: readonly Entry[],
): Map<string, { entry: Entry; omitted: boolean; content: unknown }> {
  const edits = new Map<string, { entry: Entry; omitted: boolean; content: unknown }>();
  for (const entry of entries) {
    const edit = contextEditOf(entry);
    if (edit) edits.set(edit.targetId, { entry, omitted: edit.omitted, content: edit.content });
  }
  return edits;
}

export function projectPiEntries(selected: Entry[]): ProjectedEntry[] {
  // Edits count only among the selected entries (branch-relative, after compaction); the last one per target wins.
  const edits = lastEdits(selected);
  return selected.map((entry, index) => {
    const edit = edits.get(entry.id);
    // Only the newest compaction, selected first, contributes; an older one inside the kept range gives nothing.
    const own = entry.type === "compaction" && index > 0 ? [] : entryMessages(entry);
    const projected: ProjectedEntry = { entryId: entry.id, type: entry.type, messages: own };
    if (edit) {
      projected.messages = edit.omitted ? [] : replaceContent(own, edit.content);
      projected.edit = { id: edit.entry.id, omitted: edit.omitted };
    }
    return projected;
  });
}

/** The messages one entry contributes before any edit (pi's `sessionEntryToContextMessages`). */
export function entryMessages(entry: Entry): ContextMessage[] {
  const d = entry.data;
  switch (entry.type) {
    case "message": {
      // A message entry without a message object is reported by validation; it is no turn (pi would throw).
      if (!isPlainObject(d.message)) return [];
      const message = d.message as ContextMessage;
      if (message.content != null) return [message];
      if (message.role === "system") return [{ ...message, content: "" }];
      return LIST_CONTENT_ROLES.has(message.role) ? [{ ...message, content: [] }] : [message];
    }
    case "custom_message":
      return [customMessage(d, d.content ?? [])];
    case "branch_summary":
      return d.summary ? [branchSummaryMessage(d)] : [];
    case "compaction": {
      const summary = compactionSummaryMessage(d);
      return isPlainObject(d.systemMessage) ? [d.systemMessage as ContextMessage, summary] : [summary];
    }
    default:
      return [];
  }
}

function replaceContent(messages: ContextMessage[], content: unknown): ContextMessage[] {
  return messages.map((message) => {
    if (!EDITABLE_ROLES.has(message.role)) return message;
    // pi stores a string replacement of an assistant or tool result as one text block.
    const asBlocks = (message.role === "assistant" || message.role === "toolResult") && typeof content === "string";
    return { ...message, content: asBlocks ? [{ type: "text", text: content }] : content };
  });
}
