/**
 * How full a session's context is: the latest assistant message's prompt tokens (`input + cacheRead + cacheWrite`)
 * against the model's context window from pi-ai's model data (contextWindows.generated.ts), and where pi compacts
 * (`contextTokens > contextWindow - reserveTokens`, pi's `shouldCompact`).
 */
import { CONTEXT_WINDOWS } from "./contextWindows.generated.js";
import { isPlainObject } from "./jsonShape.js";
import type { Session } from "./session/index.js";
import type { UsageRecord } from "./usage.js";

let byId: Map<string, number | null> | undefined;

/** A model's context window: by provider and id, else by id when every provider that has it agrees; else null. */
export function contextWindowOf(provider: string, model: string): number | null {
  const models = Object.hasOwn(CONTEXT_WINDOWS, provider) ? CONTEXT_WINDOWS[provider]! : undefined;
  if (models && Object.hasOwn(models, model)) return models[model]!;
  if (!byId) {
    byId = new Map();
    for (const models of Object.values(CONTEXT_WINDOWS))
      for (const [id, w] of Object.entries(models)) byId.set(id, byId.has(id) && byId.get(id) !== w ? null : w);
  }
  return byId.has(model) ? byId.get(model)! : null;
}

export interface ContextFill {
  provider: string;
  model: string;
  /** The latest assistant message's prompt: input + cacheRead + cacheWrite. */
  tokens: number;
  window: number | null;
  /** 0–100 (may exceed 100), null when the window is unknown. */
  percent: number | null;
  /** The time of that message (ms). */
  time: number;
}

/** The context fill after the latest assistant message among a session's usage records; null when there is none. */
export function contextFill(usage: readonly UsageRecord[]): ContextFill | null {
  for (let i = usage.length - 1; i >= 0; i--) {
    const r = usage[i]!;
    if (r.source !== "assistant") continue;
    const tokens = r.input + r.cacheRead + r.cacheWrite;
    if (tokens === 0) continue; // an aborted or failed turn reports no usage
    const window = contextWindowOf(r.provider, r.model);
    return {
      provider: r.provider,
      model: r.model,
      tokens,
      window,
      percent: window ? (tokens / window) * 100 : null,
      time: r.time,
    };
  }
  return null;
}

/** The fill (percent) past which pi compacts: `window - reserveTokens`, null when it never would. */
export function compactionPercent(window: number | null, reserveTokens: number): number | null {
  if (!window || reserveTokens >= window) return null;
  return ((window - reserveTokens) / window) * 100;
}

/**
 * An Oh My Pi subagent's own compaction threshold (`session_init.compactionThreshold`, OMP 18.3: set for a subagent
 * with a per-agent override): a fixed token count wins over a percentage; `-1` leaves each unset.
 */
export interface OmpCompactionThreshold {
  thresholdPercent: number;
  thresholdTokens: number;
}

/** The fill (percent) past which OMP compacts under `threshold`; null when it sets neither field. */
export function ompThresholdPercent(window: number | null, threshold: OmpCompactionThreshold): number | null {
  if (!window) return null;
  if (threshold.thresholdTokens > 0) return Math.min(100, (threshold.thresholdTokens / window) * 100);
  if (threshold.thresholdPercent > 0 && threshold.thresholdPercent <= 100) return threshold.thresholdPercent;
  return null;
}

/** The threshold a session's `session_init` entry records, when it records a well-formed one. */
export function ompThresholdOf(session: Pick<Session, "entries">): OmpCompactionThreshold | null {
  const init = session.entries.find((e) => e.type === "session_init");
  const t = init?.data.compactionThreshold;
  if (!isPlainObject(t)) return null;
  const { thresholdPercent, thresholdTokens } = t;
  return typeof thresholdPercent === "number" && typeof thresholdTokens === "number"
    ? { thresholdPercent, thresholdTokens }
    : null;
}
