/**
 * Our port of how pi turns a branch into OpenAI Responses input items (docs/checkpoints.md#requests):
 * pi-coding-agent's `convertToLlm` and pi-ai 0.73's `transformMessages` + `convertResponsesMessages`, and the request
 * bodies of the three Responses surfaces. Golden tests compare every item, by hash, with the real pi-ai.
 * Key order and `undefined`-valued keys matter: replay compares `sha256(JSON.stringify(item))`.
 */
import type { ContextMessage } from "../context/index.js";
import { parseLine } from "../jsonl.js";

export type ResponsesApi = "openai-responses" | "azure-openai-responses" | "openai-codex-responses";

/** The target model, as pi-ai describes it (only what the conversion reads). */
export interface TargetModel {
  id: string;
  provider: string;
  api: ResponsesApi;
  reasoning: boolean;
  input: string[];
  thinkingLevelMap?: Record<string, string | null>;
}

type Json = Record<string, unknown>;
export type InputItem = Json;

const COMPACTION_SUMMARY_PREFIX =
  "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
const COMPACTION_SUMMARY_SUFFIX = "\n</summary>";
const BRANCH_SUMMARY_PREFIX =
  "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
const BRANCH_SUMMARY_SUFFIX = "</summary>";

/** pi-ai's shortHash (a 53-bit cyrb hash in base 36). */
function shortHash(str: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < str.length; i++) {
    const ch = str.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(36) + (h1 >>> 0).toString(36);
}

/** Lone UTF-16 surrogates removed, as pi-ai does before sending text. */
function sanitizeSurrogates(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "");
}

function bashExecutionToText(m: Json): string {
  let text = `Ran \`${String(m.command)}\`\n`;
  text += m.output ? `\`\`\`\n${String(m.output)}\n\`\`\`` : "(no output)";
  if (m.cancelled) text += "\n\n(command cancelled)";
  else if (m.exitCode !== null && m.exitCode !== undefined && m.exitCode !== 0)
    text += `\n\nCommand exited with code ${String(m.exitCode)}`;
  if (m.truncated && m.fullOutputPath) text += `\n\n[Output truncated. Full output: ${String(m.fullOutputPath)}]`;
  return text;
}

/** pi-coding-agent's `convertToLlm`: pi's own message kinds become user messages. */
export function convertToLlm(messages: ContextMessage[]): Json[] {
  const out: Json[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "bashExecution":
        if (m.excludeFromContext) break;
        out.push({ role: "user", content: [{ type: "text", text: bashExecutionToText(m) }], timestamp: m.timestamp });
        break;
      case "custom":
        out.push({
          role: "user",
          content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content,
          timestamp: m.timestamp,
        });
        break;
      case "branchSummary":
        out.push({
          role: "user",
          content: [{ type: "text", text: BRANCH_SUMMARY_PREFIX + String(m.summary) + BRANCH_SUMMARY_SUFFIX }],
          timestamp: m.timestamp,
        });
        break;
      case "compactionSummary":
        out.push({
          role: "user",
          content: [{ type: "text", text: COMPACTION_SUMMARY_PREFIX + String(m.summary) + COMPACTION_SUMMARY_SUFFIX }],
          timestamp: m.timestamp,
        });
        break;
      case "user":
      case "assistant":
      case "toolResult":
        out.push(m);
        break;
      default:
        break;
    }
  }
  return out;
}

const USER_IMAGE_PLACEHOLDER = "(image omitted: model does not support images)";
const TOOL_IMAGE_PLACEHOLDER = "(tool image omitted: model does not support images)";

function replaceImages(content: Json[], placeholder: string): Json[] {
  const result: Json[] = [];
  let previousWasPlaceholder = false;
  for (const block of content) {
    if (block.type === "image") {
      if (!previousWasPlaceholder) result.push({ type: "text", text: placeholder });
      previousWasPlaceholder = true;
      continue;
    }
    result.push(block);
    previousWasPlaceholder = block.text === placeholder;
  }
  return result;
}

type NormalizeId = (id: string, source: Json) => string;

/** pi-ai's `transformMessages`: cross-model thinking/tool-id rules, skipped error turns, synthetic tool results. */
function transformMessages(messages: Json[], model: TargetModel, normalizeToolCallId: NormalizeId): Json[] {
  const toolCallIdMap = new Map<string, string>();
  const imageAware = model.input.includes("image")
    ? messages
    : messages.map((msg) => {
        if (msg.role === "user" && Array.isArray(msg.content))
          return { ...msg, content: replaceImages(msg.content as Json[], USER_IMAGE_PLACEHOLDER) };
        if (msg.role === "toolResult")
          return { ...msg, content: replaceImages(msg.content as Json[], TOOL_IMAGE_PLACEHOLDER) };
        return msg;
      });
  const transformed = imageAware.map((msg) => {
    if (msg.role === "user") return msg;
    if (msg.role === "toolResult") {
      const normalized = toolCallIdMap.get(String(msg.toolCallId));
      return normalized && normalized !== msg.toolCallId ? { ...msg, toolCallId: normalized } : msg;
    }
    if (msg.role === "assistant") {
      const isSameModel = msg.provider === model.provider && msg.api === model.api && msg.model === model.id;
      const content = (msg.content as Json[]).flatMap((block): Json | Json[] => {
        if (block.type === "thinking") {
          if (block.redacted) return isSameModel ? block : [];
          if (isSameModel && block.thinkingSignature) return block;
          if (!block.thinking || String(block.thinking).trim() === "") return [];
          if (isSameModel) return block;
          return { type: "text", text: block.thinking };
        }
        if (block.type === "text") return isSameModel ? block : { type: "text", text: block.text };
        if (block.type === "toolCall") {
          let call = block;
          if (!isSameModel && call.thoughtSignature) {
            call = { ...call };
            delete call.thoughtSignature;
          }
          if (!isSameModel) {
            const normalized = normalizeToolCallId(String(block.id), msg);
            if (normalized !== block.id) {
              toolCallIdMap.set(String(block.id), normalized);
              call = { ...call, id: normalized };
            }
          }
          return call;
        }
        return block;
      });
      return { ...msg, content };
    }
    return msg;
  });
  const result: Json[] = [];
  let pending: Json[] = [];
  let seenResults = new Set<string>();
  const flush = () => {
    for (const tc of pending) {
      if (!seenResults.has(String(tc.id))) {
        result.push({
          role: "toolResult",
          toolCallId: tc.id,
          toolName: tc.name,
          content: [{ type: "text", text: "No result provided" }],
          isError: true,
          timestamp: 0,
        });
      }
    }
    pending = [];
    seenResults = new Set();
  };
  for (const msg of transformed) {
    if (msg.role === "assistant") {
      flush();
      if (msg.stopReason === "error" || msg.stopReason === "aborted") continue;
      const calls = (msg.content as Json[]).filter((b) => b.type === "toolCall");
      if (calls.length) {
        pending = calls;
        seenResults = new Set();
      }
      result.push(msg);
    } else if (msg.role === "toolResult") {
      seenResults.add(String(msg.toolCallId));
      result.push(msg);
    } else {
      if (msg.role === "user") flush();
      result.push(msg);
    }
  }
  flush();
  return result;
}

/** A signature holds JSON (pi-ai parses it the same way, and throws on bad JSON); within the nesting bound. */
function parseSignature(text: string): Json {
  const parsed = parseLine(text);
  if (!parsed.ok) throw new Error(`a signature is not usable JSON (${parsed.error})`);
  return parsed.value as Json;
}

function parseTextSignature(signature: unknown): { id: string; phase?: string } | undefined {
  if (typeof signature !== "string" || !signature) return undefined;
  if (signature.startsWith("{")) {
    try {
      const parsed = parseSignature(signature);
      if (parsed.v === 1 && typeof parsed.id === "string") {
        return parsed.phase === "commentary" || parsed.phase === "final_answer"
          ? { id: parsed.id, phase: parsed.phase }
          : { id: parsed.id };
      }
    } catch {
      // legacy plain string
    }
  }
  return { id: signature };
}

/** Which providers' tool-call ids keep their item part (pi-ai's *_TOOL_CALL_PROVIDERS). */
const TOOL_CALL_PROVIDERS: Record<ResponsesApi, Set<string>> = {
  "openai-responses": new Set(["openai", "openai-codex", "opencode"]),
  "openai-codex-responses": new Set(["openai", "openai-codex", "opencode"]),
  "azure-openai-responses": new Set(["openai", "openai-codex", "opencode", "azure-openai-responses"]),
};

/** pi-ai's `convertResponsesMessages`. */
function responsesInput(
  model: TargetModel,
  messages: Json[],
  options: { systemPrompt?: string; includeSystemPrompt?: boolean } = {},
): InputItem[] {
  const allowed = TOOL_CALL_PROVIDERS[model.api];
  const normalizeIdPart = (part: string) => {
    const sanitized = part.replace(/[^a-zA-Z0-9_-]/g, "_");
    return (sanitized.length > 64 ? sanitized.slice(0, 64) : sanitized).replace(/_+$/, "");
  };
  const foreignItemId = (itemId: string) => {
    const normalized = `fc_${shortHash(itemId)}`;
    return normalized.length > 64 ? normalized.slice(0, 64) : normalized;
  };
  const normalizeToolCallId: NormalizeId = (id, source) => {
    if (!allowed.has(model.provider) || !id.includes("|")) return normalizeIdPart(id);
    const [callId, itemId] = id.split("|") as [string, string];
    const foreign = source.provider !== model.provider || source.api !== model.api;
    let item = foreign ? foreignItemId(itemId) : normalizeIdPart(itemId);
    if (!item.startsWith("fc_")) item = normalizeIdPart(`fc_${item}`);
    return `${normalizeIdPart(callId)}|${item}`;
  };
  const items: InputItem[] = [];
  if ((options.includeSystemPrompt ?? true) && options.systemPrompt) {
    items.push({ role: model.reasoning ? "developer" : "system", content: sanitizeSurrogates(options.systemPrompt) });
  }
  let msgIndex = 0;
  for (const msg of transformMessages(messages, model, normalizeToolCallId)) {
    if (msg.role === "user") {
      if (typeof msg.content === "string") {
        items.push({ role: "user", content: [{ type: "input_text", text: sanitizeSurrogates(msg.content) }] });
      } else {
        const content = (msg.content as Json[]).map((b) =>
          b.type === "text"
            ? { type: "input_text", text: sanitizeSurrogates(String(b.text)) }
            : { type: "input_image", detail: "auto", image_url: `data:${String(b.mimeType)};base64,${String(b.data)}` },
        );
        if (content.length === 0) continue;
        items.push({ role: "user", content });
      }
    } else if (msg.role === "assistant") {
      const output: InputItem[] = [];
      const isDifferentModel = msg.model !== model.id && msg.provider === model.provider && msg.api === model.api;
      for (const block of msg.content as Json[]) {
        if (block.type === "thinking") {
          if (block.thinkingSignature) output.push(parseSignature(String(block.thinkingSignature)));
        } else if (block.type === "text") {
          const sig = parseTextSignature(block.textSignature);
          let id = sig?.id;
          if (!id) id = `msg_${msgIndex}`;
          else if (id.length > 64) id = `msg_${shortHash(id)}`;
          output.push({
            type: "message",
            role: "assistant",
            content: [{ type: "output_text", text: sanitizeSurrogates(String(block.text)), annotations: [] }],
            status: "completed",
            id,
            phase: sig?.phase,
          });
        } else if (block.type === "toolCall") {
          const [callId, itemIdRaw] = String(block.id).split("|");
          let itemId: string | undefined = itemIdRaw;
          if (isDifferentModel && itemId?.startsWith("fc_")) itemId = undefined;
          output.push({
            type: "function_call",
            id: itemId,
            call_id: callId,
            name: block.name,
            arguments: JSON.stringify(block.arguments),
          });
        }
      }
      if (output.length === 0) continue;
      items.push(...output);
    } else if (msg.role === "toolResult") {
      const content = msg.content as Json[];
      const text = content
        .filter((c) => c.type === "text")
        .map((c) => c.text)
        .join("\n");
      const hasImages = content.some((c) => c.type === "image");
      const [callId] = String(msg.toolCallId).split("|");
      let output: unknown;
      if (hasImages && model.input.includes("image")) {
        const parts: Json[] = [];
        if (text.length > 0) parts.push({ type: "input_text", text: sanitizeSurrogates(text) });
        for (const b of content)
          if (b.type === "image")
            parts.push({
              type: "input_image",
              detail: "auto",
              image_url: `data:${String(b.mimeType)};base64,${String(b.data)}`,
            });
        output = parts;
      } else output = sanitizeSurrogates(text.length > 0 ? text : "(see attached image)");
      items.push({ type: "function_call_output", call_id: callId, output });
    }
    msgIndex++;
  }
  return items;
}

/** The input items of a context's messages for a target model (no system item: pi adds it at run time). */
export function contextInput(model: TargetModel, messages: ContextMessage[]): InputItem[] {
  return responsesInput(model, convertToLlm(messages), { includeSystemPrompt: false });
}

/** pi-ai's Codex request body (`buildRequestBody`), with no tools and the default instructions. */
export function codexBody(
  model: TargetModel,
  input: InputItem[],
  options: { sessionId?: string; instructions?: string; reasoningEffort?: string },
): Json {
  const body: Json = {
    model: model.id,
    store: false,
    stream: true,
    instructions: options.instructions || "You are a helpful assistant.",
    input,
    text: { verbosity: "low" },
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: options.sessionId,
    tool_choice: "auto",
    parallel_tool_calls: true,
  };
  if (options.reasoningEffort !== undefined) {
    const effort =
      options.reasoningEffort === "none"
        ? (model.thinkingLevelMap?.off ?? "none")
        : (model.thinkingLevelMap?.[options.reasoningEffort] ?? options.reasoningEffort);
    if (effort !== null) body.reasoning = { effort, summary: "auto" };
  }
  return body;
}

/** Is this item a system or developer message (left out of conversation-scope hashes)? */
export function isInstructionItem(item: InputItem): boolean {
  return (item.role === "system" || item.role === "developer") && item.type === undefined;
}
