/**
 * The checkpoint inspector's model of one compaction entry: pi's and OMP's fields, and the Blackmagic
 * server-compaction details (docs/checkpoints.md#entry and #active) with the artifact's integrity recomputed.
 * Encrypted content never leaves this function in full: only its length, hash and a short prefix.
 */
import { createHash } from "node:crypto";
import { entryLabel } from "../../protocol/format.js";
import { BLACKMAGIC_NAMESPACE, TIMELINE_TYPE } from "../../core/compact/blackmagic.js";
import { isPlainObject, pathTo, type Session } from "../../core/session.js";
import type { CheckpointModel, EncryptedBlob } from "../../protocol/views.js";

const HASH = /^[0-9a-f]{64}$/;

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

function stringRecord(v: unknown): Record<string, string> {
  if (!isPlainObject(v)) return {};
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => typeof x === "string" || typeof x === "number")
      .map(([k, x]) => [k, String(x)]),
  );
}

function encryptedBlobs(artifact: unknown[]): EncryptedBlob[] {
  const out: EncryptedBlob[] = [];
  const visit = (v: unknown, depth: number) => {
    if (depth > 6) return;
    if (Array.isArray(v)) for (const x of v) visit(x, depth + 1);
    else if (isPlainObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (k === "encrypted_content" && typeof x === "string")
          out.push({ length: x.length, sha256: sha256(x), prefix: x.slice(0, 12) });
        else visit(x, depth + 1);
      }
    }
  };
  visit(artifact, 0);
  return out;
}

/** Blackmagic's `activeCheckpoint` validity rules for one compaction's details; null when valid. */
export function checkpointInvalidReason(details: Record<string, unknown>): string | null {
  if (details.schemaVersion !== 1) return `schemaVersion is ${JSON.stringify(details.schemaVersion)}, not 1`;
  if (details.state !== "remote_applied") return `state is ${JSON.stringify(details.state)}, not "remote_applied"`;
  const replay = isPlainObject(details.replay) ? details.replay : {};
  if (replay.namespace !== BLACKMAGIC_NAMESPACE)
    return `replay namespace ${JSON.stringify(replay.namespace)} is not ${BLACKMAGIC_NAMESPACE}`;
  const hashes = replay.replacedItemHashes;
  if (!Array.isArray(hashes) || hashes.length === 0) return "no replacedItemHashes";
  if (!hashes.every((h) => typeof h === "string" && HASH.test(h)))
    return "a replacedItemHash is not 64 lowercase hex digits";
  const cp = isPlainObject(details.checkpoint) ? details.checkpoint : {};
  if (!Array.isArray(cp.artifact) || cp.artifact.length === 0) return "the checkpoint artifact is empty";
  const json = JSON.stringify(cp.artifact);
  if (cp.hash !== sha256(json)) return "the artifact's sha256 does not match checkpoint.hash";
  if (cp.length !== json.length) return "the artifact's length does not match checkpoint.length";
  return null;
}

export function checkpointModel(session: Session, compactionId: string): CheckpointModel {
  const entry = session.byId.get(compactionId);
  if (!entry || entry.type !== "compaction")
    throw new Error(`${compactionId} is not a compaction entry of ${session.file}`);
  const d = entry.data;
  const info = session.compactions.find((c) => c.id === compactionId);
  const details = isPlainObject(d.details) ? d.details : null;
  const local = details && isPlainObject(details.local) ? details.local : details;
  const path = pathTo(session, compactionId);
  const position = new Map(path.map((e, i) => [e.id, i]));
  const keptIndex = info?.keptFromId ? (position.get(info.keptFromId) ?? path.length - 1) : path.length - 1;
  const keptEntry = info?.keptFromId ? session.byId.get(info.keptFromId) : undefined;

  const activePath = pathTo(session, session.leafId);
  const onActive = activePath.some((e) => e.id === compactionId);
  // A later compaction below this one (on the way to the leaf when it is on the active path) supersedes it.
  let supersededBy: string | null = null;
  if (onActive) {
    const after = activePath.slice(activePath.findIndex((e) => e.id === compactionId) + 1);
    supersededBy = after.find((e) => e.type === "compaction")?.id ?? null;
  } else {
    const stack = [...(session.children.get(compactionId) ?? [])];
    const seen = new Set<string>();
    while (stack.length && !supersededBy) {
      const id = stack.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      if (session.byId.get(id)?.type === "compaction") supersededBy = id;
      else stack.push(...(session.children.get(id) ?? []));
    }
  }

  let blackmagic: CheckpointModel["blackmagic"] = null;
  if (details && ("schemaVersion" in details || "checkpoint" in details || "replay" in details || "state" in details)) {
    const cp = isPlainObject(details.checkpoint) ? details.checkpoint : null;
    const artifact = cp && Array.isArray(cp.artifact) ? cp.artifact : null;
    const json = artifact ? JSON.stringify(artifact) : "";
    const replay = isPlainObject(details.replay) ? details.replay : null;
    const hashes = replay && Array.isArray(replay.replacedItemHashes) ? replay.replacedItemHashes : [];
    const timeline = (session.children.get(compactionId) ?? [])
      .map((id) => session.byId.get(id))
      .find((e) => e?.type === "custom" && e.data.customType === TIMELINE_TYPE);
    const timelineData = timeline && isPlainObject(timeline.data.data) ? timeline.data.data : null;
    const failureClass = str(details.failureClass) ?? str(timelineData?.failureClass);
    const method = str(timelineData?.method) ?? (isPlainObject(details.producer) ? str(details.producer.method) : null);
    blackmagic = {
      schemaVersion: details.schemaVersion,
      state: str(details.state),
      identity: stringRecord(details.identity),
      checkpoint: cp
        ? {
            items: artifact?.length ?? 0,
            bytes: Buffer.byteLength(json, "utf8"),
            retention: str(cp.retention),
            storedHash: str(cp.hash),
            storedLength: num(cp.length),
            computedHash: sha256(json),
            computedLength: json.length,
            hashOk: cp.hash === sha256(json),
            lengthOk: cp.length === json.length,
            encrypted: encryptedBlobs(artifact ?? []),
          }
        : null,
      usage: isPlainObject(details.usage)
        ? (Object.fromEntries(Object.entries(details.usage).filter(([, v]) => typeof v === "number")) as Record<
            string,
            number
          >)
        : null,
      latencyMs: num(details.latencyMs),
      lineage: isPlainObject(details.lineage) ? stringRecord(details.lineage) : null,
      replay: replay
        ? {
            namespace: str(replay.namespace),
            scope: str(replay.scope),
            hashes: hashes.length,
            hashesWellFormed: hashes.length > 0 && hashes.every((h) => typeof h === "string" && HASH.test(h)),
          }
        : null,
      fallback:
        details.state === "local_fallback" || method === "local_fallback" || failureClass
          ? { method, failureClass }
          : null,
      invalidReason: checkpointInvalidReason(details),
    };
  }
  // Blackmagic replays only the latest compaction on the active branch.
  const latestOnActive = [...activePath].reverse().find((e) => e.type === "compaction")?.id ?? null;
  const activeCheckpoint = latestOnActive === compactionId && blackmagic !== null && blackmagic.invalidReason === null;
  const isOmp = session.flavor === "omp";
  return {
    kind: "checkpoint",
    file: session.file,
    entryId: compactionId,
    line: entry.line,
    timestamp: entry.timestamp ?? null,
    summary: typeof d.summary === "string" ? d.summary : "",
    tokensBefore: info?.tokensBefore ?? num(d.tokensBefore),
    tokensAfter: info?.tokensAfter ?? num(d.tokensAfter),
    firstKeptEntryId: str(d.firstKeptEntryId),
    kept: keptEntry
      ? { id: keptEntry.id, label: entryLabel(keptEntry, 80), entries: path.length - 1 - keptIndex }
      : null,
    replaced: {
      firstId: path[0]?.id ?? null,
      throughId: info?.replacesThroughId ?? null,
      entries: keptEntry ? keptIndex : Math.max(0, path.length - 1),
    },
    readFiles: strings(local?.readFiles),
    modifiedFiles: strings(local?.modifiedFiles),
    onActivePath: onActive,
    activeCheckpoint,
    supersededBy,
    fromExtension: d.fromExtension === true || d.fromHook === true,
    omp: isOmp
      ? {
          method: str(d.method),
          shortSummary: str(d.shortSummary),
          preserveData: d.preserveData !== undefined && d.preserveData !== null,
        }
      : null,
    blackmagic,
  };
}
