/**
 * The persistent metadata cache: a session's summary keyed by (path, size, mtime in ns), so a second listing of an
 * unchanged store reads no session file. OMP rewrites its title slot in place (same size, new mtime), which the
 * mtime catches (docs/session-format.md#t2). The file is JSON lines: the listing first, then one details line per
 * session, decoded only when read.
 */
import { createHash } from "node:crypto";
import * as zlib from "node:zlib";
import * as nodeFs from "node:fs/promises";
import { dirname, join } from "node:path";
import type { SessionSummary, SessionSummaryOk, TouchRecord } from "../../core/summary.js";
import {
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
import { openRegular, readAt } from "../fileAccess.js";
import type { SessionRoot } from "../roots.js";

/** A cache file larger than this is not read (a store of 10,000 sessions writes a few tens of MB). */
const MAX_CACHE_BYTES = 512 * 1024 * 1024;

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

/** A stored line's text, read on first use. */
type LineText = () => string | undefined;

interface CacheEntry {
  size: number;
  mtimeNs: string;
  summary: SessionSummary;
  /**
   * The stored form, when the summary came from the cache file unchanged or was packed by a worker (saved without
   * packing it again).
   */
  stored?: { summary: ListedSummary; detail: LineText; touches: LineText };
}

const STORED_USAGE = Symbol("stored usage records");

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
  const { packed: _packed, detail: own, touchDetail: ownTouches, ...rest } = p as PackedSummary;
  const none = '{"ids":"","times":[],"keys":[],"usage":[]}';
  const detailText = () => (typeof own === "string" ? own : detailOf?.()) ?? none;
  let detail: PackedDetail | undefined = typeof own === "object" ? own : undefined;
  let ids: string[] | undefined;
  const details = () => (detail ??= JSON.parse(detailText()) as PackedDetail);
  const idList = () => (ids ??= details().ids === "" ? [] : details().ids.split("\n"));
  const summary = rest as unknown as SessionSummaryOk;
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
 * calls as file touches.
 */
const CACHE_VERSION = 15;

/** A checksum of bytes (CRC-32; a damaged cache line is found by it, not trusted). */
const checksum: (bytes: Uint8Array) => number =
  typeof zlib.crc32 === "function"
    ? (bytes) => zlib.crc32(bytes)
    : (bytes) => createHash("sha1").update(bytes).digest().readUInt32BE(0);

/** Saves started by this process (each writes its own temporary file). */
let saves = 0;

export class MetadataCache {
  private entries = new Map<string, CacheEntry>();
  private dirty = false;
  /** Why the cache file's dir was refused (`ensurePrivateDir`); the cache is then neither read nor saved. */
  refusal: string | null = null;
  constructor(private readonly file: string | null) {}

  /**
   * The cache file is JSON lines: a header (version, and the listing line's length and checksum), the listing (what
   * the first level of the tree needs), then one line of details (entry ids, times, usage) per session, numbered
   * from the listing, each with its checksum in the listing, and a line of file touches for a session that has any. A
   * damaged listing drops the whole cache; a damaged details line drops its entry, so that file is read again. A
   * details line is decoded when it is first read.
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
      // A regular file only, opened non-blocking, read up to the size its handle gave (a FIFO or a link to a device
      // planted at the name is refused); read as bytes and decoded once (a "utf8" read is 3× slower).
      const { handle, id } = await openRegular(file);
      let bytes: Buffer;
      try {
        if (id.size > MAX_CACHE_BYTES) return cache;
        bytes = await readAt(handle, 0, id.size);
      } finally {
        await handle.close();
      }
      const lines: [start: number, end: number][] = [];
      for (let at = 0; at < bytes.length;) {
        const nl = bytes.indexOf(10, at);
        const end = nl < 0 ? bytes.length : nl;
        lines.push([at, end]);
        at = end + 1;
      }
      const text = ([start, end]: [number, number]) => bytes.toString("utf8", start, end);
      const [head, listing, ...details] = lines;
      if (!head || !listing) return cache;
      const header = JSON.parse(text(head)) as { version?: unknown; listing?: unknown; bytes?: unknown };
      if (header.version !== CACHE_VERSION) return cache;
      if (header.bytes !== listing[1] - listing[0] || header.listing !== checksum(bytes.subarray(...listing)))
        return cache;
      const json = JSON.parse(text(listing)) as { entries?: Record<string, StoredEntry> };
      if (!json.entries || typeof json.entries !== "object") return cache;
      /** The text of the details line `at` (checked against `sum`), or null when it is damaged. */
      const lineText = (at: number | undefined, sum: number | undefined): LineText | null => {
        if (at === undefined) return () => undefined;
        const line = typeof at === "number" ? details[at] : undefined;
        if (!line || sum !== checksum(bytes.subarray(...line))) return null;
        let decoded: string | undefined;
        return () => (decoded ??= text(line));
      };
      for (const [k, e] of Object.entries(json.entries)) {
        const detail = lineText(e.d, e.c);
        const touches = lineText(e.t, e.tc);
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
        detail: () => (typeof detail === "string" ? detail : JSON.stringify(detail)),
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
    const lines: Buffer[] = [];
    for (const [k, e] of this.entries) {
      const { summary, detail, touches } = storedForm(e);
      const stored: StoredEntry = { size: e.size, mtimeNs: e.mtimeNs, summary };
      // A packed detail is one line of JSON (JSON.stringify writes no raw newline).
      if (detail !== undefined) {
        const bytes = Buffer.from(detail, "utf8");
        stored.d = lines.push(bytes) - 1;
        stored.c = checksum(bytes);
      }
      if (touches !== undefined) {
        const bytes = Buffer.from(touches, "utf8");
        stored.t = lines.push(bytes) - 1;
        stored.tc = checksum(bytes);
      }
      entries[k] = stored;
      if (detail !== undefined && detail.length > 1 << 20) await yieldNow();
    }
    const listing = Buffer.from(JSON.stringify({ entries }), "utf8");
    const header = JSON.stringify({ version: CACHE_VERSION, listing: checksum(listing), bytes: listing.length });
    // Owner-only, and a new file (`wx`): never written through a name someone else made.
    const handle = await nodeFs.open(tmp, "wx", 0o600);
    try {
      await handle.write(Buffer.from(`${header}\n`, "utf8"));
      await handle.write(listing);
      await handle.write(Buffer.from("\n"));
      const newline = Buffer.from("\n");
      for (let i = 0; i < lines.length; i++) {
        await handle.writev([lines[i]!, newline]);
        lines[i] = EMPTY; // written: let it go
      }
    } finally {
      await handle.close();
    }
    await nodeFs.rename(tmp, this.file);
    this.dirty = false;
  }
}

const EMPTY = Buffer.alloc(0);
const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A cache entry as the file stores it: its listing part, and its details and touches lines when it has them. */
function storedForm(e: CacheEntry): { summary: ListedSummary; detail?: string; touches?: string } {
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
