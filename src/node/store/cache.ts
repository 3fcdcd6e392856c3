/**
 * The persistent metadata cache: a session's summary keyed by (path, size, mtime in ns), so a second listing of an
 * unchanged store reads no session file. OMP rewrites its title slot in place (same size, new mtime), which the
 * mtime catches (docs/session-format.md#t2). The file is JSON lines: the listing first, then one details line per
 * session, decoded only when read.
 */
import { createHash } from "node:crypto";
import * as nodeFs from "node:fs/promises";
import { dirname, join } from "node:path";
import type { SessionSummary, SessionSummaryOk, TouchRecord } from "../../core/summary.js";
import {
  type EntryStats,
  entryStatsOf,
  type PackedDetail,
  type PackedSummary,
  packSummary,
  type PackedTouches,
  TOUCH_WIDTH,
  USAGE_WIDTH,
} from "../../core/summaryPack.js";
import type { UsageRecord } from "../../core/usage.js";
import { ensurePrivateDir } from "../cacheDir.js";
import { reviveTimes, timeOf } from "./cacheTimes.js";
import {
  checksum,
  type EncodedLine,
  detailAsText,
  encodedInPieces,
  encodeInPieces,
  type LineText,
  lineText,
  readHead,
  recoverDetails,
} from "./cacheLines.js";
import type { SessionRoot } from "../roots.js";
import { slicer } from "./fs.js";
import { yieldToEventLoop } from "../readSession.js";

export { packSummary, type PackedSummary } from "../../core/summaryPack.js";

type ListedSummary = SessionSummary | Omit<PackedSummary, "detail" | "touchDetail">;

/**
 * A cache entry as written: `d` numbers its details line and `c` is that line's checksum; `t` and `tc` the same for
 * its file touches (a line of their own, so that usage and listings never parse them).
 */
interface StoredEntry {
  size: number;
  mtimeNs: string;
  summary: ListedSummary;
  d?: number;
  c?: number;
  t?: number;
  tc?: number;
}

interface CacheEntry {
  size: number;
  mtimeNs: string;
  summary: SessionSummary;
  /**
   * The stored form, when the summary came from the cache file unchanged or was packed by a worker (saved without
   * packing it again).
   */
  stored?: { summary: ListedSummary; detail: () => string | Uint8Array | undefined; touches: LineText };
}

const STORED_USAGE = Symbol("stored usage records");
const ENTRY_STATS = Symbol("entry stats");

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
  // A worker's bytes are decoded when first read (most never are).
  const detailText = () =>
    (typeof own === "string" || own instanceof Uint8Array ? detailAsText(own) : detailOf?.()) ?? none;
  let detail: PackedDetail | undefined = typeof own === "object" && !(own instanceof Uint8Array) ? own : undefined;
  let ids: string[] | undefined;
  const details = () => (detail ??= JSON.parse(detailText()) as PackedDetail);
  const idList = () => (ids ??= details().ids === "" ? [] : details().ids.split("\n"));
  const summary = rest as unknown as SessionSummaryOk;
  if (stats) Object.defineProperty(summary, ENTRY_STATS, { enumerable: false, value: stats });
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
      const text = ownTouches ?? touchesOf?.();
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

/**
 * 12: a fork's naming facts in the listing (`laterPrompt`, `lastPrompt`, `nameTime`); details lines hold their JSON
 * as is (not a JSON string of it); file touches on lines of their own. 13: pi 1.6's usage records (`usage` entries,
 * branch summaries' and tool results' own usage), which summaries cached before did not hold. 14: pi 1.6's nested
 * calls as file touches. 16: an index of the details lines, which are read when used (issue #38). 17: the listing in
 * lines of 500 entries (parsed with the event loop let run between them).
 */
const CACHE_VERSION = 17;

/** Saves started by this process (each writes its own temporary file). */
let saves = 0;

export class MetadataCache {
  private entries = new Map<string, CacheEntry>();
  private dirty = false;
  /** Why the cache file's dir was refused (`ensurePrivateDir`); the cache is then neither read nor saved. */
  refusal: string | null = null;
  constructor(private readonly file: string | null) {}

  /**
   * The cache file is JSON lines: a header (version, and the lengths and checksums of the next two lines), the listing
   * (what the first level of the tree needs), an index of where each details line is, then one line of details (entry
   * ids, times, usage) per session, numbered from the listing with its checksum there, and a line of file touches for
   * a session that has any. Only the first three lines are read here: a details line is read from the file, and
   * checked, when it is first used (a long session's details are tens of MB that a listing never needs). A damaged
   * listing or index drops the whole cache; a details line found damaged, or gone (another process saved the cache
   * since), is made again from its session file (`recoverDetails`).
   */
  static async load(file: string | null): Promise<MetadataCache> {
    if (!file) return new MetadataCache(null);
    try {
      ensurePrivateDir(dirname(file));
    } catch (err) {
      // Not kept there, and not read from there: the listing reads the sessions instead and says why.
      const refused = new MetadataCache(null);
      refused.refusal = err instanceof Error ? err.message : String(err);
      return refused;
    }
    const cache = new MetadataCache(file);
    try {
      const head = await readHead<StoredEntry>(file, CACHE_VERSION);
      if (!head) return cache;
      const { listing, index, detailsAt } = head;
      // Unpacking 8,000 entries takes about 100 ms: in slices, so that an editor's event loop is never held that long.
      const tick = slicer(256);
      for (const [k, e] of Object.entries(listing)) {
        await tick();
        const detail = lineText(file, index, detailsAt, e.d, e.c, () => recoverDetails(k).detail);
        const touches = lineText(file, index, detailsAt, e.t, e.tc, () => recoverDetails(k).touches);
        if (!detail || !touches) continue; // damaged: dropped, read again
        cache.entries.set(k, {
          size: e.size,
          mtimeNs: e.mtimeNs,
          summary: unpackSummary(e.summary, detail, touches),
          stored: { summary: e.summary, detail, touches },
        });
      }
    } catch {
      /* no cache yet, or unreadable: start empty */
    }
    return cache;
  }

  /** Whether the cache holds a summary of `file` (of whatever size and time). */
  has(file: string): boolean {
    return this.entries.has(file);
  }

  get(file: string, size: number, mtimeNs: bigint): SessionSummary | undefined {
    const e = this.entries.get(file);
    return e && e.size === size && e.mtimeNs === String(mtimeNs) ? e.summary : undefined;
  }

  /**
   * Keep `summary` for the file. `packed`: the summary already packed (`packSummary`, as a worker thread answers),
   * saved as it is instead of being packed again from the summary's records.
   */
  set(
    file: string,
    size: number,
    mtimeNs: bigint,
    summary: SessionSummary,
    packed?: SessionSummary | PackedSummary,
  ): void {
    const entry: CacheEntry = { size, mtimeNs: String(mtimeNs), summary };
    if (packed && "packed" in packed) {
      const { detail, touchDetail, ...listing } = packed;
      entry.stored = {
        summary: listing,
        // A worker's bytes are written as they came (they are the details line's UTF-8).
        detail: () => (typeof detail === "string" || detail instanceof Uint8Array ? detail : JSON.stringify(detail)),
        touches: () => touchDetail,
      };
    }
    this.entries.set(file, entry);
    this.dirty = true;
  }

  /** Forget files that no longer exist. */
  retain(files: Set<string>): void {
    for (const k of this.entries.keys()) {
      if (!files.has(k)) {
        this.entries.delete(k);
        this.dirty = true;
      }
    }
  }

  /**
   * Write the cache: the listing in memory (small), each details line made and written one at a time, the event loop
   * let run between them (a long session's details are tens of MB of JSON: made all at once, they blocked an editor
   * for seconds and held the whole file in memory twice). Written to a temporary file, then renamed over the cache.
   */
  async save(): Promise<void> {
    if (!this.file || !this.dirty) return;
    ensurePrivateDir(dirname(this.file));
    // A name of its own per save: two loads of one store (a Refresh during a background pass) may save at once.
    const tmp = `${this.file}.${process.pid}.${++saves}.tmp`;
    const entries: Record<string, StoredEntry> = {};
    /** The details lines in file order, made when written; their numbers and checksums fill the listing first. */
    const lines: EncodedLine[] = [];
    // And after every few MB of small lines (8,000 of them held the event loop for 100 ms at once).
    let madeSinceYield = 0;
    for (const [k, e] of this.entries) {
      const { summary, detail, touches } = storedForm(e);
      const stored: StoredEntry = { size: e.size, mtimeNs: e.mtimeNs, summary };
      // A packed detail is one line of JSON (JSON.stringify writes no raw newline), encoded in pieces with the event
      // loop let run between them (see encodeInPieces).
      if (detail !== undefined) {
        const line = typeof detail === "string" ? await encodeInPieces(detail) : await encodedInPieces(detail);
        stored.d = lines.push(line) - 1;
        stored.c = line.sum;
      }
      if (touches !== undefined) {
        const line = await encodeInPieces(touches);
        stored.t = lines.push(line) - 1;
        stored.tc = line.sum;
      }
      entries[k] = stored;
      madeSinceYield += (detail?.length ?? 0) + (touches?.length ?? 0) + 512;
      if (madeSinceYield > 2 << 20) {
        madeSinceYield = 0;
        await yieldToEventLoop();
      }
    }
    const listing = await listingLines(entries);
    // Where each details line starts, from the first one's start (each line ends with its newline).
    const starts: [number, number][] = [];
    for (let i = 0, at = 0; i < lines.length; at += lines[i]!.length + 1, i++) starts.push([at, lines[i]!.length]);
    const index = Buffer.from(JSON.stringify(starts), "utf8");
    const header = JSON.stringify({
      version: CACHE_VERSION,
      listing: checksum(listing),
      bytes: listing.length,
      index: checksum(index),
      indexBytes: index.length,
    });
    // Owner-only, and a new file (`wx`): never written through a name someone else made.
    const handle = await nodeFs.open(tmp, "wx", 0o600);
    try {
      await handle.write(Buffer.from(`${header}\n`, "utf8"));
      await handle.write(listing);
      await handle.write(Buffer.from("\n"));
      await handle.write(index);
      await handle.write(Buffer.from("\n"));
      const newline = Buffer.from("\n");
      for (let i = 0; i < lines.length; i++) {
        await handle.writev([...lines[i]!.pieces, newline]);
        lines[i] = WRITTEN; // let it go
      }
    } finally {
      await handle.close();
    }
    await nodeFs.rename(tmp, this.file);
    this.dirty = false;
  }
}

const WRITTEN: EncodedLine = { pieces: [], length: 0, sum: 0 };
/** Entries per listing line: each is decoded and parsed (and made) with the event loop let run between them. */
const LISTING_LINE_ENTRIES = 500;
const NEWLINE = Buffer.from("\n");

/** The listing as lines of `{"entries":{…}}`, joined by newlines (one checksum covers them all). */
async function listingLines(entries: Record<string, StoredEntry>): Promise<Buffer> {
  const keys = Object.keys(entries);
  const lines: Buffer[] = [];
  for (let i = 0; i < keys.length || i === 0; i += LISTING_LINE_ENTRIES) {
    const part: Record<string, StoredEntry> = {};
    for (const k of keys.slice(i, i + LISTING_LINE_ENTRIES)) part[k] = entries[k]!;
    if (lines.length) await yieldToEventLoop();
    lines.push(Buffer.from(JSON.stringify({ entries: part }), "utf8"));
  }
  return Buffer.concat(lines.flatMap((l, i) => (i ? [NEWLINE, l] : [l])));
}

/** A cache entry as the file stores it: its listing part, and its details and touches lines when it has them. */
function storedForm(e: CacheEntry): { summary: ListedSummary; detail?: string | Uint8Array; touches?: string } {
  if (e.stored) {
    const summary = e.stored.summary;
    if (!("packed" in summary)) return { summary };
    const detail = e.stored.detail();
    const touches = e.stored.touches();
    return { summary, ...(detail !== undefined ? { detail } : {}), ...(touches !== undefined ? { touches } : {}) };
  }
  const packed = packSummary(e.summary);
  if (!("packed" in packed)) return { summary: packed };
  const { detail, touchDetail, ...listing } = packed;
  return { summary: listing, detail: detail as string, ...(touchDetail !== undefined ? { touches: touchDetail } : {}) };
}

/** A cache file name per set of roots, under `cacheDir`. */
export function cacheFileFor(cacheDir: string, roots: SessionRoot[]): string {
  const hash = createHash("sha256")
    .update(roots.map((r) => r.dir).join("\0"))
    .digest("hex")
    .slice(0, 16);
  return join(cacheDir, `store-${hash}.json`);
}
