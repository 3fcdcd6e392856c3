/**
 * The facts of every compaction entry of a session, as `pi-sessions checkpoints` prints them and the checkpoint
 * inspector shows them: who wrote it, how it was made, whether its artifact is intact (recomputed here, never copied
 * from the file), and where it stands on its branch. Missing facts are null, never invented.
 * Format and rules: docs/checkpoints.md.
 */
import { createHash } from "node:crypto";
import {
  BLACKMAGIC_NAMESPACE,
  compactionProducer,
  isBlackmagicDetails,
  isTimelineEntry,
} from "../../core/compact/blackmagic.js";
import { type CompactionDetails, compactionDetails, objectOf } from "../../core/compact/checkpointDetails.js";
import { pathTo, type Entry, type Session } from "../../core/session/index.js";
import { newestLeafBelow } from "../../core/compare.js";
import type { CheckpointRecord } from "../../protocol/views.js";

const HASH = /^[0-9a-f]{64}$/;

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
export const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

/** Blackmagic's `activeCheckpoint` validity rules for one compaction's details; null when valid. */
export function checkpointInvalidReason(details: CompactionDetails): string | null {
  if (details.schemaVersion !== 1) return `schemaVersion is ${JSON.stringify(details.schemaVersion)}, not 1`;
  if (details.state !== "remote_applied") return `state is ${JSON.stringify(details.state)}, not "remote_applied"`;
  const replay = details.replay ?? {};
  if (replay.namespace !== BLACKMAGIC_NAMESPACE)
    return `replay namespace ${JSON.stringify(replay.namespace)} is not ${BLACKMAGIC_NAMESPACE}`;
  const hashes = replay.replacedItemHashes;
  if (!Array.isArray(hashes) || hashes.length === 0) return "no replacedItemHashes";
  if (!hashes.every((h) => typeof h === "string" && HASH.test(h)))
    return "a replacedItemHash is not 64 lowercase hex digits";
  const cp = details.checkpoint ?? {};
  if (!Array.isArray(cp.artifact) || cp.artifact.length === 0) return "the checkpoint artifact is empty";
  const json = JSON.stringify(cp.artifact);
  if (cp.hash !== sha256(json)) return "the artifact's sha256 does not match checkpoint.hash";
  if (cp.length !== json.length) return "the artifact's length does not match checkpoint.length";
  return null;
}

/** The numeric fields of a usage object, as written. */
export function numericFields(v: Record<string, unknown> | undefined): Record<string, number> | null {
  if (!v) return null;
  return Object.fromEntries(
    Object.entries(v).filter((e): e is [string, number] => typeof e[1] === "number" && Number.isFinite(e[1])),
  );
}

/** What is shared by every compaction of one session: the active path and its latest compaction. */
class SessionCheckpoints {
  readonly activeIds: Set<string>;
  readonly activePath: Entry[];
  readonly latestOnActive: Entry | null;

  constructor(readonly session: Session) {
    this.activePath = pathTo(session, session.leafId);
    this.activeIds = new Set(this.activePath.map((e) => e.id));
    this.latestOnActive = [...this.activePath].reverse().find((e) => e.type === "compaction") ?? null;
  }

  /** The path a compaction is on: the active path, or the path to the newest entry below it. */
  branchOf(id: string): Entry[] {
    return this.activeIds.has(id) ? this.activePath : pathTo(this.session, newestLeafBelow(this.session, id));
  }

  record(entry: Entry): CheckpointRecord {
    const session = this.session;
    const d = entry.data;
    const details = compactionDetails(d.details);
    const blackmagic = isBlackmagicDetails(details) ? details : null;
    const identity = blackmagic?.identity ?? null;
    const cp = blackmagic?.checkpoint ?? null;
    const artifact = cp?.artifact ?? null;
    const json = artifact ? JSON.stringify(artifact) : null;
    const replay = blackmagic?.replay ?? null;
    // A success keeps pi's file lists under `local`; a fallback and pi itself keep them at the top of `details`.
    const files = details?.local ?? details;
    const timeline = (session.children.get(entry.id) ?? [])
      .map((id) => session.byId.get(id))
      .find((e): e is Entry => e !== undefined && isTimelineEntry(e));
    const timelineData = (timeline && objectOf(timeline.data.data)) ?? null;
    const branch = this.branchOf(entry.id);
    const after = branch.slice(branch.findIndex((e) => e.id === entry.id) + 1);
    const compactionItem = objectOf(artifact?.find((i) => objectOf(i)?.type === "compaction"));
    return {
      entryId: entry.id,
      producer: compactionProducer(details, session.flavor),
      state: str(blackmagic?.state),
      failureClass: str(blackmagic?.failureClass) ?? (blackmagic ? str(timelineData?.failureClass) : null),
      surface: str(identity?.surface),
      protocol: str(identity?.protocol),
      model: str(identity?.model),
      deployment: str(identity?.deployment),
      endpoint: str(identity?.endpoint),
      integrity:
        cp && json !== null
          ? {
              algorithm: "sha256",
              value: str(cp.hash),
              length: num(cp.length),
              valid: cp.hash === sha256(json) && cp.length === json.length,
            }
          : null,
      artifactItemCount: artifact ? artifact.length : null,
      compactionItemId: str(compactionItem?.id),
      replayNamespace: str(replay?.namespace),
      replacedItemHashCount: replay?.replacedItemHashes ? replay.replacedItemHashes.length : null,
      usage: numericFields(blackmagic?.usage),
      latencyMs: num(blackmagic?.latencyMs),
      onActiveBranch: this.activeIds.has(entry.id),
      activeOnActiveBranch:
        this.latestOnActive?.id === entry.id && blackmagic !== null && checkpointInvalidReason(blackmagic) === null,
      supersededBy: after.find((e) => e.type === "compaction")?.id ?? null,
      timelineEntryId: timeline?.id ?? null,
      readFiles: strings(files?.readFiles),
      modifiedFiles: strings(files?.modifiedFiles),
      line: entry.line,
      timestamp: entry.timestamp ?? null,
      method: str(timelineData?.method) ?? (details?.producer ? str(details.producer.method) : null),
      writer: details?.producer ? str(details.producer.tool) : null,
    };
  }
}

/** Every compaction entry of the session, in file order. */
export function checkpointRecords(session: Session): CheckpointRecord[] {
  const all = new SessionCheckpoints(session);
  return session.entries.filter((e) => e.type === "compaction" && !e.shadowed).map((e) => all.record(e));
}

/** One compaction entry's record. */
export function checkpointRecord(session: Session, entryId: string): CheckpointRecord {
  const entry = session.byId.get(entryId);
  if (!entry || entry.type !== "compaction") throw new Error(`${entryId} is not a compaction entry of ${session.file}`);
  return new SessionCheckpoints(session).record(entry);
}
