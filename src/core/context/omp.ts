/**
 * Oh My Pi's effective context: OMP's rules (model roles, `reset_boundary`, dropped empty error turns and
 * retry-recovery turns), on the selection both agents share.
 */
import { type Entry, type MessageView, pathTo, type Session, settingsAt, splitModel } from "../session/index.js";
import {
  branchSummaryMessage,
  compactionSummaryMessage,
  type ContextMessage,
  customMessage,
  lastOfType,
  selectEntries,
  type SessionContext,
} from "./entries.js";

/** OMP drops assistant turns that are retry-recovery leftovers or errors without any content. */
function isDroppedOmpTurn(message: MessageView): boolean {
  if (message.role !== "assistant") return false;
  const r = message.record;
  if (r.retryRecovery) return true;
  if (r.stopReason !== "error") return false;
  // A block that is not an object counts as content (OMP keeps the turn); the view holds object blocks only.
  if (Array.isArray(message.content) && message.blocks.length < message.content.length) return false;
  return !message.blocks.some((block) => {
    switch (block.type) {
      case "text":
        return block.text.trim().length > 0;
      case "thinking": {
        const signature = block.record.thinkingSignature;
        return block.thinking.trim().length > 0 || (typeof signature === "string" && signature.trim().length > 0);
      }
      case "other":
        if (block.kind === "fallback") return false;
        if (block.kind !== "redactedThinking") return true;
        return typeof block.record.data === "string" && block.record.data.trim().length > 0;
      default:
        return true;
    }
  });
}

export function buildOmpContext(session: Session, leafId: string | null): SessionContext {
  const path = pathTo(session, leafId);
  const { thinkingLevel, models } = settingsAt(session, leafId);
  let configuredThinkingLevel: string | null = null;
  const rules = new Set<string>();
  let mode = "none";
  let modeData: unknown = null;
  let resetIdx = -1;
  path.forEach((entry, i) => {
    const d = entry.data;
    if (entry.type === "thinking_level_change")
      configuredThinkingLevel =
        (d.configured as string | null | undefined) ?? (d.thinkingLevel as string | null | undefined) ?? null;
    else if (entry.type === "ttsr_injection" && Array.isArray(d.injectedRules))
      for (const r of d.injectedRules) rules.add(String(r));
    else if (entry.type === "mode_change") {
      mode = String(d.mode);
      modeData = d.data ?? null;
    } else if (entry.type === "reset_boundary") resetIdx = i;
  });
  const compaction = lastOfType(path, "compaction");
  const entries = selectEntries(path, compaction, resetIdx, () => false).map((entry, index) => ({
    entryId: entry.id,
    type: entry.type,
    messages: ompEntryMessages(entry, index === 0),
  }));
  const model = models.default ? splitModel(models.default) : null;
  return {
    leafId,
    messages: entries.flatMap((e) => e.messages),
    entries,
    thinkingLevel,
    model,
    models,
    configuredThinkingLevel,
    injectedTtsrRules: [...rules],
    mode,
    modeData,
    compactionId:
      resetIdx >= 0 && (!compaction || resetIdx > path.indexOf(compaction)) ? null : (compaction?.id ?? null),
  };
}

/** The messages one selected entry contributes in OMP; a compaction only when it opens the selection. */
function ompEntryMessages(entry: Entry, first: boolean): ContextMessage[] {
  const d = entry.data;
  if (entry.type === "message") {
    // A message entry without a message object is reported by validation; it is no turn to show (OMP would throw).
    const view = entry.message;
    return view && !isDroppedOmpTurn(view) ? [view.record as ContextMessage] : [];
  }
  if (entry.type === "custom_message") {
    if (typeof d.content !== "string" && !Array.isArray(d.content)) return [];
    const message = customMessage(d);
    if (d.attribution !== undefined) message.attribution = d.attribution;
    return [message];
  }
  if (entry.type === "branch_summary") return d.summary ? [branchSummaryMessage(d)] : [];
  if (entry.type !== "compaction" || !first) return [];
  const message = compactionSummaryMessage(d);
  for (const key of ["shortSummary", "method", "tokensAfter", "warning"])
    if (d[key] !== undefined) message[key] = d[key];
  return [message];
}
