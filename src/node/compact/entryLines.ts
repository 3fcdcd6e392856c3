/**
 * The lines a compaction appends: the compaction entry in Blackmagic's schema 1 (a checkpoint, or the readable-only
 * fallback) and its timeline entry, and the replay hashes of the conversation pi will send after it
 * (docs/checkpoints.md).
 */
import { createHash, randomBytes } from "node:crypto";
import type { Identity } from "../../core/compact/identity.js";
import { BLACKMAGIC_NAMESPACE, TIMELINE_TYPE } from "../../core/compact/blackmagic.js";
import type { Preparation } from "../../core/compact/prepare.js";
import { contextInput, isInstructionItem, type TargetModel } from "../../core/compact/responses.js";
import { buildContext } from "../../core/context/index.js";
import { parseSession, type Session } from "../../core/session/index.js";
import { currentSystemMessage } from "../../core/systemMessage.js";
import type { CompactionFailure } from "./failure.js";
import type { ProviderResult } from "./providers.js";

const PRODUCER = "pi-session-explorer";

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

/** A fresh 8-hex-digit entry id, as pi makes them: in use neither in the session nor among `taken`. */
export function newEntryId(session: Session, ...taken: string[]): string {
  for (;;) {
    const id = randomBytes(4).toString("hex");
    if (!session.byId.has(id) && !taken.includes(id)) return id;
  }
}

/** What the request step settled, as the entry needs it. */
interface Planned {
  prep: Preparation;
  model: TargetModel;
  entryId: string;
  extractive: string;
}

/** What the provider step answered. */
export interface Answered {
  summary: string;
  result: ProviderResult | null;
  failure: CompactionFailure | null;
  postHashes: string[];
}

/**
 * A compaction entry's own fields: what pi's `appendCompaction` writes before the producer's `details`. On a pi 1.6
 * branch that holds system messages, pi 1.6 also stores the prompt and tools in effect (`systemMessage`), which its
 * context puts before the summary: without it the compacted context would have no system prompt.
 */
function compactionRecord(
  entryId: string,
  leafId: string,
  summary: string,
  prep: Preparation,
  system?: Record<string, unknown>,
) {
  const timestamp = new Date().toISOString();
  return {
    type: "compaction",
    id: entryId,
    parentId: leafId,
    timestamp,
    summary,
    firstKeptEntryId: prep.firstKeptEntryId,
    tokensBefore: prep.tokensBefore,
    ...(system ? { systemMessage: { ...system, timestamp: Date.parse(timestamp) } } : {}),
  };
}

/**
 * The replay hashes: every item of the post-compaction conversation as pi will send it (the summary, then the kept
 * messages), or null when the compacted branch cannot be serialized.
 */
export function replayHashes(
  file: string,
  bytes: Buffer,
  { prep, model, entryId }: Planned,
  leafId: string,
  summary: string,
): string[] | null {
  // Without the pi 1.6 `systemMessage`: system messages are instructions, which no replay hash covers.
  const synthetic = compactionRecord(entryId, leafId, summary, prep);
  const after = parseSession(file, Buffer.concat([bytes, Buffer.from(`${JSON.stringify(synthetic)}\n`)]));
  if (!after.ok) return null;
  return contextInput(model, buildContext(after.session, entryId).messages)
    .filter((i) => !isInstructionItem(i))
    .map((i) => sha256(JSON.stringify(i)));
}

/** The prompt and tools in effect at the leaf of a pi 1.6 branch, which pi 1.6 stores on its compactions. */
function systemMessageAt(session: Session, leafId: string): Record<string, unknown> | undefined {
  return session.flavor === "pi" ? currentSystemMessage(buildContext(session, leafId).messages) : undefined;
}

/** The compaction entry and its timeline entry, as the two lines one write appends. */
export function compactionLines(
  version: string | undefined,
  identity: Identity,
  session: Session,
  leafId: string,
  { prep, entryId, extractive }: Planned,
  { summary, result, failure, postHashes }: Answered,
): string {
  const method = identity.surface === "chatgpt_codex" ? "remote_codex_v2" : "remote_responses_v1";
  const local = { readFiles: prep.readFiles, modifiedFiles: prep.modifiedFiles };
  const producer = {
    tool: PRODUCER,
    version: version ?? "0",
    method: failure ? "local_fallback" : method,
    serializer: `${PRODUCER}/responses-port@pi-ai-0.73`,
    summary: summary === extractive ? "extractive" : "llm",
  };
  let details: Record<string, unknown>;
  if (result) {
    const json = JSON.stringify(result.artifact);
    details = {
      schemaVersion: 1,
      state: "remote_applied",
      identity,
      checkpoint: { artifact: result.artifact, hash: sha256(json), length: json.length, retention: result.retention },
      ...(result.usage ? { usage: result.usage } : {}),
      latencyMs: result.latencyMs,
      lineage: { firstKeptEntryId: prep.firstKeptEntryId, leafId },
      replay: { namespace: BLACKMAGIC_NAMESPACE, scope: "conversation", replacedItemHashes: postHashes },
      local,
      producer,
    };
  } else {
    // Blackmagic's fallback shape: pi's file lists at the top of `details`, no identity, no checkpoint.
    details = { ...local, schemaVersion: 1, state: "local_fallback", failureClass: failure!.failureClass, producer };
  }
  const entry: Record<string, unknown> = {
    ...compactionRecord(entryId, leafId, summary, prep, systemMessageAt(session, leafId)),
    details,
    ...(session.flavor === "omp" ? { fromExtension: true } : { fromHook: true }),
  };
  // Blackmagic's timeline entry follows its compaction, as the compaction's child; both lines go in one write.
  const timeline = {
    type: "custom",
    customType: TIMELINE_TYPE,
    data: failure ? { method: "local_fallback", failureClass: failure.failureClass } : { method },
    id: newEntryId(session, entryId),
    parentId: entryId,
    timestamp: entry.timestamp,
  };
  return `${JSON.stringify(entry)}\n${JSON.stringify(timeline)}\n`;
}
