/**
 * Reading the metadata cache file (node/store/cache.ts) without its details: its header, listing and index of
 * details lines at load, each details line from the file when a summary's details are first used, checked against its
 * checksum; and a details line made again from its session file when the one in the cache is damaged or gone.
 */
import { closeSync, readSync, statSync } from "node:fs";
import * as zlib from "node:zlib";
import { createHash } from "node:crypto";
import { packSummary } from "../../core/summaryPack.js";
import { openRegular, openRegularSync, readAt } from "../fileAccess.js";
import type { SessionSummary } from "../../core/summary.js";
import { summarizeFileSync } from "./summarizeFile.js";
import { yieldToEventLoop } from "../readSession.js";

/** A cache file larger than this is not read (a heavy user's store of 8,000 sessions writes about 150 MB). */
const MAX_CACHE_BYTES = 512 * 1024 * 1024;
/** What is read first to find the header line. */
const HEAD_PROBE = 4096;

/** A checksum of bytes (CRC-32; a damaged cache line is found by it, not trusted). */
export const checksum: (bytes: Uint8Array) => number =
  typeof zlib.crc32 === "function"
    ? (bytes) => zlib.crc32(bytes)
    : (bytes) => createHash("sha1").update(bytes).digest().readUInt32BE(0);

/** Characters encoded at a time when a line is made (a long session's details are tens of MB of JSON). */
const PIECE_CHARS = 1 << 20;

/** A line as bytes in pieces, its length and its checksum (the same as `checksum` of the pieces joined). */
export interface EncodedLine {
  pieces: Buffer[];
  length: number;
  sum: number;
}

/**
 * `text` as UTF-8 in pieces of about a MB, with the event loop let run between them: encoding 50 MB at once held an
 * editor for 70 ms. A piece never ends inside a surrogate pair.
 */
export async function encodeInPieces(text: string): Promise<EncodedLine> {
  const pieces: Buffer[] = [];
  const sum = runningSum();
  for (let i = 0; i < text.length || i === 0;) {
    let end = Math.min(text.length, i + PIECE_CHARS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    const piece = Buffer.from(text.slice(i, end), "utf8");
    sum.add(piece);
    pieces.push(piece);
    i = end;
    if (i >= text.length) break;
    await yieldToEventLoop();
  }
  return { pieces, length: sum.length, sum: sum.value() };
}

/**
 * A line already encoded (a worker thread's UTF-8 bytes), checksummed in pieces with the event loop let run between
 * them, as `encodeInPieces` does.
 */
export async function encodedInPieces(bytes: Uint8Array): Promise<EncodedLine> {
  const whole = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sum = runningSum();
  for (let i = 0; i < whole.length; i += PIECE_CHARS) {
    sum.add(whole.subarray(i, i + PIECE_CHARS));
    if (i + PIECE_CHARS < whole.length) await yieldToEventLoop();
  }
  return { pieces: [whole], length: sum.length, sum: sum.value() };
}

/** `checksum` of bytes given a piece at a time, and their length. */
function runningSum(): { add(piece: Uint8Array): void; value(): number; length: number } {
  const hash = typeof zlib.crc32 === "function" ? null : createHash("sha1");
  let crc = 0;
  return {
    length: 0,
    add(piece) {
      this.length += piece.length;
      if (hash) hash.update(piece);
      else crc = zlib.crc32(piece, crc);
    },
    value: () => (hash ? hash.digest().readUInt32BE(0) : crc),
  };
}

/** A detail as the cache's text: bytes decoded, an object written as JSON. */
export function detailAsText(detail: string | Uint8Array | object): string {
  if (typeof detail === "string") return detail;
  return detail instanceof Uint8Array ? new TextDecoder().decode(detail) : JSON.stringify(detail);
}

/** A stored line's text, read on first use. */
export type LineText = () => string | undefined;

interface Head<T> {
  listing: Record<string, T>;
  /** [start, length] of each details line, from `detailsAt`. */
  index: [number, number][];
  detailsAt: number;
}

/** The header, listing and index of a cache file of `version`, checked; null when it is not one (or damaged). */
export async function readHead<T>(file: string, version: number): Promise<Head<T> | null> {
  // A regular file only, opened non-blocking, read up to the size its handle gave (a FIFO or a link to a device
  // planted at the name is refused); read as bytes and decoded once (a "utf8" read is 3× slower).
  const { handle, id } = await openRegular(file);
  try {
    if (id.size > MAX_CACHE_BYTES) return null;
    const probe = await readAt(handle, 0, Math.min(HEAD_PROBE, id.size));
    const nl = probe.indexOf(10);
    if (nl < 0) return null;
    const header = JSON.parse(probe.toString("utf8", 0, nl)) as Record<string, unknown>;
    const { listing: listingSum, bytes, index: indexSum, indexBytes } = header;
    if (header.version !== version || typeof bytes !== "number" || typeof indexBytes !== "number") return null;
    const both = await readAt(handle, nl + 1, bytes + 1 + indexBytes);
    if (both.length !== bytes + 1 + indexBytes) return null;
    const listingBytes = both.subarray(0, bytes);
    const indexBytesRead = both.subarray(bytes + 1);
    if (checksum(listingBytes) !== listingSum || checksum(indexBytesRead) !== indexSum) return null;
    const listing = await parseListing<T>(listingBytes);
    const index = JSON.parse(indexBytesRead.toString("utf8")) as [number, number][];
    if (!listing || !Array.isArray(index)) return null;
    const detailsAt = nl + 1 + bytes + 1 + indexBytes + 1;
    // An index that points past the end of the file is no index of it.
    for (const [start, length] of index) if (!(detailsAt + start + length <= id.size)) return null;
    return { listing, index, detailsAt };
  } finally {
    await handle.close();
  }
}

/**
 * The listing's lines (a few hundred entries each), decoded and parsed one at a time with the event loop let run
 * between them: 8,000 entries are about 8 MB of JSON, 55 ms to decode and parse at once. Null when one is not a
 * listing line.
 */
async function parseListing<T>(bytes: Buffer): Promise<Record<string, T> | null> {
  const listing: Record<string, T> = {};
  for (let start = 0; start < bytes.length;) {
    const nl = bytes.indexOf(10, start);
    const end = nl < 0 ? bytes.length : nl;
    const chunk = (JSON.parse(bytes.toString("utf8", start, end)) as { entries?: Record<string, T> } | null)?.entries;
    if (!chunk || typeof chunk !== "object") return null;
    Object.assign(listing, chunk);
    start = end + 1;
    if (start < bytes.length) await yieldToEventLoop();
  }
  return listing;
}

/**
 * An open cache or spill file that details lines are read from: the file as it was written, even after another
 * process's save renamed a new one over its name (read by name, every line of every session was made again from its
 * session file on the next save). Closed once nothing can read through it (`openLineSource`), or by its spill.
 */
export interface LineSource {
  readonly fd: number;
}

const closeUnreachable = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    /* closed already */
  }
});

/** `file` opened as a line source (a regular file only); null when it cannot be (its lines are then made again). */
export function openLineSource(file: string): LineSource | null {
  try {
    const { fd } = openRegularSync(file);
    const source: LineSource = { fd };
    closeUnreachable.register(source, fd);
    return source;
  } catch {
    return null;
  }
}

/**
 * The text of details line `at` of `source` (checked against `sum` when read), or, when it is damaged or gone, what
 * `recover` makes; `() => undefined` when the entry has no such line, and null when the index has no line `at`.
 */
export function lineText(
  source: LineSource | null,
  index: [number, number][],
  detailsAt: number,
  at: number | undefined,
  sum: number | undefined,
  recover: () => string | undefined,
): LineText | null {
  if (at === undefined) return () => undefined;
  const where = typeof at === "number" ? index[at] : undefined;
  if (!where) return null;
  // Read each time it is asked for, never kept here: a summary keeps what it decoded, and a save that reads every
  // line to write it again must not leave the whole cache's details in memory (issue #38).
  return () => (source && readLine(source.fd, detailsAt + where[0], where[1], sum)) ?? recover();
}

function readLine(fd: number, position: number, length: number, sum: number | undefined): string | undefined {
  try {
    const bytes = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, bytes, got, length - got, position + got);
      if (n === 0) return undefined;
      got += n;
    }
    return checksum(bytes) === sum ? bytes.toString("utf8") : undefined;
  } catch {
    return undefined;
  }
}

/** Details made again, per session file: the cache's line was damaged, or the file was saved over since. */
const recovered = new Map<string, { detail?: string; touches?: string }>();
let recoveries = 0;

/** How many sessions' details were made again from their files (what a damaged cache cost; tests read it). */
export const detailsRecovered = (): number => recoveries;

/**
 * A session's details and touches lines made from its file as a listing reads it. Throws when the file cannot be
 * read (its summary cannot be trusted without them).
 */
export function recoverDetails(sessionFile: string): { detail?: string; touches?: string } {
  // Kept for the file as it is now (its details and its touches are asked for one after the other).
  let key: string;
  try {
    const s = statSync(sessionFile);
    key = `${sessionFile}\0${s.size}\0${s.mtimeMs}`;
  } catch (err) {
    throw new Error(`${sessionFile}: ${err instanceof Error ? err.message : String(err)}`);
  }
  let r = recovered.get(key);
  if (r) return r;
  recoveries++;
  const summary = summarizeFileSync(sessionFile, "full");
  if (typeof summary === "string") throw new Error(`${sessionFile}: ${summary}`);
  const packed = "packed" in summary ? summary : packSummary(summary as SessionSummary);
  if (!("packed" in packed)) throw new Error(`${sessionFile}: its details cannot be stored`);
  r = {
    detail: detailAsText(packed.detail),
    ...(packed.touchDetail !== undefined ? { touches: packed.touchDetail } : {}),
  };
  recovered.set(key, r);
  while (recovered.size > 16) recovered.delete(recovered.keys().next().value!);
  return r;
}
