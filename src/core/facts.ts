/**
 * What the reader takes from a record while it holds the parsed object, so that listings, usage and the model at a
 * leaf never need the record's body again (bodies are parsed lazily, see `Entry.data`).
 */

import { type CompactionDetails, compactionDetails, summaryUsageOf } from "./compact/checkpointDetails.js";
import { isPlainObject } from "./jsonShape.js";
import { narrowMessage } from "./session/message.js";

export { isPlainObject };

/** Token buckets (input and cache disjoint) and the harness's USD cost estimate. */
export interface TokenBuckets {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: number;
}

/**
 * One usage record's numbers and where they come from. A compaction can carry two records, never added together:
 * `compaction_summary`, the harness's own summary call (the entry's `usage`, priced by the harness), and
 * `server_compaction`, the provider's compaction call of a Blackmagic checkpoint (`details.usage`): its tokens count,
 * but it carries no price, so its cost is unknown, not zero (`isPriced`).
 */
export interface UsageFacts extends TokenBuckets {
  source:
    | "assistant"
    | "model_usage"
    | "task"
    | "compaction_summary"
    | "server_compaction"
    // pi 1.6: a call outside the conversation (`usage` entries: the prompt-cache warmer), a branch summary's own
    // call, and a tool result's (the usage of the calls a tool made, `nestedCalls`).
    | "usage_entry"
    | "branch_summary"
    | "tool_result";
  provider: string;
  /** The served model: `responseModel` if present, else `model`. */
  model: string;
}

/**
 * Counts past this are no count (a quadrillion tokens, or dollars): taken as absent, like a negative or non-finite
 * number, so that no sum of a store's records can overflow to Infinity or go below zero.
 */
const MAX_COUNT = 1e15;

function num(v: unknown): number {
  return typeof v === "number" && v >= 0 && v <= MAX_COUNT ? v : 0;
}

function facts(
  source: UsageFacts["source"],
  provider: string,
  model: string,
  usage: Record<string, unknown>,
  costRecord: Record<string, unknown> | undefined,
): UsageFacts {
  const input = num(usage.input);
  const output = num(usage.output);
  const cacheRead = num(usage.cacheRead);
  const cacheWrite = num(usage.cacheWrite);
  // Only counts in range count (`1e400` parses as Infinity, which no cache, worker or JSON keeps): one rule on every
  // path (`num`).
  const totalTokens = num(usage.totalTokens) || input + output + cacheRead + cacheWrite;
  const cost = costRecord ? num(costRecord.total) : 0;
  return { source, provider, model, input, output, cacheRead, cacheWrite, totalTokens, cost };
}

/** Whether a record's `cost` is a price: a server compaction's usage has none (its cost is unknown, not zero). */
export function isPriced(r: { source: UsageFacts["source"] }): boolean {
  return r.source !== "server_compaction";
}

/** The provider a Blackmagic checkpoint's surface bills through, as pi names it. */
const SURFACE_PROVIDER: Record<string, string> = {
  openai_api: "openai",
  azure_openai: "azure-openai-responses",
  chatgpt_codex: "openai-codex",
};

/**
 * A server compaction's usage (`details.usage` of a Blackmagic `remote_applied` checkpoint, schema 1): the
 * Responses API's `input_tokens` include `cached_tokens`, so the cached share is moved to `cacheRead`.
 */
function serverCompactionFacts(details: CompactionDetails): UsageFacts | undefined {
  if (details.schemaVersion !== 1 || details.state !== "remote_applied") return undefined;
  const u = details.usage;
  const identity = details.identity ?? {};
  if (!u) return undefined;
  const cached = Math.min(num(u.cached_tokens), num(u.input_tokens));
  const input = num(u.input_tokens) - cached;
  const output = num(u.output_tokens);
  const total = num(u.total_tokens) || input + cached + output;
  if (total === 0) return undefined;
  const surface = typeof identity.surface === "string" ? identity.surface : "";
  return {
    source: "server_compaction",
    provider: SURFACE_PROVIDER[surface] ?? surface,
    model: typeof identity.model === "string" ? identity.model : "",
    input,
    output,
    cacheRead: cached,
    cacheWrite: 0,
    totalTokens: total,
    cost: 0,
  };
}

/**
 * The usage records of a compaction entry: the harness's summary call (its model is filled in by the reader: the
 * model in effect, which the entry does not name) and a server compaction's call.
 */
function compactionFacts(d: Record<string, unknown>): UsageFacts[] {
  const out: UsageFacts[] = [];
  const usage = summaryUsageOf(d.usage);
  if (usage) {
    const summary = facts("compaction_summary", "", "", usage, usage.cost);
    if (summary.totalTokens > 0 || summary.cost > 0) out.push(summary);
  }
  const details = compactionDetails(d.details);
  const server = details ? serverCompactionFacts(details) : undefined;
  if (server) out.push(server);
  return out;
}

/**
 * The usage a record carries (docs/session-format.md#usage, #t16, #t18): assistant `usage` (pi and OMP), OMP
 * `model_usage` entries, OMP `toolResult` of the `task` tool (`details.usage`, subagent spend), and compactions
 * (their summary call, and a server compaction's call).
 */
export function usageFacts(type: string, d: Record<string, unknown>): UsageFacts | UsageFacts[] | undefined {
  if (type === "compaction") {
    const all = compactionFacts(d);
    return all.length === 0 ? undefined : all.length === 1 ? all[0] : all;
  }
  if (type === "usage" || type === "model_usage") {
    // pi 1.6's `usage` entry names the model served (`responseModel ?? model`, as its cache warmer writes it).
    const usage = summaryUsageOf(d.usage);
    const source = type === "usage" ? "usage_entry" : "model_usage";
    return usage ? facts(source, String(d.provider ?? ""), String(d.model ?? ""), usage, usage.cost) : undefined;
  }
  if (type === "branch_summary") {
    // The summary call's model is the one in effect (named by the reader, as for a compaction's summary).
    const usage = summaryUsageOf(d.usage);
    const summary = usage ? facts("branch_summary", "", "", usage, usage.cost) : undefined;
    return summary && (summary.totalTokens > 0 || summary.cost > 0) ? summary : undefined;
  }
  const view = type === "message" ? narrowMessage(d.message) : undefined;
  if (!view) return undefined;
  const m = view.record;
  if (view.role === "assistant" && view.usage) {
    const served = typeof m.responseModel === "string" && m.responseModel ? m.responseModel : String(m.model ?? "");
    return facts("assistant", String(m.provider ?? ""), served, view.usage, view.cost);
  }
  const taskUsage = view.role === "toolResult" && m.toolName === "task" ? summaryUsageOf(view.details?.usage) : null;
  if (taskUsage) {
    const details = view.details!;
    const model = typeof details.model === "string" ? details.model : "subagent";
    return facts(
      "task",
      typeof details.provider === "string" ? details.provider : "task",
      model,
      taskUsage,
      taskUsage.cost,
    );
  }
  // pi 1.6: a tool result's own usage (its nested calls' usage merged there), counted by pi's session totals.
  if (view.role === "toolResult" && view.usage) {
    const tool = typeof m.toolName === "string" ? m.toolName : "tool";
    return facts("tool_result", "tool", tool, view.usage, view.cost);
  }
  return undefined;
}
