/**
 * Typed builders for session records (pi v3 shapes, as pi-mono's session tests build them), so that a test states
 * only what matters to it. Each returns a plain record; `jsonl(...)` in helpers.ts turns records into file text.
 *
 *   jsonl(header(), message("u1", null, "user", "hi"), message("a1", "u1", "assistant", "hello"))
 */

/** `n` seconds after 2026-01-01T00:00:00Z, as an ISO string (entry timestamps). */
export function iso(n: number): string {
  return new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
}

type Time = number | string;
const time = (t: Time | undefined, fallback: number) => (typeof t === "string" ? t : iso(t ?? fallback));

export interface HeaderOptions {
  id?: string;
  version?: number;
  cwd?: string;
  /** Seconds after `iso(0)`, or an ISO string. */
  time?: Time;
  parentSession?: string;
}

/** The session header (the first record of a pi file). */
export function header(o: HeaderOptions = {}) {
  return {
    type: "session",
    version: o.version ?? 3,
    id: o.id ?? "s",
    timestamp: time(o.time, 0),
    cwd: o.cwd ?? "/p",
    ...(o.parentSession !== undefined ? { parentSession: o.parentSession } : {}),
  };
}

/** The header of a fork: `parentSession` names the parent's file (pi) or id (OMP). */
export function fork(parentSession: string, o: Omit<HeaderOptions, "parentSession"> = {}) {
  return header({ ...o, parentSession });
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

/** An assistant message's usage; `cost` is the total, split evenly between input and output. */
export function usage(input = 1, output = 1, cost = 0, cache: { read?: number; write?: number } = {}): Usage {
  const cacheRead = cache.read ?? 0;
  const cacheWrite = cache.write ?? 0;
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: { input: cost / 2, output: cost / 2, cacheRead: 0, cacheWrite: 0, total: cost },
  };
}

export interface MessageOptions {
  /** Seconds after `iso(0)` (default 1), or an ISO string. */
  time?: Time;
  /** Assistant messages: provider, model, usage and stop reason. */
  provider?: string;
  model?: string;
  usage?: Usage;
  stopReason?: string;
  /** More fields of the message itself. */
  extra?: Record<string, unknown>;
}

type Role = "user" | "assistant" | "toolResult" | "bashExecution" | "custom" | (string & {});

/** A `message` entry. User text stays a string; assistant text becomes one text block, with usage and a model. */
export function message(
  id: string,
  parentId: string | null,
  role: Role,
  content: string | unknown[],
  o: MessageOptions = {},
) {
  const body =
    role === "assistant"
      ? {
          role,
          content: typeof content === "string" ? [{ type: "text", text: content }] : content,
          api: "openai-responses",
          provider: o.provider ?? "openai",
          model: o.model ?? "gpt-5.1",
          usage: o.usage ?? usage(),
          stopReason: o.stopReason ?? "stop",
          timestamp: 1,
        }
      : { role, content, timestamp: 1 };
  return { type: "message", id, parentId, timestamp: time(o.time, 1), message: { ...body, ...o.extra } };
}

/** An assistant message that calls one tool. */
export function toolCall(
  id: string,
  parentId: string | null,
  name: string,
  args: Record<string, unknown>,
  o: MessageOptions = {},
) {
  const block = { type: "toolCall", id: `call-${id}`, name, arguments: args };
  return message(id, parentId, "assistant", [block], { stopReason: "toolUse", ...o });
}

/** The result of the tool call made by entry `callId` (see `toolCall`). */
export function toolResult(
  id: string,
  parentId: string,
  callId: string,
  toolName: string,
  text: string,
  o: MessageOptions & { isError?: boolean } = {},
) {
  const extra = { toolCallId: `call-${callId}`, toolName, isError: o.isError ?? false, ...o.extra };
  return message(id, parentId, "toolResult", [{ type: "text", text }], { ...o, extra });
}

export interface CompactionOptions {
  summary?: string;
  tokensBefore?: number;
  details?: Record<string, unknown>;
  fromHook?: boolean;
  time?: Time;
}

/** A compaction that keeps the branch from `firstKeptEntryId` on. */
export function compaction(id: string, parentId: string, firstKeptEntryId: string, o: CompactionOptions = {}) {
  return {
    type: "compaction",
    id,
    parentId,
    timestamp: time(o.time, 1),
    summary: o.summary ?? "summary",
    firstKeptEntryId,
    tokensBefore: o.tokensBefore ?? 1000,
    ...(o.details !== undefined ? { details: o.details } : {}),
    ...(o.fromHook !== undefined ? { fromHook: o.fromHook } : {}),
  };
}

/** A branch summary attached at `fromId` (its parent, docs/session-format.md#t7). */
export function branchSummary(id: string, fromId: string, summary = "branch summary", o: { time?: Time } = {}) {
  return { type: "branch_summary", id, parentId: fromId, timestamp: time(o.time, 1), fromId, summary };
}

/** A label on `targetId`; without `text`, a label that clears it. */
export function label(id: string, parentId: string, targetId: string, text?: string, o: { time?: Time } = {}) {
  return {
    type: "label",
    id,
    parentId,
    timestamp: time(o.time, 1),
    targetId,
    ...(text !== undefined ? { label: text } : {}),
  };
}

/** OMP's 256-byte title slot (the first line of an OMP ≥ 17 file, docs/session-format.md#t1). */
export function titleSlot(title: string, source?: "auto" | "user") {
  const base: Record<string, unknown> = {
    type: "title",
    v: 1,
    title,
    ...(source ? { source } : {}),
    updatedAt: iso(0),
    pad: "",
  };
  base.pad = " ".repeat(256 - Buffer.byteLength(JSON.stringify(base)) - 1);
  return base;
}

/** A message as the trap tests write them: assistant turns as the fixtures' anthropic ones. */
export function anthropicMessage(id: string, parentId: string | null, role: string, text: string, s = 1, extra = {}) {
  return message(id, parentId, role, text, {
    time: s,
    provider: "anthropic",
    model: "m1",
    extra: role === "assistant" ? { api: "x", ...extra } : extra,
  });
}

/** pi's `session_info` entry: the session's name (`/name`). */
export function sessionInfo(id: string, parentId: string | null, name: string, o: { time?: Time } = {}) {
  return { type: "session_info", id, parentId, timestamp: time(o.time, 0), name };
}
