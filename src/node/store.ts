/**
 * The session store: every session file under the configured roots, fork lineage, and fork-aware ownership of
 * entries (so usage is counted exactly once). Listing stays cheap through a persistent metadata cache keyed by
 * (path, size, mtime in ns): a second listing of an unchanged store reads no session file, and OMP's in-place
 * title-slot rewrite (same size, new mtime) invalidates the entry (T2).
 */
import { createHash } from "node:crypto";
import * as syncFs from "node:fs";
import * as nodeFs from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { cwdMatches, type HostPaths, slugMatches, workspaceSlugVariants } from "../core/slug.js";
import { probeSummary, type SessionSummary, type SessionSummaryOk, summarize } from "../core/summary.js";
import type { UsageRecord } from "../core/usage.js";
import { parseSessionSliced } from "./readSession.js";
import type { SessionRoot } from "./roots.js";

/**
 * The file-system calls the store makes; tests wrap the real ones to count reads. Listing calls (directory entries,
 * stats, a few KB at each end of a file) are synchronous: each takes microseconds, where an asynchronous call costs a
 * thread-pool round trip; the store does them in slices and yields to the event loop between slices. Whole files
 * are read asynchronously.
 */
export interface StoreFs {
  readdir(dir: string): { name: string; isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }[];
  stat(file: string): { size: number; mtimeNs: bigint; isFile(): boolean; isDirectory(): boolean };
  readFile(file: string): Promise<Uint8Array>;
  /** Up to `length` bytes at `position`, and as many at `position2` after them, from one open of the file. */
  readRange(file: string, position: number, length: number, position2?: number): Uint8Array;
  realpath(p: string): string;
}

export const realFs: StoreFs = {
  readdir: (dir) => syncFs.readdirSync(dir, { withFileTypes: true }),
  stat: (file) => {
    const s = syncFs.statSync(file, { bigint: true });
    return { size: Number(s.size), mtimeNs: s.mtimeNs, isFile: () => s.isFile(), isDirectory: () => s.isDirectory() };
  },
  readFile: (file) => nodeFs.readFile(file),
  readRange: (file, position, length, position2) => {
    const fd = syncFs.openSync(file, "r");
    try {
      const buf = Buffer.alloc(position2 === undefined ? length : 2 * length);
      const first = syncFs.readSync(fd, buf, 0, length, position);
      if (position2 === undefined) return buf.subarray(0, first);
      const second = syncFs.readSync(fd, buf, length, length, position2);
      return Buffer.concat([buf.subarray(0, first), buf.subarray(length, length + second)]);
    } finally {
      syncFs.closeSync(fd);
    }
  },
  realpath: (p) => syncFs.realpathSync(p),
};

/** Lets the event loop run every `every` calls of `tick()` (file-system calls in a listing are done in slices). */
function slicer(every: number): () => Promise<void> | undefined {
  let n = 0;
  return () => (++n % every === 0 ? new Promise<void>((r) => setImmediate(r)) : undefined);
}

export interface DiscoveredFile {
  file: string;
  root: SessionRoot;
  /** The slug folder the file is in, or null for a flat file directly in a root. */
  slug: string | null;
  /** For OMP subagent and /tan sessions inside a session's artifacts dir: that session's file. */
  nestedIn: string | null;
  size: number;
  mtimeNs: bigint;
}

const isSessionFileName = (name: string) => name.endsWith(".jsonl") && !name.startsWith(".");

/**
 * Walk the roots: `<root>/*.jsonl` (flat dirs), `<root>/<slug>/*.jsonl`, and nested sessions one level deeper
 * inside a session's artifacts dir (`<slug>/<session>/*.jsonl`, T23). Locks, tmp and bak siblings don't end in
 * `.jsonl` or start with a dot and are skipped; a symlink is followed only if it stays inside its root.
 */
export async function discover(
  roots: SessionRoot[],
  fs: StoreFs = realFs,
): Promise<{ files: DiscoveredFile[]; errors: { path: string; message: string }[] }> {
  const files: DiscoveredFile[] = [];
  const errors: { path: string; message: string }[] = [];
  const seen = new Set<string>();
  const tick = slicer(256);
  for (const root of roots) {
    let rootReal: string;
    try {
      rootReal = fs.realpath(root.dir);
    } catch {
      continue; // a root that does not exist is simply empty
    }
    const list = (dir: string) => {
      try {
        return fs.readdir(dir);
      } catch (err) {
        errors.push({ path: dir, message: String((err as Error).message) });
        return [];
      }
    };
    /** Resolve a dirent to "file" | "dir" | null, refusing symlinks that leave the root. */
    const kind = (path: string, d: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }) => {
      if (!d.isSymbolicLink()) return d.isFile() ? "file" : d.isDirectory() ? "dir" : null;
      try {
        const target = fs.realpath(path);
        if (target !== rootReal && !target.startsWith(rootReal + sep)) return null;
        const st = fs.stat(target);
        return st.isFile() ? "file" : st.isDirectory() ? "dir" : null;
      } catch {
        return null;
      }
    };
    const addFile = (file: string, slug: string | null, nestedIn: string | null) => {
      if (seen.has(file)) return;
      seen.add(file);
      try {
        const st = fs.stat(file);
        files.push({ file, root, slug, nestedIn, size: st.size, mtimeNs: st.mtimeNs });
      } catch (err) {
        // vanished meanwhile: left out
        errors.push({ path: file, message: String((err as Error).message) });
      }
    };
    /** Sessions in `dir` (a root or a slug folder), plus nested ones in their artifacts dirs. */
    const scanSessionDir = async (dir: string, slug: string | null, subdirsAreSlugs: boolean) => {
      const dirents = list(dir);
      const names = new Set(dirents.map((d) => d.name));
      const subdirs: string[] = [];
      for (const d of dirents) {
        const k = kind(join(dir, d.name), d);
        if (k === "file" && isSessionFileName(d.name)) addFile(join(dir, d.name), slug, null);
        else if (k === "dir" && !d.name.startsWith(".")) subdirs.push(d.name);
        await tick();
      }
      for (const name of subdirs) {
        if (!names.has(`${name}.jsonl`)) continue;
        // the artifacts dir of session <name>.jsonl: nested subagent and /tan sessions
        const path = join(dir, name);
        for (const n of list(path)) {
          const np = join(path, n.name);
          if (isSessionFileName(n.name) && kind(np, n) === "file") addFile(np, slug, join(dir, `${name}.jsonl`));
          await tick();
        }
      }
      for (const name of subdirs) {
        if (!names.has(`${name}.jsonl`) && subdirsAreSlugs) await scanSessionDir(join(dir, name), name, false);
      }
    };
    await scanSessionDir(root.dir, null, true);
  }
  return { files, errors };
}

// ------------------------------------------------------------------------------------------------
// Persistent metadata cache

/** A cache entry as written: `d` numbers its details line. */
interface StoredEntry {
  size: number;
  mtimeNs: string;
  summary: SessionSummary | Omit<PackedSummary, "detail">;
  d?: number;
}

interface CacheEntry {
  size: number;
  mtimeNs: string;
  summary: SessionSummary;
  /** The stored form, when the summary came from the cache file unchanged (saved again without re-packing). */
  stored?: { summary: SessionSummary | Omit<PackedSummary, "detail">; detail: () => string | undefined };
}

/**
 * A summary as stored. What a listing shows is plain JSON; the per-entry details (entry ids, times, usage records)
 * are one JSON string, so loading the cache scans them as text and decodes a session's details only when they are
 * read (fork ownership, usage panels). Entry ids are one string, times and usage flat number arrays.
 */
interface PackedSummary extends Omit<SessionSummaryOk, "entries" | "usage"> {
  packed: 2;
  detail: string;
}

interface PackedDetail {
  ids: string;
  times: (number | null)[];
  /** [provider, model, source] triples used by the usage rows. */
  keys: [string, string, string][];
  /** Per record: entry index, time, key index, input, output, cacheRead, cacheWrite, totalTokens, cost, active. */
  usage: (number | null)[];
}

const USAGE_WIDTH = 10;

export function packSummary(s: SessionSummary): SessionSummary | PackedSummary {
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
  const { entries, usage: _usage, ...rest } = s;
  const detail: PackedDetail = {
    ids: entries.map(([id]) => id).join("\n"),
    times: entries.map(([, t]) => (Number.isFinite(t) ? t : null)),
    keys,
    usage,
  };
  return { ...rest, packed: 2, detail: JSON.stringify(detail) };
}

/**
 * A stored summary back as a summary; its details are decoded on first use (most are never read). `detailOf` gives
 * the details when the stored summary does not carry them (the cache file keeps them apart).
 */
export function unpackSummary(
  p: SessionSummary | PackedSummary | Omit<PackedSummary, "detail">,
  detailOf?: () => string | undefined,
): SessionSummary {
  if (!("packed" in p)) return p;
  const { packed: _packed, detail: own, ...rest } = p as PackedSummary;
  const detailText = () => own ?? detailOf?.() ?? '{"ids":"","times":[],"keys":[],"usage":[]}';
  let detail: PackedDetail | undefined;
  let ids: string[] | undefined;
  const details = () => (detail ??= JSON.parse(detailText()) as PackedDetail);
  const idList = () => (ids ??= details().ids === "" ? [] : details().ids.split("\n"));
  const summary = rest as unknown as SessionSummaryOk;
  let entries: [string, number][] | undefined;
  let usage: UsageRecord[] | undefined;
  Object.defineProperty(summary, "entries", {
    enumerable: true,
    configurable: true,
    get: () => (entries ??= idList().map((id, i) => [id, details().times[i] ?? Number.NaN] as [string, number])),
    set: (v: [string, number][]) => (entries = v),
  });
  Object.defineProperty(summary, "usage", {
    enumerable: true,
    configurable: true,
    get: () => {
      if (usage) return usage;
      const list = idList();
      const { usage: rows, keys } = details();
      usage = [];
      for (let i = 0; i < rows.length; i += USAGE_WIDTH) {
        const [at, time, ki, input, output, cacheRead, cacheWrite, totalTokens, cost, active] = rows.slice(
          i,
          i + USAGE_WIDTH,
        ) as number[];
        const [provider, model, source] = keys[ki!]!;
        usage.push({
          entryId: list[at!]!,
          time: time ?? Number.NaN,
          source: source as UsageRecord["source"],
          provider,
          model,
          input: input!,
          output: output!,
          cacheRead: cacheRead!,
          cacheWrite: cacheWrite!,
          totalTokens: totalTokens!,
          cost: cost!,
          active: active === 1,
        });
      }
      return usage;
    },
    set: (v: UsageRecord[]) => (usage = v),
  });
  return summary;
}

const CACHE_VERSION = 6;

export class MetadataCache {
  private entries = new Map<string, CacheEntry>();
  private dirty = false;
  constructor(private readonly file: string | null) {}

  /**
   * The cache file is JSON lines: first the listing (what the first level of the tree needs), then one line of
   * details (entry ids, times, usage) per session, numbered from the listing. A load parses the first line only; a
   * session's details line is parsed the first time its details are read (fork ownership, usage panels).
   */
  static async load(file: string | null): Promise<MetadataCache> {
    const cache = new MetadataCache(file);
    if (!file) return cache;
    try {
      // Read as bytes and decode once: a "utf8" read decodes in 64 KB pieces through a StringDecoder, 3× slower.
      const bytes = await nodeFs.readFile(file);
      const nl = bytes.indexOf(10);
      const json = JSON.parse(bytes.toString("utf8", 0, nl < 0 ? bytes.length : nl));
      if (json.version === CACHE_VERSION && json.entries && typeof json.entries === "object") {
        // Where each details line starts (found on first use); a session's line is decoded only when it is read.
        let starts: number[] | undefined;
        const detailAt = (line: unknown) => {
          if (typeof line !== "number" || nl < 0) return undefined;
          if (!starts) {
            starts = [];
            for (let at = nl + 1; at < bytes.length;) {
              starts.push(at);
              const next = bytes.indexOf(10, at);
              at = next < 0 ? bytes.length : next + 1;
            }
          }
          const start = starts[line];
          if (start === undefined) return undefined;
          const end = bytes.indexOf(10, start);
          try {
            const text: unknown = JSON.parse(bytes.toString("utf8", start, end < 0 ? bytes.length : end));
            return typeof text === "string" ? text : undefined;
          } catch {
            return undefined;
          }
        };
        for (const [k, v] of Object.entries(json.entries)) {
          const e = v as StoredEntry;
          const detail = () => detailAt(e.d);
          cache.entries.set(k, {
            size: e.size,
            mtimeNs: e.mtimeNs,
            summary: unpackSummary(e.summary, detail),
            stored: { summary: e.summary, detail },
          });
        }
      }
    } catch {
      /* no cache yet, or unreadable: start empty */
    }
    return cache;
  }

  get(file: string, size: number, mtimeNs: bigint): SessionSummary | undefined {
    const e = this.entries.get(file);
    return e && e.size === size && e.mtimeNs === String(mtimeNs) ? e.summary : undefined;
  }

  set(file: string, size: number, mtimeNs: bigint, summary: SessionSummary): void {
    this.entries.set(file, { size, mtimeNs: String(mtimeNs), summary });
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

  async save(): Promise<void> {
    if (!this.file || !this.dirty) return;
    await nodeFs.mkdir(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    const entries: Record<string, StoredEntry> = {};
    const details: string[] = [];
    for (const [k, e] of this.entries) {
      let summary: SessionSummary | Omit<PackedSummary, "detail">;
      let detail: string | undefined;
      if (e.stored) {
        summary = e.stored.summary;
        detail = "packed" in summary ? e.stored.detail() : undefined;
      } else {
        const packed = packSummary(e.summary);
        if ("packed" in packed) {
          const { detail: d, ...listing } = packed;
          summary = listing;
          detail = d;
        } else summary = packed;
      }
      entries[k] = { size: e.size, mtimeNs: e.mtimeNs, summary };
      if (detail !== undefined) entries[k].d = details.push(JSON.stringify(detail)) - 1;
    }
    await nodeFs.writeFile(
      tmp,
      `${JSON.stringify({ version: CACHE_VERSION, entries })}\n${details.map((d) => `${d}\n`).join("")}`,
    );
    await nodeFs.rename(tmp, this.file);
    this.dirty = false;
  }
}

/** A cache file name per set of roots, under `cacheDir`. */
export function cacheFileFor(cacheDir: string, roots: SessionRoot[]): string {
  const hash = createHash("sha256")
    .update(roots.map((r) => r.dir).join("\0"))
    .digest("hex")
    .slice(0, 16);
  return join(cacheDir, `store-${hash}.json`);
}

// ------------------------------------------------------------------------------------------------
// The store

export type ParentState = "none" | "resolved" | "orphan" | "external";

export interface StoreSession {
  file: string;
  root: SessionRoot;
  slug: string | null;
  nestedIn: string | null;
  sizeBytes: number;
  /** Last modification time in ms (0 when unknown). */
  mtimeMs: number;
  summary: SessionSummary;
  parentState: ParentState;
  parent: StoreSession | null;
  children: StoreSession[];
  /** Ids of this session's entries that are copies of its parent's (fork deduplication, AC-6). */
  inherited: Set<string>;
  /** The last inherited entry in file order: where the fork left its parent. */
  forkPointId: string | null;
}

export interface StoreOptions {
  roots: SessionRoot[];
  /** Where the persistent metadata cache lives; null disables it. */
  cacheFile?: string | null;
  fs?: StoreFs;
  /**
   * First paint: files the cache does not know are summarized from their first and last few KB (`partial`), and
   * `Store.complete()` reads them in full later.
   */
  probe?: boolean;
}

export interface Store {
  roots: SessionRoot[];
  sessions: StoreSession[];
  errors: { path: string; message: string }[];
  /** Session files read (parsed) by this load: 0 on a warm, unchanged store. */
  filesRead: number;
  /** Sessions summarized from their head and tail only (with `probe`). */
  partial: StoreSession[];
  /** Read the partial sessions in full, update their summaries and the cache; returns how many were read. */
  complete(onEach?: (s: StoreSession) => void): Promise<number>;
}

/** Bytes read from each end of a file for a first-paint summary. */
const PROBE_BYTES = 4096;

/** A store session before lineage is linked (`linkLineage`) and ownership computed (`computeOwnership`). */
export function newStoreSession(
  f: Pick<DiscoveredFile, "file" | "root" | "slug" | "nestedIn" | "size"> & { mtimeNs?: bigint },
  summary: SessionSummary,
): StoreSession {
  const mtimeMs = f.mtimeNs === undefined ? 0 : Number(f.mtimeNs / 1_000_000n);
  return {
    file: f.file,
    root: f.root,
    slug: f.slug,
    nestedIn: f.nestedIn,
    sizeBytes: f.size,
    mtimeMs,
    summary,
    parentState: "none",
    parent: null,
    children: [],
    inherited: new Set(),
    forkPointId: null,
  };
}

export async function loadStore(options: StoreOptions): Promise<Store> {
  const fs = options.fs ?? realFs;
  const { files, errors } = await discover(options.roots, fs);
  const cache = await MetadataCache.load(options.cacheFile ?? null);
  let filesRead = 0;
  const sessions: StoreSession[] = [];
  const partial: StoreSession[] = [];
  const stats = new Map<StoreSession, DiscoveredFile>();
  const readFull = async (f: DiscoveredFile) => {
    const bytes = await fs.readFile(f.file);
    const summary = summarize(await parseSessionSliced(f.file, bytes));
    cache.set(f.file, f.size, f.mtimeNs, summary);
    return summary;
  };
  // Each file's summary: from the cache, a probe of its ends, or a full read; null when it could not be read.
  // Cache hits and probes are done in place (in slices); full reads a few files at a time, asynchronously.
  const results: ({ summary: SessionSummary; partial: boolean } | null)[] = new Array(files.length).fill(null);
  const fullReads: number[] = [];
  const tick = slicer(64);
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    const cached = cache.get(f.file, f.size, f.mtimeNs);
    if (cached) {
      results[i] = { summary: cached, partial: false };
      continue;
    }
    if (options.probe && f.size > 2 * PROBE_BYTES) {
      try {
        // Head and tail through one open of the file (the file is longer than both).
        const both = fs.readRange(f.file, 0, PROBE_BYTES, f.size - PROBE_BYTES);
        const probed = probeSummary(f.file, both.subarray(0, PROBE_BYTES), both.subarray(PROBE_BYTES), f.size);
        await tick();
        if (probed) {
          results[i] = { summary: probed, partial: true };
          continue;
        }
      } catch (err) {
        errors.push({ path: f.file, message: String((err as Error).message) });
        continue;
      }
    }
    fullReads.push(i);
  }
  for (let i = 0; i < fullReads.length; i += 4) {
    await Promise.all(
      fullReads.slice(i, i + 4).map(async (k) => {
        const f = files[k]!;
        try {
          filesRead++;
          results[k] = { summary: await readFull(f), partial: false };
        } catch (err) {
          errors.push({ path: f.file, message: String((err as Error).message) });
        }
      }),
    );
  }
  results.forEach((r, i) => {
    if (!r) return;
    const s = newStoreSession(files[i]!, r.summary);
    sessions.push(s);
    if (r.partial) {
      partial.push(s);
      stats.set(s, files[i]!);
    }
  });
  cache.retain(new Set(files.map((f) => f.file)));
  const save = async () => {
    try {
      await cache.save();
    } catch (err) {
      errors.push({ path: options.cacheFile ?? "", message: `cache not saved: ${String((err as Error).message)}` });
    }
  };
  await save();
  linkLineage(sessions, options.roots);
  const complete = async (onEach?: (s: StoreSession) => void) => {
    let read = 0;
    for (const s of partial.splice(0)) {
      try {
        s.summary = await readFull(stats.get(s)!);
        read++;
        onEach?.(s);
      } catch (err) {
        errors.push({ path: s.file, message: String((err as Error).message) });
      }
    }
    await save();
    linkLineage(sessions, options.roots);
    return read;
  };
  return { roots: options.roots, sessions, errors, filesRead, partial, complete };
}

/** Is an absolute host path inside one of the roots? */
function insideRoots(p: string, roots: SessionRoot[]): boolean {
  return roots.some((r) => p === r.dir || p.startsWith(r.dir + sep));
}

/**
 * Resolve every fork's parent against the sessions already discovered — never by opening the path a file names:
 * - a session id (OMP /fork, --fork, /tan) → the discovered session with that header id, else "orphan";
 * - a path inside the roots → that discovered file, else "orphan";
 * - a path outside the roots (a moved store, `/etc/passwd`, `../../x`) → a discovered file at the same
 *   `sessions/<slug>/<file>` position under a root (a relocated agent dir), else "external". Nothing is opened.
 */
export function linkLineage(sessions: StoreSession[], roots: SessionRoot[]): void {
  const byFile = new Map<string, StoreSession>();
  const byId = new Map<string, StoreSession>();
  const byRootRel = new Map<string, StoreSession>();
  for (const s of sessions) {
    byFile.set(s.file, s);
    if (s.summary.ok && !byId.has(s.summary.id)) byId.set(s.summary.id, s);
    byRootRel.set(relative(s.root.dir, s.file).split(sep).join("/"), s);
  }
  for (const s of sessions) {
    s.parent = null;
    s.children = [];
  }
  for (const s of sessions) {
    if (!s.summary.ok || !s.summary.parentSession) {
      s.parentState = "none";
      continue;
    }
    const { raw, kind } = s.summary.parentSession;
    let parent: StoreSession | undefined;
    let state: ParentState;
    if (kind === "id") {
      parent = byId.get(raw);
      state = parent ? "resolved" : "orphan";
    } else {
      const native = isAbsolute(raw) && !raw.includes("\0");
      const abs = native ? resolve(raw) : null;
      if (abs && insideRoots(abs, roots)) {
        parent = byFile.get(abs);
        state = parent ? "resolved" : "orphan";
      } else {
        const m = /(?:^|[/\\])sessions[/\\](.+)$/.exec(raw);
        parent = m ? byRootRel.get(m[1]!.split(/[/\\]/).join("/")) : undefined;
        state = parent ? "resolved" : "external";
      }
    }
    if (parent === s) {
      parent = undefined;
      state = "orphan";
    }
    s.parentState = state;
    s.parent = parent ?? null;
    if (parent) parent.children.push(s);
  }
  // Guard against lineage cycles (A says B is its parent, B says A): break at the repeat.
  for (const s of sessions) {
    const seen = new Set<StoreSession>([s]);
    for (let p = s.parent; p; p = p.parent) {
      if (seen.has(p)) {
        p.parent!.children = p.parent!.children.filter((c) => c !== p);
        p.parent = null;
        p.parentState = "orphan";
        break;
      }
      seen.add(p);
    }
  }
}

/**
 * Fork deduplication over a result set (AC-6/AC-7): an entry of a fork is inherited when its parent is in the
 * result, the parent has the same entry id, and the entry's timestamp is not after the fork's header timestamp.
 * Inherited entries are counted for the parent only; a fork whose parent is not in the result keeps them.
 */
export function computeOwnership(result: StoreSession[]): void {
  const inResult = new Set(result);
  const idSets = new Map<StoreSession, Set<string>>();
  const idsOf = (s: StoreSession) => {
    let set = idSets.get(s);
    if (!set) {
      set = new Set(s.summary.ok ? s.summary.entries.map(([id]) => id) : []);
      idSets.set(s, set);
    }
    return set;
  };
  for (const s of result) {
    s.inherited = new Set();
    s.forkPointId = null;
    if (!s.summary.ok || !s.parent || !inResult.has(s.parent)) continue;
    const parentIds = idsOf(s.parent);
    const created = s.summary.created;
    for (const [id, time] of s.summary.entries) {
      if (parentIds.has(id) && !(time > created)) {
        s.inherited.add(id);
        s.forkPointId = id;
      }
    }
  }
}

export interface ListedSession {
  id: string | null;
  file: string;
  flavor: "pi" | "omp" | null;
  cwd: string | null;
  name: string | null;
  nested: boolean;
  parentSession: string | null;
  parentId: string | null;
  parentFile: string | null;
  parentState: ParentState;
  firstSeen: string | null;
  lastSeen: string | null;
  entryCount: number;
  ownEntryCount: number;
  sizeBytes: number;
}

/** The `list --json` row of a session (call `computeOwnership` on the result first). */
export function listedSession(s: StoreSession): ListedSession {
  const sum = s.summary;
  if (!sum.ok) {
    return {
      id: null,
      file: s.file,
      flavor: null,
      cwd: null,
      name: null,
      nested: s.nestedIn !== null,
      parentSession: null,
      parentId: null,
      parentFile: null,
      parentState: "none",
      firstSeen: null,
      lastSeen: null,
      entryCount: 0,
      ownEntryCount: 0,
      sizeBytes: s.sizeBytes,
    };
  }
  let first = Infinity;
  let last = -Infinity;
  let own = 0;
  for (const [id, time] of sum.entries) {
    if (s.inherited.has(id)) continue;
    own++;
    if (Number.isFinite(time)) {
      if (time < first) first = time;
      if (time > last) last = time;
    }
  }
  const parentSummary = s.parent?.summary;
  return {
    id: sum.id,
    file: s.file,
    flavor: sum.flavor,
    cwd: sum.cwd,
    name: sum.name,
    nested: s.nestedIn !== null,
    parentSession: sum.parentSession?.raw ?? null,
    parentId: parentSummary?.ok ? parentSummary.id : null,
    parentFile: s.parent?.file ?? null,
    parentState: s.parentState,
    firstSeen: Number.isFinite(first) ? new Date(first).toISOString() : null,
    lastSeen: Number.isFinite(last) ? new Date(last).toISOString() : null,
    entryCount: sum.entries.length,
    ownEntryCount: own,
    sizeBytes: s.sizeBytes,
  };
}

/** Sessions that belong to a workspace folder: by `header.cwd` first, then by the slug folder's name. */
export function belongsToWorkspace(s: StoreSession, workspace: string, host: HostPaths): boolean {
  const cwd = s.summary.ok ? s.summary.cwd : null;
  if (cwd && cwdMatches(cwd, workspace)) return true;
  return s.slug !== null && slugMatches(s.slug, workspaceSlugVariants(workspace, host));
}

export function isOk(s: StoreSession): s is StoreSession & { summary: SessionSummaryOk } {
  return s.summary.ok;
}
