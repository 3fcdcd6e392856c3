/**
 * What the reader takes from a record while it holds the parsed object, so that listings, usage and the model at a
 * leaf never need the record's body again (bodies are parsed lazily, see `Entry.data`).
 */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Token buckets (input and cache disjoint) and the harness's USD cost estimate. */
export interface TokenBuckets {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: number;
}

/** One usage record's numbers and where they come from. */
export interface UsageFacts extends TokenBuckets {
  source: "assistant" | "model_usage" | "task";
  provider: string;
  /** The served model: `responseModel` if present, else `model`. */
  model: string;
}

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

function facts(
  source: UsageFacts["source"],
  provider: string,
  model: string,
  usage: Record<string, unknown>,
): UsageFacts {
  const input = num(usage.input);
  const output = num(usage.output);
  const cacheRead = num(usage.cacheRead);
  const cacheWrite = num(usage.cacheWrite);
  const totalTokens =
    typeof usage.totalTokens === "number" && usage.totalTokens
      ? usage.totalTokens
      : input + output + cacheRead + cacheWrite;
  const cost = isPlainObject(usage.cost) ? num(usage.cost.total) : 0;
  return { source, provider, model, input, output, cacheRead, cacheWrite, totalTokens, cost };
}

/**
 * The usage a record carries (docs/session-format.md#usage, #t16, #t18): assistant `usage` (pi and OMP), OMP
 * `model_usage` entries, and OMP `toolResult` of the `task` tool (`details.usage`, subagent spend).
 */
export function usageFacts(type: string, d: Record<string, unknown>): UsageFacts | undefined {
  if (type === "model_usage") {
    return isPlainObject(d.usage)
      ? facts("model_usage", String(d.provider ?? ""), String(d.model ?? ""), d.usage)
      : undefined;
  }
  if (type !== "message" || !isPlainObject(d.message)) return undefined;
  const m = d.message;
  if (m.role === "assistant" && isPlainObject(m.usage)) {
    const served = typeof m.responseModel === "string" && m.responseModel ? m.responseModel : String(m.model ?? "");
    return facts("assistant", String(m.provider ?? ""), served, m.usage);
  }
  if (m.role === "toolResult" && m.toolName === "task" && isPlainObject(m.details) && isPlainObject(m.details.usage)) {
    const details = m.details;
    const model = typeof details.model === "string" ? details.model : "subagent";
    return facts(
      "task",
      typeof details.provider === "string" ? details.provider : "task",
      model,
      details.usage as Record<string, unknown>,
    );
  }
  return undefined;
}
