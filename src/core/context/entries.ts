/** What both agents' context builders share: the selected entries and the messages pi makes of summaries. */
import type { Entry } from "../session/index.js";

export type ContextMessage = Record<string, unknown> & { role: string };

/** One selected entry and the messages it contributes (pi 1.6's `buildSessionProjection().entries`). */
export interface ProjectedEntry {
  entryId: string;
  type: string;
  messages: ContextMessage[];
  /** The `context_edit` applied to this entry (pi 1.6): its id, and whether it left the entry out of context. */
  edit?: { id: string; omitted: boolean };
}

export interface SessionContext {
  leafId: string | null;
  messages: ContextMessage[];
  /** Every selected entry and the messages it contributes, in order (`messages` is their concatenation). */
  entries: ProjectedEntry[];
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

function ms(timestamp: unknown): number {
  return new Date(timestamp as string).getTime();
}

export function customMessage(d: Record<string, unknown>, content: unknown = d.content): ContextMessage {
  return {
    role: "custom",
    customType: d.customType,
    content,
    display: d.display,
    details: d.details,
    timestamp: ms(d.timestamp),
  };
}

export function branchSummaryMessage(d: Record<string, unknown>): ContextMessage {
  return { role: "branchSummary", summary: d.summary, fromId: d.fromId, timestamp: ms(d.timestamp) };
}

export function compactionSummaryMessage(d: Record<string, unknown>): ContextMessage {
  return { role: "compactionSummary", summary: d.summary, tokensBefore: d.tokensBefore, timestamp: ms(d.timestamp) };
}

export function lastOfType(path: Entry[], type: string): Entry | undefined {
  for (let i = path.length - 1; i >= 0; i--) if (path[i]!.type === type) return path[i];
  return undefined;
}

/**
 * The selected entries (pi's `buildContextEntries`): with a compaction C on the path, C first, then the entries
 * before C from `firstKeptEntryId` on (none if it is not on the path, docs/session-format.md#t19; none for a
 * retain-none compaction, whose `firstKeptEntryId` is its own id) except those `dropBeforeCompaction` names (pi
 * 1.6: system messages, which C's own `systemMessage` replaces), then everything after C. `startAfter` (OMP reset
 * boundary) selects only what follows that path index instead, when it is later than C.
 */
export function selectEntries(
  path: Entry[],
  compaction: Entry | undefined,
  startAfter: number,
  dropBeforeCompaction: (e: Entry) => boolean,
): Entry[] {
  const compactionIdx = compaction ? path.indexOf(compaction) : -1;
  if (startAfter >= 0 && startAfter > compactionIdx) return path.slice(startAfter + 1);
  if (!compaction) return path;
  const selected = [compaction];
  const firstKept = compaction.data.firstKeptEntryId;
  let kept = false;
  for (let i = 0; i < compactionIdx; i++) {
    const entry = path[i]!;
    if (entry.id === firstKept) kept = true;
    if (kept && !dropBeforeCompaction(entry)) selected.push(entry);
  }
  for (let i = compactionIdx + 1; i < path.length; i++) selected.push(path[i]!);
  return selected;
}
