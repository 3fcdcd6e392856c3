/**
 * The opt-in LLM summary: pi's own summarization prompts (pi-data.json, generated from the installed pi packages)
 * over pi's text serialization of the messages, so the summary has the format pi's next native compaction expects.
 * The requests and their estimated cost are known before anything is sent.
 */
import type { ContextMessage } from "../context/index.js";
import { type ContentBlock, narrowContent } from "../session/index.js";
import piData from "./pi-data.json" with { type: "json" };
import type { Preparation } from "./prepare.js";
import { convertToLlm } from "./responses.js";

const TOOL_RESULT_MAX_CHARS = 2000;
/** pi's summary budget: 0.8 (history) and 0.5 (turn prefix) of its default reserveTokens, 16384. */
const RESERVE_TOKENS = 16384;

type Json = Record<string, unknown>;

function blocks(content: unknown): ContentBlock[] {
  return narrowContent(content);
}

/** pi's `serializeConversation`: the messages as labelled text, tool results truncated. */
export function serializeConversation(messages: Json[]): string {
  const parts: string[] = [];
  for (const msg of messages) {
    if (msg.role === "user") {
      const content =
        typeof msg.content === "string"
          ? msg.content
          : blocks(msg.content)
              .filter((c) => c.type === "text")
              .map((c) => String(c.record.text))
              .join("");
      if (content) parts.push(`[User]: ${content}`);
    } else if (msg.role === "assistant") {
      const text: string[] = [];
      const thinking: string[] = [];
      const calls: string[] = [];
      for (const b of blocks(msg.content)) {
        if (b.type === "text") text.push(String(b.record.text));
        else if (b.type === "thinking") thinking.push(String(b.record.thinking));
        else if (b.type === "toolCall") {
          const args = b.arguments ?? {};
          calls.push(
            `${String(b.record.name)}(${Object.entries(args)
              .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
              .join(", ")})`,
          );
        }
      }
      if (thinking.length) parts.push(`[Assistant thinking]: ${thinking.join("\n")}`);
      if (text.length) parts.push(`[Assistant]: ${text.join("\n")}`);
      if (calls.length) parts.push(`[Assistant tool calls]: ${calls.join("; ")}`);
    } else if (msg.role === "toolResult") {
      const content = blocks(msg.content)
        .filter((c) => c.type === "text")
        .map((c) => String(c.record.text))
        .join("");
      if (content) {
        const cut =
          content.length > TOOL_RESULT_MAX_CHARS
            ? `${content.slice(0, TOOL_RESULT_MAX_CHARS)}\n\n` +
              `[... ${content.length - TOOL_RESULT_MAX_CHARS} more characters truncated]`
            : content;
        parts.push(`[Tool result]: ${cut}`);
      }
    }
  }
  return parts.join("\n\n");
}

export interface SummaryRequest {
  kind: "history" | "turnPrefix";
  system: string;
  prompt: string;
  maxOutputTokens: number;
}

/** The one or two summarization requests pi would make for this preparation. */
export function summaryRequests(p: Preparation): SummaryRequest[] {
  const out: SummaryRequest[] = [];
  const conv = (messages: ContextMessage[]) =>
    `<conversation>\n${serializeConversation(convertToLlm(messages))}\n</conversation>\n\n`;
  if (!p.isSplitTurn || p.messagesToSummarize.length > 0) {
    let prompt = conv(p.messagesToSummarize);
    if (p.previousSummary) prompt += `<previous-summary>\n${p.previousSummary}\n</previous-summary>\n\n`;
    prompt += p.previousSummary ? piData.updateSummarizationPrompt : piData.summarizationPrompt;
    out.push({
      kind: "history",
      system: piData.systemPrompt,
      prompt,
      maxOutputTokens: Math.floor(0.8 * RESERVE_TOKENS),
    });
  }
  if (p.isSplitTurn && p.turnPrefixMessages.length > 0) {
    out.push({
      kind: "turnPrefix",
      system: piData.systemPrompt,
      prompt: conv(p.turnPrefixMessages) + piData.turnPrefixPrompt,
      maxOutputTokens: Math.floor(0.5 * RESERVE_TOKENS),
    });
  }
  return out;
}

/** pi's merge of the history and turn-prefix summaries (the file lists are appended by the caller). */
export function mergeSummaries(history: string | undefined, turnPrefix: string | undefined): string {
  if (turnPrefix !== undefined)
    return `${history ?? "No prior history."}\n\n---\n\n**Turn Context (split turn):**\n\n${turnPrefix}`;
  return history ?? "";
}

export interface CostEstimate {
  inputTokens: number;
  maxOutputTokens: number;
  /** USD, at pi-ai's list prices; null when the model is not in pi-ai's table. */
  maxCost: number | null;
}

/** Input estimated at 4 characters per token; output at its ceiling. */
export function estimateSummaryCost(requests: SummaryRequest[], priceKey: string): CostEstimate {
  const inputTokens = requests.reduce((n, r) => n + Math.ceil((r.system.length + r.prompt.length) / 4), 0);
  const maxOutputTokens = requests.reduce((n, r) => n + r.maxOutputTokens, 0);
  const price = (piData.prices as Record<string, { input: number; output: number }>)[priceKey];
  return {
    inputTokens,
    maxOutputTokens,
    maxCost: price ? (inputTokens * price.input + maxOutputTokens * price.output) / 1_000_000 : null,
  };
}
