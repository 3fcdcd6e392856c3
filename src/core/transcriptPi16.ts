/**
 * What pi 1.6 adds to a transcript (docs/session-format.md#pi-1-6): system messages as collapsed cards, context edits
 * marked on their targets, a reply's thinking levels and duration, a tool result's nested calls.
 */
import { contentText } from "./entryText.js";
import { lastEdits } from "./context/index.js";
import { isPlainObject } from "./jsonShape.js";
import type { Entry } from "./session/index.js";
import { describeSystemMessage, systemChanges, systemSections } from "./systemMessage.js";
import { toolPathOf } from "./toolFiles.js";
import type { NestedCall, ReplyFacts, TranscriptCommon, TranscriptItem } from "../protocol/transcript.js";

/** A name, status, level or path of pi's: short in any real session; a longer one is cut. */
const SHORT = 500;
const str = (v: unknown): string | null => (typeof v === "string" && v ? v.slice(0, SHORT) : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null);

export function systemItem(common: TranscriptCommon, m: Record<string, unknown>): TranscriptItem {
  const c = systemChanges(m);
  return {
    ...common,
    kind: "system",
    summary: describeSystemMessage(m),
    sections: [
      ...(c.content ? [{ name: "prompt", text: c.content }] : []),
      ...systemSections(m).map(({ name, text }) => ({ name: name.slice(0, SHORT), text })),
    ],
    toolsAdded: c.toolsAdded.map((n) => n.slice(0, SHORT)),
    toolsRemoved: c.toolsRemoved.map((n) => n.slice(0, SHORT)),
  };
}

/** The reply facts pi 1.6 writes on an assistant message, when it wrote any. */
export function replyFacts(m: Record<string, unknown>): ReplyFacts | undefined {
  const facts: ReplyFacts = {
    thinkingLevel: str(m.thinkingLevel),
    providerThinkingLevel: str(m.providerThinkingLevel),
    endTurn: m.endTurn === true,
    durationMs: num(m.durationMs),
  };
  const any = facts.thinkingLevel || facts.providerThinkingLevel || facts.endTurn || facts.durationMs !== null;
  return any ? facts : undefined;
}

/** At most this many nested calls of one result are listed (a runaway script may make thousands). */
const MAX_NESTED = 200;

/** A tool result's nested calls (`nestedCalls.calls`), each with its name, status, duration and file. */
export function nestedCalls(m: Record<string, unknown>): NestedCall[] {
  const calls = isPlainObject(m.nestedCalls) ? m.nestedCalls.calls : undefined;
  if (!Array.isArray(calls)) return [];
  const out: NestedCall[] = [];
  for (const call of calls.slice(0, MAX_NESTED)) {
    if (!isPlainObject(call)) continue;
    const args = isPlainObject(call.arguments) ? call.arguments : {};
    out.push({
      name: str(call.name) ?? "tool",
      status: str(call.status) ?? "?",
      durationMs: num(call.durationMs),
      error: str(call.error),
      path: toolPathOf(args).slice(0, SHORT) || null,
    });
  }
  return out;
}

/**
 * The last `context_edit` of each target on a branch (pi applies the last one in path order), as the transcript
 * marks it on the target: what the model saw instead, or that it saw nothing of it.
 */
export function contextEditsOn(path: readonly Entry[]): Map<string, NonNullable<TranscriptCommon["contextEdit"]>> {
  const edits = new Map<string, NonNullable<TranscriptCommon["contextEdit"]>>();
  for (const [target, edit] of lastEdits(path))
    edits.set(
      target,
      edit.omitted
        ? { id: edit.entry.id, state: "omitted", text: null }
        : { id: edit.entry.id, state: "replaced", text: contentText(edit.content) },
    );
  return edits;
}
