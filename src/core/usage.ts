/**
 * Usage and cost records of one session, and their aggregation.
 *
 * Sources (session-format.md §5.2–5.3, T16, T18): assistant `usage` (pi and OMP), OMP `model_usage` entries, and
 * OMP `toolResult` of the `task` tool (`details.usage`, subagent spend). Input and cache buckets are disjoint;
 * `totalTokens` falls back to the sum of the four buckets; cost is `cost.total` (USD, the harness's estimate).
 * Every branch counts (abandoned branches were paid for); `active` marks the active-path share.
 */
import { isPlainObject, pathTo, type Session } from "./session.js";

/** Token buckets (input and cache disjoint) and the harness's USD cost estimate. */
export interface TokenBuckets {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: number;
}

export interface UsageRecord extends TokenBuckets {
  entryId: string;
  /** Entry timestamp in ms (NaN when the entry has none). */
  time: number;
  source: "assistant" | "model_usage" | "task";
  provider: string;
  /** The served model: `responseModel` if present, else `model`. */
  model: string;
  /** On the active path (what the agent resumes). */
  active: boolean;
}

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

function record(entryId: string, time: number, source: UsageRecord["source"], provider: string, model: string, usage: Record<string, unknown>, active: boolean): UsageRecord {
  const input = num(usage.input);
  const output = num(usage.output);
  const cacheRead = num(usage.cacheRead);
  const cacheWrite = num(usage.cacheWrite);
  const total = typeof usage.totalTokens === "number" && usage.totalTokens ? usage.totalTokens : input + output + cacheRead + cacheWrite;
  const cost = isPlainObject(usage.cost) ? num(usage.cost.total) : 0;
  return { entryId, time, source, provider, model, input, output, cacheRead, cacheWrite, totalTokens: total, cost, active };
}

/** All usage records of a session, in file order (aborted and error turns included when non-zero). */
export function usageRecords(session: Session, isActive?: (id: string) => boolean): UsageRecord[] {
  let activeIds: Set<string> | undefined;
  const active = { has: isActive ?? ((id: string) => (activeIds ??= new Set(pathTo(session, session.leafId).map((e) => e.id))).has(id)) };
  const out: UsageRecord[] = [];
  for (const entry of session.entries) {
    if (entry.shadowed) continue;
    const d = entry.data;
    const time = entry.timestamp ? Date.parse(entry.timestamp) : Number.NaN;
    const isActive = active.has(entry.id);
    if (entry.type === "model_usage" && isPlainObject(d.usage)) {
      out.push(record(entry.id, time, "model_usage", String(d.provider ?? ""), String(d.model ?? ""), d.usage, isActive));
    } else if (entry.type === "message" && isPlainObject(d.message)) {
      const m = d.message;
      if (m.role === "assistant" && isPlainObject(m.usage)) {
        const served = typeof m.responseModel === "string" && m.responseModel ? m.responseModel : String(m.model ?? "");
        out.push(record(entry.id, time, "assistant", String(m.provider ?? ""), served, m.usage, isActive));
      } else if (m.role === "toolResult" && m.toolName === "task" && isPlainObject(m.details) && isPlainObject(m.details.usage)) {
        const details = m.details;
        const model = typeof details.model === "string" ? details.model : "subagent";
        out.push(record(entry.id, time, "task", typeof details.provider === "string" ? details.provider : "task", model, details.usage as Record<string, unknown>, isActive));
      }
    }
  }
  return out;
}

export interface UsageTotals extends TokenBuckets {
  messages: number;
}

export function emptyTotals(): UsageTotals {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0, messages: 0 };
}

export function addRecord(target: UsageTotals, r: TokenBuckets): void {
  target.input += r.input;
  target.output += r.output;
  target.cacheRead += r.cacheRead;
  target.cacheWrite += r.cacheWrite;
  target.totalTokens += r.totalTokens;
  target.cost += r.cost;
  target.messages += 1;
}

/** Local calendar day (YYYY-MM-DD) of a ms timestamp. */
export function localDay(ms: number): string {
  if (!Number.isFinite(ms)) return "unknown";
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}
