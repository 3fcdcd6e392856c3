/**
 * The provider calls (docs/checkpoints.md#requests): OpenAI and Azure through the official `openai` SDK v6
 * (`responses.compact`), ChatGPT Codex through `fetch` with the `compaction_trigger` v2 body and SSE. Each result is
 * validated (exactly one compaction item with non-empty encrypted content, and it is last) before anything else.
 * Error messages name the status and the surface, never a credential or a response body.
 */
import { arch, platform, release } from "node:os";
import OpenAI, { AzureOpenAI } from "openai";
import type { Identity } from "../../core/compact/identity.js";
import type { InputItem } from "../../core/compact/responses.js";
import { MAX_NESTING, nestingExceeds, parseLine } from "../../core/jsonl.js";
import { CompactionFailure } from "./failure.js";
import { deadline, failureIn, guardedFetch, redirectFailure } from "./http.js";

export interface ProviderResult {
  artifact: InputItem[];
  retention: string;
  usage?: Record<string, number>;
  latencyMs: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
}

/** The default deadline of one provider call, headers and body. */
const DEFAULT_TIMEOUT_MS = 120_000;

function classifyStatus(status: number, surface: string): CompactionFailure {
  if (status >= 300 && status < 400) return redirectFailure(status, surface);
  if (status === 401 || status === 403)
    return new CompactionFailure("auth", `${surface} refused the credentials (HTTP ${status})`);
  if (status === 404 || status === 422)
    return new CompactionFailure(
      "model_or_protocol",
      `${surface} does not support this model or request (HTTP ${status})`,
    );
  return new CompactionFailure("remote_error", `${surface} failed (HTTP ${status})`);
}

/** The output must hold exactly one compaction item, with encrypted content, and it must be last. */
function validateOutput(output: unknown, surface: string, exactlyOne: boolean): InputItem {
  if (!Array.isArray(output) || output.length === 0)
    throw new CompactionFailure("remote_error", `${surface} returned no output items`);
  // The artifact is hashed, written and replayed: an answer nested past the bound is refused, not walked.
  let json: string;
  try {
    json = JSON.stringify(output);
  } catch {
    json = "";
  }
  if (!json || nestingExceeds(json))
    throw new CompactionFailure("remote_error", `${surface} sent an answer nested deeper than ${MAX_NESTING} levels`);
  const compactions = output.filter((i) => i && typeof i === "object" && (i as InputItem).type === "compaction");
  if (compactions.length !== 1)
    throw new CompactionFailure(
      "remote_error",
      `${surface} returned ${compactions.length} compaction items, expected exactly one`,
    );
  const item = compactions[0] as InputItem;
  if (output[output.length - 1] !== item)
    throw new CompactionFailure("remote_error", `${surface}: the compaction item is not the last output item`);
  if (typeof item.encrypted_content !== "string" || item.encrypted_content === "")
    throw new CompactionFailure("remote_error", `${surface}: the compaction item has no encrypted content`);
  if (exactlyOne && output.length !== 1)
    throw new CompactionFailure(
      "remote_error",
      `${surface} returned ${output.length} output items, expected only the compaction item`,
    );
  return item;
}

function numericUsage(u: unknown): Record<string, number> | undefined {
  if (!u || typeof u !== "object") return undefined;
  const out: Record<string, number> = {};
  for (const k of ["input_tokens", "output_tokens", "total_tokens", "cached_tokens"]) {
    const v = (u as Record<string, unknown>)[k];
    if (typeof v === "number" && Number.isFinite(v)) out[k] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

/** OpenAI (`/v1/responses/compact`, Bearer) and Azure (`/openai/v1/responses/compact?api-version=v1`, api-key). */
export async function compactResponses(
  identity: Identity,
  baseURL: string,
  apiKey: string,
  input: InputItem[],
  o: CallOptions = {},
): Promise<ProviderResult> {
  const { client, surface, model } = sdkClient(identity, baseURL, apiKey, o);
  const started = Date.now();
  const d = deadline(o.timeoutMs ?? DEFAULT_TIMEOUT_MS, o.signal);
  let res: { output?: unknown; usage?: unknown };
  try {
    res = (await client.responses.compact({ model, input: input as never }, { signal: d.signal })) as never;
  } catch (err) {
    throw classifySdkError(err, surface, d.timedOut());
  } finally {
    d.done();
  }
  const item = validateOutput(res.output, surface, false);
  const users = (res.output as InputItem[]).filter((i) => i.type === "message" && i.role === "user");
  return {
    artifact: [...users, item],
    retention: "canonical_provider_window",
    usage: numericUsage(res.usage),
    latencyMs: Date.now() - started,
  };
}

/** The SDK client for OpenAI or Azure, on the guarded fetch (no redirects, a cap on the answer). */
function sdkClient(identity: Identity, baseURL: string, apiKey: string, o: CallOptions) {
  const surface = identity.surface === "azure_openai" ? "Azure OpenAI" : "OpenAI";
  const common = {
    apiKey,
    baseURL,
    maxRetries: 0,
    timeout: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    fetch: guardedFetch(surface, o.fetchImpl),
  };
  const client =
    identity.surface === "azure_openai" ? new AzureOpenAI({ ...common, apiVersion: "v1" }) : new OpenAI(common);
  const model = identity.surface === "azure_openai" ? (identity.deployment ?? identity.model) : identity.model;
  return { client, surface, model };
}

function classifySdkError(err: unknown, surface: string, timedOut: boolean): CompactionFailure {
  const failure = failureIn(err);
  if (failure) return failure;
  if (timedOut || err instanceof OpenAI.APIConnectionTimeoutError)
    return new CompactionFailure("timeout", `${surface} did not answer in time`);
  if (err instanceof OpenAI.APIUserAbortError || (err instanceof Error && err.name === "AbortError"))
    return new CompactionFailure("timeout", `the call to ${surface} was cancelled`);
  if (err instanceof OpenAI.APIError && typeof err.status === "number") return classifyStatus(err.status, surface);
  if (err instanceof OpenAI.APIConnectionError)
    return new CompactionFailure("remote_error", `${surface} could not be reached`);
  // e.g. a body that is not JSON
  return new CompactionFailure("remote_error", `${surface} sent an answer that could not be read`);
}

/** The ChatGPT account id from the access token's claim (pi-ai's `extractAccountId`). */
function codexAccountId(token: string): string {
  const parts = token.split(".");
  if (parts.length !== 3) throw new CompactionFailure("auth_unavailable", "the ChatGPT token is not a JWT");
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"));
    const id = claims?.["https://api.openai.com/auth"]?.chatgpt_account_id;
    if (typeof id === "string" && id) return id;
  } catch {
    // fall through
  }
  throw new CompactionFailure("auth_unavailable", "the ChatGPT token carries no account id");
}

const CODEX_RETAIN_TOKENS = 64_000;

/** Blackmagic's `retainCodexInput`: the newest real user messages within 64k estimated tokens, in original order. */
function retainCodexInput(input: InputItem[]): InputItem[] {
  const kept: InputItem[] = [];
  let budget = CODEX_RETAIN_TOKENS;
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i]!;
    if (item.role !== "user" || (typeof item.name === "string" && item.name.startsWith("hc-"))) continue;
    const cost = Math.ceil(JSON.stringify(item).length / 4);
    if (cost > budget) break;
    budget -= cost;
    kept.unshift(item);
  }
  return kept;
}

/** Why a Codex answer could not be used: nested past the bound, or not JSON at all. */
function unreadable(parsed: { tooDeep?: boolean }, what: string): CompactionFailure {
  const why = parsed.tooDeep ? `an answer nested deeper than ${MAX_NESTING} levels` : what;
  return new CompactionFailure("remote_error", `ChatGPT Codex sent ${why}`);
}

/** Parse a Codex response: JSON, or SSE `data:` lines with `response.output_item.done` and `response.completed`. */
function parseCodexResponse(text: string): { output: unknown[]; usage?: unknown } {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{")) {
    const parsed = parseLine(trimmed);
    if (!parsed.ok) throw unreadable(parsed, "an answer that could not be read");
    const json = parsed.value as {
      output?: unknown[];
      usage?: unknown;
      response?: { output?: unknown[]; usage?: unknown };
    };
    return { output: json.output ?? json.response?.output ?? [], usage: json.usage ?? json.response?.usage };
  }
  const items: unknown[] = [];
  let completed: { output?: unknown[]; usage?: unknown } | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (!data || data === "[DONE]") continue;
    const parsed = parseLine(data);
    if (!parsed.ok) throw unreadable(parsed, "an event that is not JSON");
    const event = (parsed.value && typeof parsed.value === "object" ? parsed.value : {}) as {
      type?: string;
      item?: unknown;
      response?: { output?: unknown[]; usage?: unknown };
    };
    if (event.type === "response.output_item.done") items.push(event.item);
    else if (event.type === "response.completed") completed = event.response ?? {};
    else if (event.type === "response.failed" || event.type === "error")
      throw new CompactionFailure("remote_error", "ChatGPT Codex reported a failed response");
  }
  if (!completed)
    throw new CompactionFailure("remote_error", "the ChatGPT Codex stream ended without response.completed");
  const output = completed.output && completed.output.length ? completed.output : items;
  return { output, usage: completed.usage };
}

/** POST a body to the Codex responses endpoint with pi-ai's headers; returns the response text (JSON or SSE). */
async function codexRequest(
  baseURL: string,
  token: string,
  body: Record<string, unknown>,
  sessionId: string | undefined,
  o: CallOptions,
): Promise<string> {
  const accountId = codexAccountId(token);
  const headers: Record<string, string> = {
    Authorization: `Bearer ${token}`,
    "chatgpt-account-id": accountId,
    originator: "pi",
    "User-Agent": `pi (${platform()} ${release()}; ${arch()})`,
    "OpenAI-Beta": "responses=experimental",
    accept: "text/event-stream",
    "content-type": "application/json",
  };
  if (sessionId) headers.session_id = sessionId;
  const d = deadline(o.timeoutMs ?? DEFAULT_TIMEOUT_MS, o.signal);
  const timeout = () =>
    new CompactionFailure(
      "timeout",
      d.timedOut() ? "ChatGPT Codex did not answer in time" : "the call to ChatGPT Codex was cancelled",
    );
  try {
    let res: Response;
    try {
      res = await guardedFetch("ChatGPT Codex", o.fetchImpl)(`${baseURL}/codex/responses`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: d.signal,
      });
    } catch (err) {
      if (d.signal.aborted) throw timeout();
      throw failureIn(err) ?? new CompactionFailure("remote_error", "ChatGPT Codex could not be reached");
    }
    if (!res.ok) throw classifyStatus(res.status, "ChatGPT Codex");
    try {
      return await res.text();
    } catch (err) {
      if (d.signal.aborted) throw timeout();
      throw failureIn(err) ?? new CompactionFailure("remote_error", "the ChatGPT Codex stream broke off");
    }
  } finally {
    d.done();
  }
}

function parseCodex(text: string): { output: unknown[]; usage?: unknown } {
  try {
    return parseCodexResponse(text);
  } catch (err) {
    if (err instanceof CompactionFailure) throw err;
    throw new CompactionFailure("remote_error", "ChatGPT Codex sent an answer that could not be read");
  }
}

/** ChatGPT Codex: the pi-ai Codex body with `compaction_trigger` appended, to `/codex/responses`. */
export async function compactCodex(
  identity: Identity,
  baseURL: string,
  token: string,
  body: Record<string, unknown>,
  sessionId: string | undefined,
  o: CallOptions = {},
): Promise<ProviderResult> {
  const input = body.input as InputItem[];
  const started = Date.now();
  const parsed = parseCodex(
    await codexRequest(baseURL, token, { ...body, input: [...input, { type: "compaction_trigger" }] }, sessionId, o),
  );
  const item = validateOutput(parsed.output, "ChatGPT Codex", true);
  return {
    artifact: [...retainCodexInput(input), item],
    retention: "recent_real_user_messages_64000_plus_canonical_provider_window",
    usage: numericUsage(parsed.usage),
    latencyMs: Date.now() - started,
  };
}

function outputText(output: unknown): string {
  if (!Array.isArray(output)) return "";
  const texts: string[] = [];
  for (const item of output as InputItem[]) {
    if (item.type !== "message" || !Array.isArray(item.content)) continue;
    for (const c of item.content as InputItem[])
      if (c.type === "output_text" && typeof c.text === "string") texts.push(c.text);
  }
  return texts.join("\n");
}

/** One summarization call (pi's prompts) through the same surface; returns the summary text. */
export async function summarizeWith(
  identity: Identity,
  baseURL: string,
  credential: string,
  request: { system: string; prompt: string; maxOutputTokens: number },
  sessionId: string | undefined,
  o: CallOptions = {},
): Promise<string> {
  const input = [{ role: "user", content: [{ type: "input_text", text: request.prompt }] }];
  let text: string;
  if (identity.surface === "chatgpt_codex") {
    const body = {
      model: identity.model,
      store: false,
      stream: true,
      instructions: request.system,
      input,
      text: { verbosity: "low" },
      include: [],
      tool_choice: "auto",
      parallel_tool_calls: false,
    };
    text = outputText(parseCodex(await codexRequest(baseURL, credential, body, sessionId, o)).output);
  } else {
    const { client, surface, model } = sdkClient(identity, baseURL, credential, o);
    const d = deadline(o.timeoutMs ?? DEFAULT_TIMEOUT_MS, o.signal);
    try {
      const res = await client.responses.create(
        {
          model,
          instructions: request.system,
          input: input as never,
          max_output_tokens: request.maxOutputTokens,
          store: false,
        },
        { signal: d.signal },
      );
      text = outputText(res.output);
    } catch (err) {
      throw classifySdkError(err, surface, d.timedOut());
    } finally {
      d.done();
    }
  }
  if (!text.trim()) throw new CompactionFailure("remote_error", "the summary came back empty");
  return text;
}
