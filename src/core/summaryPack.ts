/**
 * A summary's compact form: what the metadata cache stores and what a worker thread sends back. What a listing shows
 * is plain JSON; the per-entry details (entry ids, times, usage records) are one value, so loading the cache scans them
 * as text and decodes a session's details only when they are read (node/store/cache.ts `unpackSummary`). Entry ids
 * are one string, times and usage flat number arrays. Pure: the lean summarizer (core/leanSummary.ts) writes it
 * directly.
 */
import type { SessionSummary, SessionSummaryOk } from "./summary.js";

/** A summary as stored (see above). */
export interface PackedSummary extends Omit<SessionSummaryOk, "entries" | "usage" | "touches"> {
  packed: 2;
  /** The entries' count and their earliest and latest times: what a listing shows without decoding the details. */
  stats?: EntryStats;
  /**
   * As JSON text (the cache file), as that text's UTF-8 bytes (a worker thread's answer for a long session: its
   * buffer is moved to the main thread, not copied into a string there), or as it is (a usage report's, copied by
   * structured clone).
   */
  detail: string | Uint8Array | PackedDetail;
  /** The file touches (`PackedTouches` as JSON), apart from the details: only the file history reads them. */
  touchDetail?: string;
}

/** [entry count, earliest time, latest time] (null when no entry has one). */
export type EntryStats = [count: number, first: number | null, last: number | null];

/** The stats of `times` (one per entry; NaN or null for an entry without a time). */
export function entryStatsOf(times: readonly (number | null)[]): EntryStats {
  let first = Infinity;
  let last = -Infinity;
  for (const t of times) {
    if (t === null || !Number.isFinite(t)) continue;
    if (t < first) first = t;
    if (t > last) last = t;
  }
  return [times.length, Number.isFinite(first) ? first : null, Number.isFinite(last) ? last : null];
}

export interface PackedDetail {
  ids: string;
  times: (number | null)[];
  /** [provider, model, source] triples used by the usage rows. */
  keys: [string, string, string][];
  /** Per record: entry index, time, key index, input, output, cacheRead, cacheWrite, totalTokens, cost, active. */
  usage: (number | null)[];
}

/** Per file touch: entry index, call index, tool call id, tool, kind, path, active (1 or 0). */
export type PackedTouches = (string | number)[];

export const USAGE_WIDTH = 10;
export const TOUCH_WIDTH = 7;

/**
 * A summary packed for the cache file. `detailAsText: false` keeps the details an object (a worker thread's answer:
 * structured clone copies its arrays faster than JSON would write and read them).
 */
export function packSummary(s: SessionSummary, detailAsText = true): SessionSummary | PackedSummary {
  if (!s.ok || s.entries.some(([id]) => id.includes("\n"))) return s;
  const index = new Map(s.entries.map(([id], i) => [id, i]));
  const keys: [string, string, string][] = [];
  const keyIndex = new Map<string, number>();
  const usage: (number | null)[] = [];
  for (const r of s.usage) {
    const k = JSON.stringify([r.provider, r.model, r.source]);
    let ki = keyIndex.get(k);
    if (ki === undefined) keyIndex.set(k, (ki = keys.push([r.provider, r.model, r.source]) - 1));
    const at = index.get(r.entryId);
    if (at === undefined) return s; // a record of a shadowed entry: keep it unpacked
    usage.push(
      at,
      Number.isFinite(r.time) ? r.time : null,
      ki,
      r.input,
      r.output,
      r.cacheRead,
      r.cacheWrite,
      r.totalTokens,
      r.cost,
      r.active ? 1 : 0,
    );
  }
  const touches: PackedTouches = [];
  for (const t of s.touches) {
    const at = index.get(t.entryId);
    if (at === undefined) return s;
    touches.push(at, t.index, t.toolCallId, t.tool, t.kind, t.path, t.active ? 1 : 0);
  }
  const { entries, usage: _usage, touches: _touches, ...rest } = s;
  const detail: PackedDetail = {
    ids: entries.map(([id]) => id).join("\n"),
    times: entries.map(([, t]) => (Number.isFinite(t) ? t : null)),
    keys,
    usage,
  };
  const packed: PackedSummary = {
    ...rest,
    packed: 2,
    stats: entryStatsOf(detail.times),
    detail: detailAsText ? JSON.stringify(detail) : detail,
  };
  if (touches.length) packed.touchDetail = JSON.stringify(touches);
  return packed;
}
