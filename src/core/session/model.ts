/** The session model: one parsed Pi or OMP session file as a tree of entries (the reader builds it). */
import type { Diagnostic, Rejection } from "../diagnostics.js";
import type { SessionHeader, TitleSlot } from "../schema.js";
import type { BodySource } from "../bodySource.js";
import type { Entry } from "./entry.js";

export type Flavor = "pi" | "omp";

export interface CompactionInfo {
  id: string;
  line: number;
  firstKeptEntryId: string | null;
  /** `firstKeptEntryId` when it is on the compaction's own path (before it), else null (nothing kept, #t19). */
  keptFromId: string | null;
  /** The entry the compaction summarizes through (its parent). */
  replacesThroughId: string | null;
  tokensBefore: number | null;
  tokensAfter: number | null;
  onActivePath: boolean;
}

export interface ForkOf {
  raw: string;
  kind: "path" | "id";
  /** Which header field carried it: `parentSession`, or v1's `branchedFrom`. */
  field: "parentSession" | "branchedFrom";
}

export interface LabelInfo {
  label: string;
  timestamp: string | undefined;
  line: number;
}

export interface Session {
  file: string;
  flavor: Flavor;
  /** Header `version`; absent means 1. */
  version: number;
  header: SessionHeader;
  headerLine: number;
  titleSlot: TitleSlot | null;
  entries: Entry[];
  byId: Map<string, Entry>;
  /** Children ids per parent id, sorted the way pi's getTree sorts them (timestamp, then file order). */
  children: Map<string, string[]>;
  /** Root ids in file order: parentId null, self-parent, or a parent missing from the file
   * (docs/session-format.md#t4). */
  roots: string[];
  /** Ids that no root reaches (entries inside a parentId cycle). */
  detached: string[];
  /** The last entry in file order (docs/session-format.md#t3), or null for a header-only file. */
  leafId: string | null;
  labels: Map<string, LabelInfo>;
  /** pi: latest session_info name; OMP: the title (slot, newest title_change, header). */
  name: string | null;
  titleSource: "auto" | "user" | null;
  compactions: CompactionInfo[];
  forkOf: ForkOf | null;
  diagnostics: Diagnostic[];
  /** False when the last line has no "\n": the agent is mid-write or crashed; never append then. */
  endsWithNewline: boolean;
  /** True when the last physical line was unparseable and skipped. */
  truncatedTail: boolean;
}

export type ParseResult =
  { ok: true; session: Session } | { ok: false; file: string; rejection: Rejection; diagnostics: Diagnostic[] };

export interface ParseOptions {
  /** Run the zod schemas over every record and report mismatches (default true). */
  validate?: boolean;
  /**
   * Records up to this many bytes keep their parsed object; longer ones keep only their envelope and facts, and are
   * parsed again from the held bytes when their `data` is read (default 512). `Infinity` keeps every record parsed.
   * The kinds the tree's index reads are always kept (`ALWAYS_HELD`).
   */
  retainBytes?: number;
  /**
   * Large records are checked and reduced to their envelope by a scan of their bytes (core/envelope.ts), not parsed
   * (an assistant message's envelope holds its usage, provider and model): for usage reports, which read none of
   * their bodies (a body is still parsed in full when read) and no file touches (`Entry.touches` is left out of a
   * scanned record). Only without `validate` (the schema checks need the whole record).
   */
  scan?: boolean;
  /**
   * Stream the entries instead of keeping them: each is given to this function as it is read and then let go, so a
   * reader of a long file holds no entry (core/leanSummary.ts summarizes one as it goes). `result()` then has no tree:
   * call `streamed()` instead.
   */
  onEntry?: (entry: Entry, header: SessionHeader) => void;
}

/** A fed chunk's place in its file: large records keep the file offsets of their bytes, not the chunk. */
export interface ChunkOrigin {
  source: BodySource;
  /** The file offset of the chunk's first byte. */
  at: number;
}

/** The effective model and thinking level at `leafId` (pi `{provider, modelId}`; OMP `model: "provider/id"`
 * per role). */
export interface PathSettings {
  thinkingLevel: string | undefined;
  model: { provider: string; modelId: string } | null;
  /** OMP model roles (role → "provider/id"). Empty for pi files. */
  models: Record<string, string>;
}
