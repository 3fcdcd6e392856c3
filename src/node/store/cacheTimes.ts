/** Times as the cache reads them back (src/node/store/cache.ts). */
import type { SessionSummary } from "../../core/summary.js";

/**
 * JSON writes NaN (a time that does not parse) as null: read back as NaN, as the reader gives it, so that every
 * comparison (a fork's copies by time, same-id owners) answers as it does without the cache.
 */
export const timeOf = (v: number | null | undefined) => (typeof v === "number" ? v : Number.NaN);

/** A summary stored whole (not packed): its times as the reader gave them. */
export function reviveTimes(s: SessionSummary): SessionSummary {
  if (!s.ok) return s;
  s.created = timeOf(s.created);
  s.lastActiveAt = timeOf(s.lastActiveAt);
  for (const e of s.entries) e[1] = timeOf(e[1]);
  for (const r of s.usage) r.time = timeOf(r.time);
  for (const t of s.touches) t.time = timeOf(t.time);
  return s;
}
