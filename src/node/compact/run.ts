/**
 * Compact a branch (issue #6 pipeline): read and validate, prepare, serialize, summarize, call the provider,
 * validate, re-check the file, append the compaction and its timeline entry (Blackmagic's) in one write. Nothing
 * touches the file before the last step, and the last step happens only if the file is byte-for-byte what was read
 * (size, mtime, inode, last line).
 */
import { appendRefusal } from "../appendRefusal.js";
import { compactionLines, newEntryId, replayHashes } from "./entryLines.js";
import { buildContext } from "../../core/context/index.js";
import {
  type Identity,
  identityFor,
  type Provider,
  RouteError,
  targetModel,
  transportBase,
} from "../../core/compact/identity.js";
import {
  type CostEstimate,
  estimateSummaryCost,
  mergeSummaries,
  summaryRequests,
} from "../../core/compact/llmSummary.js";
import {
  DEFAULT_KEEP_RECENT_TOKENS,
  formatFileOperations,
  type Preparation,
  prepareCompaction,
} from "../../core/compact/prepare.js";
import { codexBody, contextInput, type InputItem, type TargetModel } from "../../core/compact/responses.js";
import { extractiveSummary } from "../../core/compact/summary.js";
import { parseSession, type Session } from "../../core/session/index.js";
import { credentialsIn, introducedCredentials, redacted, scannableJson } from "../../core/compact/secrets.js";
import { compactCodex, compactResponses, type ProviderResult, summarizeWith } from "./providers.js";
import { type Credentials, secretsOf, tokenExpired } from "./credentials.js";
import { CompactionFailure, type FailureClass } from "./failure.js";
import {
  appendIfUnchanged,
  publishLockHeld,
  SessionWriteError,
  type Snapshot,
  snapshot,
  withWriterLock,
} from "../sessionWrite.js";

export interface CompactOptions {
  file: string;
  leafId?: string;
  provider: Provider;
  model: string;
  azureResource?: string;
  azureDeployment?: string;
  baseUrl?: string;
  keepRecentTokens?: number;
  summary?: "extractive" | "llm";
  dryRun?: boolean;
  credentials: Credentials;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** A file written less than this long ago is busy (an agent is likely writing it). */
  busyWindowMs?: number;
  /** After a provider failure, append the readable-only compaction (`local_fallback`). Never the default. */
  writeFallback?: boolean;
  /** Write the readable-only compaction for this earlier failure without calling the provider again. */
  localOnly?: FailureClass;
  version?: string;
  /** Test hook: runs after the provider answered, before the file is checked again. */
  beforeRecheck?: () => Promise<void> | void;
  fetchImpl?: typeof fetch;
}

export interface CompactPlan {
  leafId: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  summarizedMessages: number;
  keptEntries: number;
  isSplitTurn: boolean;
  identity: Identity;
  transport: string;
  /** The request body, without credentials (headers are never part of it). */
  requestBody: Record<string, unknown>;
  summaryKind: "extractive" | "llm";
  /** The LLM summary's estimated input tokens and maximum cost, before anything is sent. */
  summaryCost: CostEstimate | null;
  summary: string;
}

export type CompactResult =
  | {
      state: "written";
      entryId: string;
      checkpoint: boolean;
      failureClass?: FailureClass;
      identity: Identity;
      firstKeptEntryId: string;
      tokensBefore: number;
      message: string;
    }
  | { state: "planned"; plan: CompactPlan; identity: Identity; firstKeptEntryId: string; tokensBefore: number }
  | { state: "refused"; reason: string; identity?: Identity; failureClass?: FailureClass }
  | {
      state: "failed";
      failureClass: FailureClass;
      message: string;
      identity: Identity;
      firstKeptEntryId: string;
      tokensBefore: number;
    };

/**
 * Compact a branch. A dry run only reads; a real run holds the writer lock throughout, so that a second writer of
 * ours (another window, the CLI) is refused before it pays for a provider call.
 */
export async function compactBranch(o: CompactOptions): Promise<CompactResult> {
  if (o.dryRun) return compactLocked(o);
  try {
    return await withWriterLock(o.file, () => compactLocked(o));
  } catch (err) {
    if (err instanceof SessionWriteError)
      return { state: "refused", reason: err.message, failureClass: "session_busy" };
    throw err;
  }
}

async function compactLocked(o: CompactOptions): Promise<CompactResult> {
  let identity: Identity;
  let transport: string;
  try {
    identity = identityFor(o);
    transport = transportBase(identity, o.baseUrl);
  } catch (err) {
    if (err instanceof RouteError) return { state: "refused", reason: err.message };
    throw err;
  }

  const read = await readBranch(o, identity);
  if ("state" in read) return read;
  const { snap, bytes, session, leafId } = read;
  const req = prepareRequest(o, identity, session, leafId);
  if ("state" in req) return req;
  const { base, entryId, requestBody, summaryRequestsList, extractive } = req;
  if (o.dryRun) return planOf(identity, transport, leafId, req);

  // Nothing that holds a credential in use is sent: it would reach the provider and come back into the file.
  const secrets = secretsOf(o.credentials);
  const outgoing = JSON.stringify(requestBody) + summaryRequestsList.map((r) => `${r.system}\n${r.prompt}`).join("\n");
  if (!o.localOnly && credentialsIn(outgoing, secrets).length)
    return {
      state: "refused",
      reason:
        "the branch contains the credential in use: it would be sent to the provider and written to the session. " +
        "Remove it from the conversation (or compact a branch without it).",
      identity,
    };

  // 4. The credential, 5. the readable summary (opt-in: an LLM call), 6. the provider call.
  const { summary, result, failure } = await callProvider(o, identity, transport, session, req);
  // An answer is written into the file: a credential-shaped value it introduced is refused, whatever the fallback.
  const answer = (result ? scannableJson(result.artifact) : "") + (summary === extractive ? "" : summary);
  const introduced = introducedCredentials(answer, outgoing);
  if (introduced.length)
    return {
      state: "failed",
      failureClass: "remote_error",
      message:
        "refusing to write: the provider's answer holds a credential-shaped value " +
        `(${redacted(introduced[0]!)}) that the request did not`,
      ...base,
    };
  // The post-compaction conversation as pi will send it (the summary, then the kept messages): the replay hashes.
  const postHashes = result ? replayHashes(o.file, bytes, req, leafId, summary) : [];
  if (!postHashes)
    return {
      state: "failed",
      failureClass: "serialization_unavailable",
      message: "the compacted branch could not be serialized",
      ...base,
    };
  if (failure && !o.writeFallback && !o.localOnly)
    return { state: "failed", failureClass: failure.failureClass, message: failure.message, ...base };

  // 6. The entry.
  const lines = compactionLines(o.version, identity, session, leafId, req, { summary, result, failure, postHashes });
  if (credentialsIn(lines, secrets).length)
    return {
      state: "failed",
      failureClass: "remote_error",
      message: "refusing to write: a credential in use appeared in the entry",
      ...base,
    };

  // 7. Re-check, and 8. append (OMP: under its publish lock).
  await o.beforeRecheck?.();
  try {
    await appendIfUnchanged(o.file, snap, lines);
  } catch (err) {
    if (err instanceof SessionWriteError) {
      const failureClass = err.reason === "busy" ? "session_busy" : "session_changed";
      const message =
        err.reason === "busy" ? err.message : "the session changed while the provider was working; nothing was written";
      return { state: "failed", failureClass, message, ...base };
    }
    throw err;
  }
  return {
    state: "written",
    entryId,
    checkpoint: result !== null,
    ...(failure ? { failureClass: failure.failureClass } : {}),
    message: result
      ? `checkpoint written (${result.artifact.length} items, ${identity.surface})`
      : `readable-only compaction written after ${failure!.failureClass}`,
    ...base,
  };
}

/** Step 1: the file read and checked: refused when it is no session, has no such leaf, or a writer is at it. */
async function readBranch(
  o: CompactOptions,
  identity: Identity,
): Promise<{ snap: Snapshot; bytes: Buffer; session: Session; leafId: string } | CompactResult> {
  let snap: Snapshot;
  let bytes: Buffer;
  try {
    ({ snap, bytes } = await snapshot(o.file));
  } catch (err) {
    return { state: "refused", reason: `cannot read ${o.file}: ${(err as Error).message}`, identity };
  }
  const parsed = parseSession(o.file, bytes);
  if (!parsed.ok)
    return {
      state: "refused",
      reason: `${o.file} line ${parsed.rejection.line}: ${parsed.rejection.message}`,
      identity,
    };
  const session = parsed.session;
  const why = appendRefusal(session, bytes, "compact");
  if (why) return { state: "refused", reason: why, identity };
  const leafId = o.leafId ?? session.leafId;
  if (!leafId || !session.byId.has(leafId))
    return { state: "refused", reason: `no entry ${JSON.stringify(leafId)} in the session`, identity };
  const busyWindow = o.busyWindowMs ?? 3000;
  if (!o.dryRun && Date.now() - Number(snap.mtimeNs / 1_000_000n) < busyWindow) {
    return {
      state: "refused",
      reason: "the file was written in the last few seconds: an agent is likely writing it; close it and retry",
      identity,
      failureClass: "session_busy",
    };
  }
  if (!o.dryRun && (await publishLockHeld(o.file))) {
    return {
      state: "refused",
      reason: "the session's lock is held: Oh My Pi (or another writer) is writing this session",
      identity,
      failureClass: "session_busy",
    };
  }

  return { snap, bytes, session, leafId };
}

/** Steps 2 and 3: what is summarized and kept, and the provider request that carries the branch. */
function prepareRequest(
  o: CompactOptions,
  identity: Identity,
  session: Session,
  leafId: string,
): PreparedRequest | CompactResult {
  const prep = prepareCompaction(session, leafId, o.keepRecentTokens ?? DEFAULT_KEEP_RECENT_TOKENS);
  if (prep === "already_compacted")
    return { state: "refused", reason: "the branch already ends in a compaction", identity };
  if (typeof prep === "string" || prep.messagesToSummarize.length + prep.turnPrefixMessages.length === 0) {
    return {
      state: "refused",
      reason: "nothing to compact: everything on the branch is within the recent context kept",
      identity,
    };
  }
  const base = { identity, firstKeptEntryId: prep.firstKeptEntryId, tokensBefore: prep.tokensBefore };

  // 3. Serialize the branch.
  const model = targetModel(identity);
  const entryId = newEntryId(session);
  let input: InputItem[];
  try {
    input = contextInput(model, buildContext(session, leafId).messages);
  } catch {
    return {
      state: "failed",
      failureClass: "serialization_unavailable",
      message: "the branch could not be serialized for the provider",
      ...base,
    };
  }
  const requestBody: Record<string, unknown> =
    identity.surface === "chatgpt_codex"
      ? {
          ...codexBody(model, input, { sessionId: session.header.id }),
          input: [...input, { type: "compaction_trigger" }],
        }
      : { model: identity.deployment ?? identity.model, input };
  const llm = o.summary === "llm";
  const summaryRequestsList = llm ? summaryRequests(prep) : [];
  const summaryCost = llm ? estimateSummaryCost(summaryRequestsList, `${model.provider}/${identity.model}`) : null;
  const extractive = extractiveSummary(prep, `${identity.surface}/${identity.model}`);

  return { prep, base, model, entryId, input, requestBody, llm, summaryRequestsList, summaryCost, extractive };
}

/** What steps 2 and 3 settled. */
interface PreparedRequest {
  prep: Preparation;
  /** What every answer after this step reports. */
  base: { identity: Identity; firstKeptEntryId: string; tokensBefore: number };
  model: TargetModel;
  entryId: string;
  input: InputItem[];
  requestBody: Record<string, unknown>;
  llm: boolean;
  summaryRequestsList: ReturnType<typeof summaryRequests>;
  summaryCost: CostEstimate | null;
  extractive: string;
}

/** A dry run's answer: what would be sent and written. */
function planOf(identity: Identity, transport: string, leafId: string, req: PreparedRequest): CompactResult {
  const { prep, base, requestBody, llm, summaryCost, extractive } = req;
  const keptEntries = prep.path.length - prep.path.findIndex((e) => e.id === prep.firstKeptEntryId);
  return {
    state: "planned",
    plan: {
      leafId,
      firstKeptEntryId: prep.firstKeptEntryId,
      tokensBefore: prep.tokensBefore,
      summarizedMessages: prep.messagesToSummarize.length + prep.turnPrefixMessages.length,
      keptEntries,
      isSplitTurn: prep.isSplitTurn,
      identity,
      transport,
      requestBody,
      summaryKind: llm ? "llm" : "extractive",
      summaryCost,
      summary: llm ? `(written by ${identity.model} with pi's summarization prompt when compacting)` : extractive,
    },
    ...base,
  };
}

/** Steps 4 to 6: the credential, the readable summary (an LLM call when asked for), and the provider's compaction. */
async function callProvider(
  o: CompactOptions,
  identity: Identity,
  transport: string,
  session: Session,
  req: PreparedRequest,
): Promise<{ summary: string; result: ProviderResult | null; failure: CompactionFailure | null }> {
  const { prep, model, input, llm, summaryRequestsList, extractive } = req;
  const callOptions = { signal: o.signal, timeoutMs: o.timeoutMs, fetchImpl: o.fetchImpl };
  let summary = extractive;
  let result: ProviderResult | null = null;
  let failure: CompactionFailure | null = null;
  try {
    if (o.localOnly) throw new CompactionFailure(o.localOnly, "readable-only compaction requested");
    const credential = identity.surface === "chatgpt_codex" ? o.credentials.codexToken : o.credentials.apiKey;
    if (!credential) {
      throw new CompactionFailure(
        "auth_unavailable",
        identity.surface === "chatgpt_codex"
          ? "no ChatGPT login found (~/.pi/agent/auth.json or ~/.codex/auth.json); run pi and /login"
          : identity.surface === "azure_openai"
            ? "no Azure OpenAI API key (AZURE_OPENAI_API_KEY)"
            : "no OpenAI API key (OPENAI_API_KEY)",
      );
    }
    if (identity.surface === "chatgpt_codex" && tokenExpired(credential))
      throw new CompactionFailure(
        "auth_unavailable",
        "the ChatGPT login has expired; run pi (or codex) once to refresh it",
      );
    if (llm) {
      const texts: Partial<Record<"history" | "turnPrefix", string>> = {};
      for (const r of summaryRequestsList)
        texts[r.kind] = await summarizeWith(identity, transport, credential, r, session.header.id, callOptions);
      summary =
        mergeSummaries(texts.history, texts.turnPrefix) + formatFileOperations(prep.readFiles, prep.modifiedFiles);
    }
    result =
      identity.surface === "chatgpt_codex"
        ? await compactCodex(
            identity,
            transport,
            credential,
            { ...codexBody(model, input, { sessionId: session.header.id }) },
            session.header.id,
            callOptions,
          )
        : await compactResponses(identity, transport, credential, input, callOptions);
  } catch (err) {
    if (!(err instanceof CompactionFailure)) throw err;
    failure = err;
  }
  return { summary, result, failure };
}
