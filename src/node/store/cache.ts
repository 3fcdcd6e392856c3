/**
 * The persistent metadata cache: a session's summary keyed by (path, size, mtime in ns), so a second listing of an
 * unchanged store reads no session file. OMP rewrites its title slot in place (same size, new mtime), which the
 * mtime catches (docs/session-format.md#t2). The file is JSON lines: the listing first, then one details line per
 * session, decoded only when read.
 */
import { createHash } from "node:crypto";
import * as nodeFs from "node:fs/promises";
import { dirname, join } from "node:path";
import type { SessionSummary } from "../../core/summary.js";
import { type PackedSummary, packSummary } from "../../core/summaryPack.js";
import { ensurePrivateDir } from "../cacheDir.js";
import { type ListedSummary, readDetailsFromFile, unpackSummary } from "./unpack.js";
import { DetailSpill, removeLeftovers } from "./cacheSpill.js";
import {
  checksum,
  encodedInPieces,
  encodeInPieces,
  type LineSource,
  type LineText,
  lineText,
  openLineSource,
  readHead,
  recoverDetails,
} from "./cacheLines.js";
import type { SessionRoot } from "../roots.js";
import { slicer } from "./fs.js";
import { yieldToEventLoop } from "../readSession.js";

export { packSummary, type PackedSummary } from "../../core/summaryPack.js";

export { entryStats, forEachUsage, unpackSummary } from "./unpack.js";

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
  /** Its lines in the spill (node/store/cacheSpill.ts) that the next save copies. */
  spilled?: SpilledLines;
}

/** An entry's details and touches lines as written to a spill: their numbers there and their checksums. */
interface SpilledLines {
  spill: DetailSpill;
  /** The entry's listing part, as saved with these lines. */
  summary: ListedSummary;
  d?: number;
  c?: number;
  t?: number;
  tc?: number;
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
  /** Where kept summaries' details are written until the next save (node/store/cacheSpill.ts). */
  private spill: DetailSpill | null = null;
  /** The spills and saves, one after the other. */
  private chain: Promise<void> = Promise.resolve();
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
    await removeLeftovers(file);
    try {
      // Opened first: the lines are read from the file whose head is read next, whoever saves over its name later.
      const source = openLineSource(file);
      const head = await readHead<StoredEntry>(file, CACHE_VERSION);
      if (!head) return cache;
      const { listing, index, detailsAt } = head;
      // Unpacking 8,000 entries takes about 100 ms: in slices, so that an editor's event loop is never held that long.
      const tick = slicer(256);
      for (const [k, e] of Object.entries(listing)) {
        await tick();
        const lines = storedLines(source, index, detailsAt, k, e);
        if (!lines) continue; // damaged: dropped, read again
        cache.entries.set(k, {
          size: e.size,
          mtimeNs: e.mtimeNs,
          summary: unpackSummary(e.summary, lines.detail, lines.touches),
          stored: { summary: e.summary, ...lines },
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
    if (entry.stored && this.file) void this.queue(() => this.spillEntry(file, entry));
  }

  /** Whatever was kept so far written to the spill (a caller about to exit, and tests). */
  async settled(): Promise<void> {
    await this.chain;
  }

  /** `step` after every spill and save queued before it; its failure is its caller's, not the next step's. */
  private queue(step: () => Promise<void>): Promise<void> {
    const run = this.chain.then(step);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /**
   * A kept entry's details and touches written to the spill, then read back from there (unless it was replaced
   * meanwhile): the text and bytes it came with are let go as the pass goes on, not at its end.
   */
  private async spillEntry(k: string, e: CacheEntry): Promise<void> {
    if (this.entries.get(k) !== e || !e.stored || !("packed" in e.stored.summary)) return;
    const spill = this.openSpill();
    const { lines } = await writeLines(spill, e);
    if (this.entries.get(k) !== e) return;
    e.spilled = lines;
    readFrom(e, storedLines(spill.source, spill.index, 0, k, lines));
  }

  private openSpill(): DetailSpill {
    return (this.spill ??= new DetailSpill(this.file!, () => ++saves));
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
    if (!this.file) return;
    // Not dirty: a save may still be under way; this one ends after it, as the cache file it writes.
    if (!this.dirty) return this.settled();
    await this.queue(() => this.saveNow(this.file!));
  }

  private async saveNow(file: string): Promise<void> {
    // A save queued behind another may find nothing left to save.
    if (!this.dirty) return;
    ensurePrivateDir(dirname(file));
    // A name of its own per save: two loads of one store (a Refresh during a background pass) may save at once.
    const tmp = `${file}.${process.pid}.${++saves}.tmp`;
    // A summary kept while this saves makes the cache dirty again.
    this.dirty = false;
    try {
      const { saved, entries, starts, detailsAt } = await this.writeFile(tmp);
      // Opened before the rename: the file this wrote, whoever saves over its name later.
      const source = openLineSource(tmp);
      await nodeFs.rename(tmp, file);
      await this.readFromSaved(source, saved, entries, starts, detailsAt);
    } catch (err) {
      this.dirty = true;
      await nodeFs.rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
    const spill = this.spill;
    this.spill = null;
    await spill?.remove().catch(() => undefined);
  }

  /**
   * The cache written to `tmp`: the listing (with each details line's number and checksum), the index of the lines,
   * then the lines, copied from the spill. Lines of entries kept since the last save are there already; the others
   * are written there first, one at a time (made all before the listing, they were the whole cache's details in
   * memory at once: 146 MB for 8,000 sessions).
   */
  private async writeFile(tmp: string): Promise<{
    saved: [string, CacheEntry][];
    entries: Record<string, StoredEntry>;
    starts: [number, number][];
    detailsAt: number;
  }> {
    const entries: Record<string, StoredEntry> = {};
    const saved: [string, CacheEntry][] = [];
    const spill = this.openSpill();
    // And after every few MB of small lines (8,000 of them held the event loop for 100 ms at once).
    let madeSinceYield = 0;
    for (const [k, e] of this.entries) {
      // Written to this spill before (kept since the last save, or by a save that failed): not again.
      const { summary, lines, made } =
        e.spilled?.spill === spill
          ? { summary: e.spilled.summary, lines: e.spilled, made: 0 }
          : await writeLines(spill, e);
      e.spilled = lines;
      const { d, c, t, tc } = lines;
      entries[k] = { size: e.size, mtimeNs: e.mtimeNs, summary, d, c, t, tc };
      saved.push([k, e]);
      madeSinceYield += made + 512;
      if (madeSinceYield > 2 << 20) {
        madeSinceYield = 0;
        await yieldToEventLoop();
      }
    }
    const listing = await listingLines(entries);
    const index = Buffer.from(JSON.stringify(spill.index), "utf8");
    const header = Buffer.from(
      `${JSON.stringify({
        version: CACHE_VERSION,
        listing: checksum(listing),
        bytes: listing.length,
        index: checksum(index),
        indexBytes: index.length,
      })}\n`,
      "utf8",
    );
    // Owner-only, and a new file (`wx`): never written through a name someone else made.
    const out = await nodeFs.open(tmp, "wx", 0o600);
    try {
      await out.writev([header, listing, NEWLINE, index, NEWLINE]);
      await spill.copyTo(out);
    } finally {
      await out.close();
    }
    return { saved, entries, starts: spill.index, detailsAt: header.length + listing.length + index.length + 2 };
  }

  /**
   * The entries just saved, pointed at their lines in the file written (unless replaced meanwhile): the text and
   * bytes they were made or read with are let go (a cold pass of 8,000 sessions held 146 MB of them).
   */
  private async readFromSaved(
    source: LineSource | null,
    saved: [string, CacheEntry][],
    entries: Record<string, StoredEntry>,
    index: [number, number][],
    detailsAt: number,
  ): Promise<void> {
    // In slices: 8,000 entries took 23 ms at once.
    const tick = slicer(1000);
    for (const [k, e] of saved) {
      await tick();
      const s = entries[k]!;
      if (this.entries.get(k) !== e) continue;
      e.spilled = undefined;
      if ("packed" in s.summary) readFrom(e, storedLines(source, index, detailsAt, k, s));
    }
  }
}

/**
 * An entry's details and touches lines in `source`, read when used (made again from session file `k` when damaged
 * or gone); null when the index has no such line.
 */
function storedLines(
  source: LineSource | null,
  index: [number, number][],
  detailsAt: number,
  k: string,
  at: Pick<StoredEntry, "d" | "c" | "t" | "tc">,
): { detail: LineText; touches: LineText } | null {
  const detail = lineText(source, index, detailsAt, at.d, at.c, () => recoverDetails(k).detail);
  const touches = lineText(source, index, detailsAt, at.t, at.tc, () => recoverDetails(k).touches);
  return detail && touches ? { detail, touches } : null;
}

/** A kept entry (and its summary) pointed at its stored lines: the text and bytes it was made with are let go. */
function readFrom(e: CacheEntry, lines: { detail: LineText; touches: LineText } | null): void {
  if (!e.stored || !lines) return;
  e.stored = { summary: e.stored.summary, ...lines };
  readDetailsFromFile(e.summary, lines.detail, lines.touches);
}

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

/**
 * An entry's details and touches lines appended to `spill`, with its listing part and how many characters were made.
 */
async function writeLines(
  spill: DetailSpill,
  e: CacheEntry,
): Promise<{ summary: ListedSummary; lines: SpilledLines; made: number }> {
  const { summary, detail, touches } = storedForm(e);
  const lines: SpilledLines = { spill, summary };
  // A packed detail is one line of JSON (JSON.stringify writes no raw newline), encoded in pieces with the event loop
  // let run between them (see encodeInPieces).
  if (detail !== undefined) {
    const line = typeof detail === "string" ? await encodeInPieces(detail) : await encodedInPieces(detail);
    [lines.d, lines.c] = [await spill.append(line), line.sum];
  }
  if (touches !== undefined) {
    const line = await encodeInPieces(touches);
    [lines.t, lines.tc] = [await spill.append(line), line.sum];
  }
  return { summary, lines, made: (detail?.length ?? 0) + (touches?.length ?? 0) };
}

/** A cache file name per set of roots, under `cacheDir`. */
export function cacheFileFor(cacheDir: string, roots: SessionRoot[]): string {
  const hash = createHash("sha256")
    .update(roots.map((r) => r.dir).join("\0"))
    .digest("hex")
    .slice(0, 16);
  return join(cacheDir, `store-${hash}.json`);
}
