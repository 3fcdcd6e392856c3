/**
 * Usage and cost records of one session, and their aggregation.
 *
 * Sources (docs/session-format.md#usage, #t16, #t18): assistant `usage` (pi and OMP), OMP `model_usage` entries,
 * OMP `toolResult` of the `task` tool (`details.usage`, subagent spend), and compactions (the summary call, and a
 * server compaction's call, whose tokens count but whose cost is unknown). Input and cache buckets are disjoint;
 * `totalTokens` falls back to the sum of the four buckets; cost is `cost.total` (USD, the harness's estimate).
 * Every branch counts (abandoned branches were paid for); `active` marks the active-path share.
 */
import { isPriced, type TokenBuckets, type UsageFacts } from "./facts.js";
import { pathTo, type Session } from "./session/index.js";

export type { TokenBuckets };

export interface UsageRecord extends UsageFacts {
  entryId: string;
  /** Entry timestamp in ms (NaN when the entry has none). */
  time: number;
  /** On the active path (what the agent resumes). */
  active: boolean;
}

/**
 * All usage records of a session, in file order (aborted and error turns included when non-zero). Built from the
 * facts the reader kept (`Entry.usage`): no record body is parsed again.
 */
export function usageRecords(session: Session, isActive?: (id: string) => boolean): UsageRecord[] {
  let activeIds: Set<string> | undefined;
  const active = {
    has:
      isActive ?? ((id: string) => (activeIds ??= new Set(pathTo(session, session.leafId).map((e) => e.id))).has(id)),
  };
  const out: UsageRecord[] = [];
  for (const entry of session.entries) {
    if (entry.shadowed || !entry.usage) continue;
    const time = entry.timestamp ? Date.parse(entry.timestamp) : Number.NaN;
    // Properties copied one by one: an object spread is many times slower, and a report builds every record.
    for (const u of Array.isArray(entry.usage) ? entry.usage : [entry.usage])
      out.push({
        entryId: entry.id,
        time,
        source: u.source,
        provider: u.provider,
        model: u.model,
        input: u.input,
        output: u.output,
        cacheRead: u.cacheRead,
        cacheWrite: u.cacheWrite,
        totalTokens: u.totalTokens,
        cost: u.cost,
        active: active.has(entry.id),
      });
  }
  return out;
}

export interface UsageTotals extends TokenBuckets {
  messages: number;
  /** Records in the tokens whose cost is unknown (server compactions carry no price): `cost` leaves them out. */
  unpriced: number;
}

export function emptyTotals(): UsageTotals {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0, messages: 0, unpriced: 0 };
}

export function addRecord(target: UsageTotals, r: TokenBuckets & Partial<Pick<UsageFacts, "source">>): void {
  if (r.source !== undefined && !isPriced({ source: r.source })) target.unpriced += 1;
  target.input += r.input;
  target.output += r.output;
  target.cacheRead += r.cacheRead;
  target.cacheWrite += r.cacheWrite;
  target.totalTokens += r.totalTokens;
  target.cost += r.cost;
  target.messages += 1;
}
