/**
 * A packed summary (core/summaryPack.ts: what the cache file and the worker threads carry) back as a summary whose
 * per-entry details are decoded on first use: a listing needs only the packed fields, and a long session's details
 * are tens of MB. Until the cache is saved a summary holds the text or bytes it came with; once saved, it reads its
 * lines of the cache file instead (`readDetailsFromFile`).
 */
import type { SessionSummary, SessionSummaryOk, TouchRecord } from "../../core/summary.js";
import {
  type EntryStats,
  entryStatsOf,
  type PackedDetail,
  type PackedSummary,
  type PackedTouches,
  TOUCH_WIDTH,
  USAGE_WIDTH,
} from "../../core/summaryPack.js";
import type { UsageRecord } from "../../core/usage.js";
import { reviveTimes, timeOf } from "./cacheTimes.js";
import { detailAsText, type LineText } from "./cacheLines.js";

/** A summary as the cache's listing stores it: packed without its details, or whole (one that cannot be packed). */
export type ListedSummary = SessionSummary | Omit<PackedSummary, "detail" | "touchDetail">;

const STORED_USAGE = Symbol("stored usage records");
const ENTRY_STATS = Symbol("entry stats");
const READ_FROM_FILE = Symbol("read details from the cache file");

/** Points an unpacked summary's details at its lines in the saved cache file, letting go of what it was made with. */
export function readDetailsFromFile(summary: SessionSummary, detail: LineText, touches: LineText): void {
  (summary as unknown as Record<symbol, ((d: LineText, t: LineText) => void) | undefined>)[READ_FROM_FILE]?.(
    detail,
    touches,
  );
}

/**
 * A summary's entry count and earliest and latest entry times: from the stored listing when the summary came packed
 * (its details, which a long session's are tens of MB of, stay undecoded), else from its entries.
 */
export function entryStats(summary: SessionSummaryOk): EntryStats {
  const stored = (summary as unknown as Record<symbol, EntryStats | undefined>)[ENTRY_STATS];
  return stored ?? entryStatsOf(summary.entries.map(([, t]) => t));
}

/**
 * Each usage record of a summary, in order. From the cache's stored rows the same object is filled again for each
 * record (no object per record: a warm report over a store reads hundreds of thousands), so `fn` must not keep it.
 */
export function forEachUsage(summary: SessionSummaryOk, fn: (r: UsageRecord) => void): void {
  const stored = (summary as unknown as Record<symbol, ((fn: (r: UsageRecord) => void) => void) | undefined>)[
    STORED_USAGE
  ];
  if (stored) stored(fn);
  else for (const r of summary.usage) fn(r);
}

/**
 * A stored summary back as a summary; its details are decoded on first use (most are never read). `detailOf` gives
 * the details when the stored summary does not carry them (the cache file keeps them apart).
 */
export function unpackSummary(
  p: SessionSummary | PackedSummary | ListedSummary,
  detailOf?: LineText,
  touchesOf?: LineText,
): SessionSummary {
  if (!("packed" in p)) return reviveTimes(p);
  const { packed: _packed, detail: own, touchDetail: ownTouches, stats, ...rest } = p as PackedSummary;
  const none = '{"ids":"","times":[],"keys":[],"usage":[]}';
  // A worker's bytes are decoded when first read (most never are); once saved, read from the cache file instead.
  let held = typeof own === "string" || own instanceof Uint8Array ? own : undefined;
  let heldTouches = ownTouches;
  const detailText = () => (held !== undefined ? detailAsText(held) : detailOf?.()) ?? none;
  let detail: PackedDetail | undefined = typeof own === "object" && !(own instanceof Uint8Array) ? own : undefined;
  let ids: string[] | undefined;
  const details = () => (detail ??= JSON.parse(detailText()) as PackedDetail);
  const idList = () => (ids ??= details().ids === "" ? [] : details().ids.split("\n"));
  const summary = rest as unknown as SessionSummaryOk;
  if (stats) Object.defineProperty(summary, ENTRY_STATS, { enumerable: false, value: stats });
  Object.defineProperty(summary, READ_FROM_FILE, {
    enumerable: false,
    value: (d: LineText, t: LineText) => {
      [held, heldTouches, detailOf, touchesOf] = [undefined, undefined, d, t];
    },
  });
  summary.created = timeOf(summary.created);
  summary.lastActiveAt = timeOf(summary.lastActiveAt);
  let entries: [string, number][] | undefined;
  let usage: UsageRecord[] | undefined;
  let touches: TouchRecord[] | undefined;
  Object.defineProperty(summary, "entries", {
    enumerable: true,
    configurable: true,
    get: () => (entries ??= idList().map((id, i) => [id, details().times[i] ?? Number.NaN] as [string, number])),
    set: (v: [string, number][]) => (entries = v),
  });
  /** Each stored usage record, in order, into `into` (one object filled again per record) or a new one each. */
  const eachRow = (fn: (r: UsageRecord) => void, into?: UsageRecord) => {
    const list = idList();
    const { usage: rows, keys } = details();
    // Indexed reads, no slice per record: a warm usage report decodes every session's records.
    const n = (k: number) => rows[k] as number;
    for (let i = 0; i < rows.length; i += USAGE_WIDTH) {
      const [provider, model, source] = keys[n(i + 2)]!;
      const r: UsageRecord = into ?? ({} as UsageRecord);
      r.entryId = list[n(i)]!;
      r.time = rows[i + 1] ?? Number.NaN;
      r.source = source as UsageRecord["source"];
      r.provider = provider;
      r.model = model;
      r.input = n(i + 3);
      r.output = n(i + 4);
      r.cacheRead = n(i + 5);
      r.cacheWrite = n(i + 6);
      r.totalTokens = n(i + 7);
      r.cost = n(i + 8);
      r.active = rows[i + 9] === 1;
      fn(r);
    }
  };
  // A report that only adds the records up reads them without building one object per record (`forEachUsage`).
  Object.defineProperty(summary, STORED_USAGE, {
    enumerable: false,
    value: (fn: (r: UsageRecord) => void) => {
      if (usage) for (const r of usage) fn(r);
      else eachRow(fn, {} as UsageRecord);
    },
  });
  Object.defineProperty(summary, "usage", {
    enumerable: true,
    configurable: true,
    get: () => {
      if (usage) return usage;
      // Kept only once decoded whole: a details line that fails to decode fails every read, never reads as empty.
      const records: UsageRecord[] = [];
      eachRow((r) => records.push(r));
      return (usage = records);
    },
    set: (v: UsageRecord[]) => (usage = v),
  });
  Object.defineProperty(summary, "touches", {
    enumerable: true,
    configurable: true,
    get: () => {
      if (touches) return touches;
      const list = idList();
      const text = heldTouches ?? touchesOf?.();
      const rows = text === undefined ? [] : (JSON.parse(text) as PackedTouches);
      const times = details().times;
      touches = [];
      for (let i = 0; i < rows.length; i += TOUCH_WIDTH) {
        const [at, index, toolCallId, tool, kind, path, active] = rows.slice(i, i + TOUCH_WIDTH) as [
          number,
          number,
          string,
          string,
          TouchRecord["kind"],
          string,
          number,
        ];
        touches.push({
          entryId: list[at]!,
          time: times[at] ?? Number.NaN,
          index,
          toolCallId,
          tool,
          kind,
          path,
          active: active === 1,
        });
      }
      return touches;
    },
    set: (v: TouchRecord[]) => (touches = v),
  });
  return summary;
}
