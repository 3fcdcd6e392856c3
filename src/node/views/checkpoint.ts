/**
 * The checkpoint inspector's model of one compaction entry: pi's and OMP's fields, and the Blackmagic
 * server-compaction details (docs/checkpoints.md#entry and #active) with the artifact's integrity recomputed.
 * Encrypted content never leaves this function in full: only its length, hash and a short prefix.
 */
import { compactionMethod, TIMELINE_TYPE } from "../../core/compact/blackmagic.js";
import { compactionDetails, objectOf, summaryUsageOf } from "../../core/compact/checkpointDetails.js";
import { type CompactionInfo, type Entry, isPlainObject, pathTo, type Session } from "../../core/session/index.js";
import { replacedMessages } from "../../core/compactionReach.js";
import { entryLabel } from "../../core/entryText.js";
import type { CheckpointModel, EncryptedBlob } from "../../protocol/views.js";
import { checkpointInvalidReason, checkpointRecord, numericFields, sha256 } from "./checkpointRecord.js";

const HASH = /^[0-9a-f]{64}$/;

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

function stringRecord(v: Record<string, unknown> | undefined): Record<string, string> {
  if (!v) return {};
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

/** The artifact's items by type; Codex keeps the request's user messages without a type: they are messages. */
function itemTypes(artifact: unknown[]): { type: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const item of artifact) {
    const type = !isPlainObject(item)
      ? "(not an object)"
      : typeof item.type === "string"
        ? item.type
        : typeof item.role === "string"
          ? "message"
          : "(untyped)";
    counts.set(type, (counts.get(type) ?? 0) + 1);
  }
  return [...counts].map(([type, count]) => ({ type, count }));
}

/** The harness's own summary call (the entry's `usage`, pi-ai's shape), kept apart from the server's usage. */
function summaryUsage(value: unknown): CheckpointModel["summaryUsage"] {
  const v = summaryUsageOf(value);
  if (!v) return null;
  const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
  return {
    input: n(v.input),
    output: n(v.output),
    totalTokens: n(v.totalTokens),
    cost: v.cost ? n(v.cost.total) : 0,
  };
}

export interface CheckpointModelOptions {
  /** The session is a fork that copied this compaction from its parent (same entry id). */
  copiedFromParent?: boolean;
  /** What the session is called (the panel's title names it, never the compaction's id). */
  sessionTitle?: string;
}

export function checkpointModel(
  session: Session,
  compactionId: string,
  options: CheckpointModelOptions = {},
): CheckpointModel {
  const entry = session.byId.get(compactionId);
  if (!entry || entry.type !== "compaction")
    throw new Error(`${compactionId} is not a compaction entry of ${session.file}`);
  const d = entry.data;
  const info = session.compactions.find((c) => c.id === compactionId);
  const details = compactionDetails(d.details);
  const local = details?.local ?? details;
  const path = pathTo(session, compactionId);
  const position = new Map(path.map((e, i) => [e.id, i]));
  const keptIndex = info?.keptFromId ? (position.get(info.keptFromId) ?? path.length - 1) : path.length - 1;
  const keptEntry = info?.keptFromId ? session.byId.get(info.keptFromId) : undefined;

  const record = checkpointRecord(session, compactionId);
  let blackmagic: CheckpointModel["blackmagic"] = null;
  if (details && ("schemaVersion" in details || "checkpoint" in details || "replay" in details || "state" in details)) {
    const cp = details.checkpoint ?? null;
    const artifact = cp?.artifact ?? null;
    const json = artifact ? JSON.stringify(artifact) : "";
    const replay = details.replay ?? null;
    const hashes = replay?.replacedItemHashes ?? [];
    const timeline = (session.children.get(compactionId) ?? [])
      .map((id) => session.byId.get(id))
      .find((e) => e?.type === "custom" && e.data.customType === TIMELINE_TYPE);
    const timelineData = (timeline && objectOf(timeline.data.data)) ?? null;
    const failureClass = str(details.failureClass) ?? str(timelineData?.failureClass);
    const method = str(timelineData?.method) ?? (details.producer ? str(details.producer.method) : null);
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
      usage: numericFields(details.usage),
      latencyMs: num(details.latencyMs),
      lineage: details.lineage ? stringRecord(details.lineage) : null,
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
    replaced: replacedFacts(session, info, path),
    readFiles: strings(local?.readFiles),
    modifiedFiles: strings(local?.modifiedFiles),
    onActivePath: record.onActiveBranch,
    activeCheckpoint: record.activeOnActiveBranch,
    supersededBy: record.supersededBy,
    fromExtension: d.fromExtension === true || d.fromHook === true,
    omp: isOmp
      ? {
          method: str(d.method),
          shortSummary: str(d.shortSummary),
          preserveData: d.preserveData !== undefined && d.preserveData !== null,
        }
      : null,
    blackmagic,
    record,
    method: compactionMethod(details),
    // An artifact that is not an array has no items (the inspector says the artifact is missing).
    itemTypes: blackmagic?.checkpoint ? itemTypes(details?.checkpoint?.artifact ?? []) : [],
    summaryUsage: summaryUsage(d.usage),
    copiedFromParent: options.copiedFromParent === true,
    sessionTitle: options.sessionTitle ?? null,
  };
}

/** What the compaction's summary replaced, named by the entries' words (not their ids). */
function replacedFacts(session: Session, info: CompactionInfo | undefined, path: Entry[]): CheckpointModel["replaced"] {
  const messages = info ? replacedMessages(session, info, path) : [];
  const through = messages.at(-1);
  return {
    firstId: messages[0]?.id ?? null,
    throughId: through?.id ?? null,
    throughLabel: through ? entryLabel(through, 60) : null,
    messages: messages.length,
  };
}
