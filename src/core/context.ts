/**
 * The effective context: the messages the model saw at a given leaf.
 *
 * pi files: equal to pi's `buildSessionContext()` (docs/session-format.md#tree): same message objects, same
 * order, same thinkingLevel and model. OMP files: OMP's rules (model roles, `reset_boundary`, dropped
 * empty error turns and retry-recovery turns).
 */
import { type Entry, type MessageView, pathTo, type Session, settingsAt, splitModel } from "./session/index.js";

export type ContextMessage = Record<string, unknown> & { role: string };

export interface SessionContext {
  leafId: string | null;
  messages: ContextMessage[];
  thinkingLevel: string | undefined;
  model: { provider: string; modelId: string } | null;
  /** OMP only: role → "provider/id", the configured thinking level, injected TTSR rules and mode. */
  models?: Record<string, string>;
  configuredThinkingLevel?: string | null;
  injectedTtsrRules?: string[];
  mode?: string;
  modeData?: unknown;
  /** The compaction whose summary opens the context, if any. */
  compactionId: string | null;
}

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

function ms(timestamp: unknown): number {
  return new Date(timestamp as string).getTime();
}

function customMessage(d: Record<string, unknown>): ContextMessage {
  return {
    role: "custom",
    customType: d.customType,
    content: d.content,
    display: d.display,
    details: d.details,
    timestamp: ms(d.timestamp),
  };
}

function branchSummaryMessage(d: Record<string, unknown>): ContextMessage {
  return { role: "branchSummary", summary: d.summary, fromId: d.fromId, timestamp: ms(d.timestamp) };
}

function compactionSummaryMessage(d: Record<string, unknown>): ContextMessage {
  return { role: "compactionSummary", summary: d.summary, tokensBefore: d.tokensBefore, timestamp: ms(d.timestamp) };
}

function buildPiContext(session: Session, leafId: string | null): SessionContext {
  const path = pathTo(session, leafId);
  const { thinkingLevel, model } = settingsAt(session, leafId);
  const compaction = lastOfType(path, "compaction");
  const messages: ContextMessage[] = [];
  const append = (entry: Entry) => {
    const d = entry.data;
    if (entry.type === "message") messages.push(d.message as ContextMessage);
    else if (entry.type === "custom_message") messages.push(customMessage(d));
    else if (entry.type === "branch_summary" && d.summary) messages.push(branchSummaryMessage(d));
  };
  emit(path, compaction, append, (c) => messages.push(compactionSummaryMessage(c.data)), -1);
  return { leafId, messages, thinkingLevel, model, compactionId: compaction?.id ?? null };
}

/**
 * The shared skeleton: with a compaction C on the path, emit its summary, then the entries before C
 * starting at `firstKeptEntryId` (none if it is not on the path, docs/session-format.md#t19), then everything after C.
 * `startAfter` (OMP reset boundary) starts emission after that path index instead, when it is later than C.
 */
function emit(
  path: Entry[],
  compaction: Entry | undefined,
  append: (e: Entry) => void,
  summary: (c: Entry) => void,
  startAfter: number,
): void {
  const compactionIdx = compaction ? path.indexOf(compaction) : -1;
  if (startAfter >= 0 && startAfter > compactionIdx) {
    for (let i = startAfter + 1; i < path.length; i++) append(path[i]!);
    return;
  }
  if (!compaction) {
    for (const entry of path) append(entry);
    return;
  }
  summary(compaction);
  const firstKept = compaction.data.firstKeptEntryId;
  let kept = false;
  for (let i = 0; i < compactionIdx; i++) {
    const entry = path[i]!;
    if (entry.id === firstKept) kept = true;
    if (kept) append(entry);
  }
  for (let i = compactionIdx + 1; i < path.length; i++) append(path[i]!);
}

function lastOfType(path: Entry[], type: string): Entry | undefined {
  for (let i = path.length - 1; i >= 0; i--) if (path[i]!.type === type) return path[i];
  return undefined;
}

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

function buildOmpContext(session: Session, leafId: string | null): SessionContext {
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
  const messages: ContextMessage[] = [];
  const append = (entry: Entry) => {
    const d = entry.data;
    if (entry.type === "message") {
      // A message entry without a message object is reported by validation; it is no turn to show (OMP would throw).
      const view = entry.message;
      if (!view) return;
      if (!isDroppedOmpTurn(view)) messages.push(view.record as ContextMessage);
    } else if (entry.type === "custom_message") {
      if (typeof d.content === "string" || Array.isArray(d.content)) {
        const message = customMessage(d);
        if (d.attribution !== undefined) message.attribution = d.attribution;
        messages.push(message);
      }
    } else if (entry.type === "branch_summary" && d.summary) messages.push(branchSummaryMessage(d));
  };
  const summary = (c: Entry) => {
    const message = compactionSummaryMessage(c.data);
    for (const key of ["shortSummary", "method", "tokensAfter", "warning"])
      if (c.data[key] !== undefined) message[key] = c.data[key];
    messages.push(message);
  };
  emit(path, compaction, append, summary, resetIdx);
  const model = models.default ? splitModel(models.default) : null;
  return {
    leafId,
    messages,
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
