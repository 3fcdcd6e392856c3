/**
 * What a machine sends the team database of its store (docs/team.md): a row per session and its usage records,
 * each keyed as it is the same record on every machine and in every file that carries it: its entry id, its time
 * (to the millisecond, as the agent wrote it) and its place among the entry's records. A fork copies its parent's
 * entries with their ids and times, so a copy, a copy of a copy, made here or on another machine, is the same row.
 * Who wrote a record (its `own` session) decides its attribution: on this machine the store's ownership rule says so
 * (`StoreSession.inherited`, as the local report counts them, never sent for the fork); for a fork whose parent is
 * not listed here, a record not after the fork was made is a copy. Nothing of the conversation's text but a session's
 * own name, unless `content`.
 */
import { createHmac } from "node:crypto";
import { basename } from "node:path";
import type { TokenBuckets, UsageRecord } from "../../core/usage.js";
import {
  entryStats,
  FamilyIndex,
  forEachUsage,
  isOk,
  lastActivity,
  sessionTitle,
  type StoreSession,
} from "../store/index.js";

/** A usage record as the team database keys it: the local record's numbers, its stamp and place, and its writer. */
export interface TeamUsage extends Pick<
  UsageRecord,
  keyof TokenBuckets | "entryId" | "time" | "source" | "provider" | "model" | "active"
> {
  /** The record's time as an ISO string, or `session:<id>` when it has none (then only its session carries it). */
  stamp: string;
  /** Its place among its entry's records. */
  seq: number;
  /** Written by this session (not a copy of a parent's): its attribution and numbers are this session's. */
  own: boolean;
}

export interface TeamSession {
  /** The key of the session on this machine: its path, or a digest of it (`redactPaths`). */
  file: string;
  /** The file as listed (for the local state and the content), never sent when redacted. */
  localFile: string;
  sessionId: string;
  agent: "pi" | "omp";
  project: string | null;
  title: string | null;
  firstActivity: number;
  lastActivity: number;
  parentSessionId: string | null;
  familyRoot: string | null;
  entryCount: number;
  /** The entries a fork copied from its parent (their text is the parent's). */
  copies: ReadonlySet<string>;
  sizeBytes: number;
  mtimeMs: number;
  records: TeamUsage[];
}

export interface RecordOptions {
  /** Send project paths as their last folder name, and files as a keyed digest of their path. */
  redactPaths: boolean;
  /** The machine's own key for those digests (a plain hash of a guessable path could be confirmed by guessing). */
  redactionKey?: string;
  /** The conversation's text goes too: titles as listed (a session's first prompt when it has no name). */
  content: boolean;
}

/** A parent's session id from a fork's header: OMP names it; pi names its file, whose name ends with the id. */
function parentIdOf(s: StoreSession): string | null {
  if (!s.summary.ok || !s.summary.parentSession) return null;
  if (s.parent?.summary.ok) return s.parent.summary.id;
  const { raw, kind } = s.summary.parentSession;
  if (kind === "id") return raw;
  return /_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(raw)?.[1] ?? null;
}

/** The records of one session the local report counts, keyed for the team (see above). */
function teamRecords(s: StoreSession & { summary: { ok: true } }, inResult: ReadonlySet<StoreSession>): TeamUsage[] {
  const sum = s.summary;
  // An OMP subagent whose parent is listed is counted through the parent's task result (usageReport's rule).
  if (sum.subagent && s.parent !== null && inResult.has(s.parent)) return [];
  const parentUnlisted = sum.parentSession !== null && !(s.parent && inResult.has(s.parent));
  const out: TeamUsage[] = [];
  let lastEntry = "";
  let seq = 0;
  forEachUsage(sum, (r: UsageRecord) => {
    seq = r.entryId === lastEntry ? seq + 1 : 0;
    lastEntry = r.entryId;
    if (s.inherited.has(r.entryId)) return;
    const timed = Number.isFinite(r.time);
    out.push({
      stamp: timed ? new Date(r.time).toISOString() : `session:${sum.id}`,
      entryId: r.entryId,
      seq,
      time: r.time,
      source: r.source,
      provider: r.provider,
      model: r.model,
      input: r.input,
      output: r.output,
      cacheRead: r.cacheRead,
      cacheWrite: r.cacheWrite,
      totalTokens: r.totalTokens,
      cost: r.cost,
      active: r.active,
      own: !(parentUnlisted && timed && r.time <= sum.created),
    });
  });
  return out;
}

/** The rows of every readable session of a listing whose fork ownership is computed (`computeOwnership`). */
export function teamSessions(result: readonly StoreSession[], options: RecordOptions): TeamSession[] {
  const inResult = new Set(result);
  const families = new FamilyIndex([...result]);
  const out: TeamSession[] = [];
  for (const s of result) {
    if (!isOk(s)) continue;
    const sum = s.summary;
    const root = families.root(s);
    const cwd = sum.cwd;
    out.push({
      file: options.redactPaths ? redactedFile(s.file, options.redactionKey ?? "") : s.file,
      localFile: s.file,
      sessionId: sum.id,
      agent: sum.flavor,
      project: cwd === null ? null : options.redactPaths ? basename(cwd) || "(root)" : cwd,
      title: options.content ? sessionTitle(s) : sum.name,
      firstActivity: sum.created,
      lastActivity: lastActivity(s),
      parentSessionId: parentIdOf(s),
      familyRoot: root.summary.ok ? root.summary.id : null,
      entryCount: entryStats(sum)[0],
      copies: s.inherited,
      sizeBytes: s.sizeBytes,
      mtimeMs: s.mtimeMs,
      records: teamRecords(s, inResult),
    });
  }
  return out;
}

/** How a file is named in the database when paths are redacted: an HMAC under the machine's own key. */
export const redactedFile = (file: string, key: string) =>
  `redacted:${createHmac("sha256", key).update(file).digest("hex").slice(0, 24)}`;

/** A record's key, the same on every machine. */
export const recordKey = (r: Pick<TeamUsage, "stamp" | "entryId" | "seq">) => `${r.stamp}\n${r.entryId}\n${r.seq}`;
