/**
 * zod schemas for every record that Pi and Oh My Pi (OMP) write into a session file.
 *
 * The schemas are deliberately *loose* (extra keys are allowed): the agents add fields release by
 * release, and a reader that rejects unknown keys would break on the next version. What the schemas
 * pin down is the shape of the fields we rely on. They are used by `validateEntry()` (lint, tree
 * diagnostics); the hot parse path only checks the envelope (type, id, parentId, timestamp).
 *
 * References: docs/session-format.md#header, #entries, #usage.
 */
import * as z from "zod";

// ---------------------------------------------------------------------------------------------
// Headers

/** OMP's fixed-width first line (256 bytes incl. "\n"), OMP >= 17 (docs/session-format.md#t1). */
export const titleSlotSchema = z.looseObject({
  type: z.literal("title"),
  v: z.literal(1),
  title: z.string(),
  source: z.enum(["auto", "user"]).optional(),
  updatedAt: z.string(),
  pad: z.string(),
});
export type TitleSlot = z.infer<typeof titleSlotSchema>;

/** pi header (all versions). v1 headers may carry provider/modelId/thinkingLevel/branchedFrom. */
const piHeaderSchema = z.looseObject({
  type: z.literal("session"),
  version: z.number().int().optional(),
  id: z.string(),
  timestamp: z.string(),
  cwd: z.string(),
  parentSession: z.string().optional(),
  branchedFrom: z.string().optional(),
  provider: z.string().optional(),
  modelId: z.string().optional(),
  thinkingLevel: z.string().optional(),
});

/** OMP header (18.x; 5.7 and 14.x are subsets). */
export const ompHeaderSchema = piHeaderSchema.extend({
  title: z.string().optional(),
  titleSource: z.enum(["auto", "user"]).optional(),
  additionalDirectories: z.array(z.string()).optional(),
  previousSessionFiles: z.array(z.string()).optional(),
  providerPromptCacheKey: z.string().optional(),
});
export type SessionHeader = z.infer<typeof ompHeaderSchema>;

/** The minimum the reader needs to accept a header (fail-closed rule). */
export const headerEnvelopeSchema = z.looseObject({ type: z.literal("session"), id: z.string() });

// ---------------------------------------------------------------------------------------------
// Content blocks and messages (pi-ai types.ts; OMP extras)

const textContent = z.looseObject({ type: z.literal("text"), text: z.string(), textSignature: z.string().optional() });
const thinkingContent = z.looseObject({
  type: z.literal("thinking"),
  thinking: z.string(),
  thinkingSignature: z.string().optional(),
  redacted: z.boolean().optional(),
});
/** `data` may be base64 or, in OMP files, a `blob:sha256:<hex>` reference (docs/session-format.md#t25). */
const imageContent = z.looseObject({ type: z.literal("image"), data: z.string(), mimeType: z.string() });
const toolCallContent = z.looseObject({
  type: z.literal("toolCall"),
  id: z.string(),
  name: z.string(),
  arguments: z.unknown(),
});
const redactedThinkingContent = z.looseObject({ type: z.literal("redactedThinking"), data: z.string() });
const fallbackContent = z.looseObject({ type: z.literal("fallback") });
const serverToolContent = z.looseObject({ type: z.literal("anthropicServerTool") });
/** Unknown block kinds are kept: a new agent release must not make a file unreadable. */
const unknownBlock = z.looseObject({ type: z.string() });

// Any block with a string `type` passes as an unknown block, so that option decides; it comes first because a union
// stops at its first match, and every option tried before it would fail and build its issues first (for each block
// of each message: as long as parsing the line). The answer is the same in any order (zod's union reports the same
// issues whichever option failed first). The known kinds document the shapes the agents write.
const contentBlockSchema = z.union([
  unknownBlock,
  textContent,
  thinkingContent,
  imageContent,
  toolCallContent,
  redactedThinkingContent,
  fallbackContent,
  serverToolContent,
]);

const usageSchema = z.looseObject({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
  totalTokens: z.number().optional(), // missing in old files (docs/session-format.md#t18)
  cost: z
    .looseObject({
      input: z.number().optional(),
      output: z.number().optional(),
      cacheRead: z.number().optional(),
      cacheWrite: z.number().optional(),
      total: z.number(),
    })
    .optional(),
});
export type Usage = z.infer<typeof usageSchema>;

const userContent = z.union([z.string(), z.array(contentBlockSchema)]);

const userMessageSchema = z.looseObject({
  role: z.literal("user"),
  content: userContent,
  timestamp: z.number().optional(),
});
const assistantMessageSchema = z.looseObject({
  role: z.literal("assistant"),
  content: z.array(contentBlockSchema),
  api: z.string().optional(),
  provider: z.string(),
  model: z.string(),
  usage: usageSchema.optional(),
  stopReason: z.string().optional(),
  errorMessage: z.string().optional(),
  timestamp: z.number().optional(),
  responseId: z.string().optional(),
  responseModel: z.string().optional(),
  // pi 1.6: the level asked for, the provider's own effort, Codex's end_turn, and the call's duration. Typed, never a
  // diagnostic (`catch`): other writers may use these names otherwise, and nothing reads them yet.
  thinkingLevel: z.string().optional().catch(undefined),
  providerThinkingLevel: z.string().optional().catch(undefined),
  endTurn: z.boolean().optional().catch(undefined),
  durationMs: z.number().optional().catch(undefined),
});
/** pi 1.6: the calls a tool made through `ctx.executeTool()` (e.g. `codemode`); their usage is in the result's. */
const nestedCallsSchema = z.looseObject({
  calls: z.array(
    z.looseObject({
      id: z.string(),
      name: z.string(),
      arguments: z.unknown().optional(),
      argumentsBytes: z.number().optional(),
      status: z.string(),
      durationMs: z.number().optional(),
      error: z.string().optional(),
    }),
  ),
  complete: z.boolean(),
});
const toolResultMessageSchema = z.looseObject({
  role: z.literal("toolResult"),
  toolCallId: z.string(),
  toolName: z.string(),
  content: z.array(contentBlockSchema),
  details: z.unknown().optional(),
  isError: z.boolean().optional(),
  timestamp: z.number().optional(),
  // pi 1.6 (typed, never a diagnostic until the reader uses them, as for the assistant's new fields)
  nestedCalls: nestedCallsSchema.optional().catch(undefined),
  durationMs: z.number().optional().catch(undefined),
  usage: usageSchema.optional().catch(undefined),
});
const bashExecutionMessageSchema = z.looseObject({
  role: z.literal("bashExecution"),
  command: z.string(),
  output: z.string(),
  exitCode: z.number().nullable().optional(),
  cancelled: z.boolean().optional(),
  truncated: z.boolean().optional(),
  fullOutputPath: z.string().optional(),
  excludeFromContext: z.boolean().optional(),
  timestamp: z.number().optional(),
});
/** `custom` (v3) and its v2 name `hookMessage`. */
const customMessageSchema = z.looseObject({
  role: z.enum(["custom", "hookMessage"]),
  customType: z.string(),
  content: userContent,
  display: z.boolean().optional(),
  details: z.unknown().optional(),
  timestamp: z.number().optional(),
});
/**
 * pi 1.6: the system prompt and tools, persisted at a branch's first request and whenever they change (a section
 * patch: `null` removes a section). Its shape is known; docs/session-format.md has what it means.
 */
const systemMessageSchema = z.looseObject({
  role: z.literal("system"),
  content: userContent.optional(),
  sections: z.record(z.string(), z.string().nullable()).optional(),
  toolsAdded: z.array(z.unknown()).optional(),
  toolsRemoved: z.array(z.looseObject({ name: z.string() })).optional(),
  timestamp: z.number().optional(),
});

/** OMP-only roles. */
const developerMessageSchema = z.looseObject({ role: z.literal("developer"), content: userContent });
const pythonExecutionMessageSchema = z.looseObject({ role: z.literal("pythonExecution") });
const fileMentionMessageSchema = z.looseObject({ role: z.literal("fileMention") });

const messageSchemas = {
  user: userMessageSchema,
  assistant: assistantMessageSchema,
  toolResult: toolResultMessageSchema,
  bashExecution: bashExecutionMessageSchema,
  custom: customMessageSchema,
  hookMessage: customMessageSchema,
  developer: developerMessageSchema,
  pythonExecution: pythonExecutionMessageSchema,
  fileMention: fileMentionMessageSchema,
};

/**
 * Shapes pi 1.6 writes: known kinds (validated like the rest, no `unknown-role` or `unknown-entry-type` warning).
 * Their meaning so far: `usage` entries count (core/facts.ts), and a system message is in the context like any
 * message; `context_edit` entries and a compaction's `systemMessage` are not applied to the context yet.
 */
const pi16MessageSchemas = { system: systemMessageSchema };

// ---------------------------------------------------------------------------------------------
// Entries

/** Every non-header record of a v2+ file. v1 records lack id/parentId (the reader synthesizes them). */
const entryBaseSchema = z.looseObject({
  type: z.string(),
  id: z.string(),
  parentId: z.string().nullable(),
  timestamp: z.string(),
});

const entry = <T extends z.ZodRawShape>(type: string, shape: T) =>
  entryBaseSchema.extend({ type: z.literal(type), ...shape });

const compactionFields = {
  summary: z.string(),
  firstKeptEntryId: z.string().optional(), // v1: firstKeptEntryIndex instead; OMP: may be ""
  firstKeptEntryIndex: z.number().optional(),
  tokensBefore: z.number(),
  details: z.unknown().optional(),
  fromHook: z.boolean().optional(),
  fromExtension: z.boolean().optional(),
  shortSummary: z.string().optional(),
  tokensAfter: z.number().optional(),
  method: z.string().optional(),
  providerReplayThroughEntryId: z.string().optional(),
  preserveData: z.unknown().optional(),
};

const entrySchemas = {
  // pi
  message: entry("message", { message: z.looseObject({ role: z.string() }) }),
  thinking_level_change: entry("thinking_level_change", {
    thinkingLevel: z.string().nullable().optional(),
    configured: z.string().nullable().optional(),
  }),
  // pi: {provider, modelId}; OMP: {model: "provider/id", role?}
  model_change: entry("model_change", {
    provider: z.string().optional(),
    modelId: z.string().optional(),
    model: z.string().optional(),
    role: z.string().optional(),
  }).refine((e) => (typeof e.provider === "string" && typeof e.modelId === "string") || typeof e.model === "string", {
    message: "model_change needs {provider, modelId} (pi) or {model} (OMP)",
  }),
  compaction: entry("compaction", {
    ...compactionFields,
    systemMessage: systemMessageSchema.optional().catch(undefined),
  }),
  branch_summary: entry("branch_summary", {
    fromId: z.string(),
    summary: z.string(),
    details: z.unknown().optional(),
    fromHook: z.boolean().optional(),
    fromExtension: z.boolean().optional(),
  }),
  custom: entry("custom", { customType: z.string(), data: z.unknown().optional() }),
  custom_message: entry("custom_message", {
    customType: z.string(),
    content: userContent,
    display: z.boolean().optional(),
    details: z.unknown().optional(),
    attribution: z.enum(["user", "agent"]).optional(),
  }),
  label: entry("label", { targetId: z.string(), label: z.string().optional() }),
  session_info: entry("session_info", { name: z.string().optional() }),
  // OMP
  title_change: entry("title_change", {
    title: z.string(),
    previousTitle: z.string().optional(),
    source: z.enum(["auto", "user"]).optional(),
    trigger: z.string().optional(),
  }),
  model_usage: entry("model_usage", {
    purpose: z.string().optional(),
    role: z.string().optional(),
    api: z.string().optional(),
    provider: z.string(),
    model: z.string(),
    usage: usageSchema,
    stopReason: z.string().optional(),
    errorMessage: z.string().optional(),
  }),
  reset_boundary: entry("reset_boundary", {}),
  credential_pin: entry("credential_pin", { provider: z.string(), hash: z.string() }),
  service_tier_change: entry("service_tier_change", { serviceTier: z.unknown() }),
  mode_change: entry("mode_change", { mode: z.string(), data: z.unknown().optional() }),
  ttsr_injection: entry("ttsr_injection", { injectedRules: z.array(z.string()) }),
  session_init: entry("session_init", {
    systemPrompt: z.string().optional(),
    task: z.string().optional(),
    tools: z.array(z.unknown()).optional(),
    // OMP 18.3: a subagent's own compaction threshold (`-1` leaves a field unset).
    compactionThreshold: z.object({ thresholdPercent: z.number(), thresholdTokens: z.number() }).optional(),
  }),
  mcp_tool_selection: entry("mcp_tool_selection", { selectedToolNames: z.array(z.string()) }),
};

/** pi 1.6's new entry kinds (known, see `pi16MessageSchemas`). */
const pi16EntrySchemas = {
  /** A call outside the conversation that costs tokens (the prompt-cache warmer's `cache_warm`). */
  usage: entry("usage", {
    kind: z.string(),
    provider: z.string(),
    model: z.string(),
    usage: usageSchema,
    note: z.string().optional(),
  }),
  /** Replaces a target entry's content in context (`replacement: null` drops it); raw history keeps the original. */
  context_edit: entry("context_edit", {
    targetId: z.string(),
    replacement: z.looseObject({ content: userContent }).nullable(),
  }),
};

/** A record of one entry type as its schema types it (the shape the agents write; a file may differ). */
export type EntryRecordOf<T extends keyof typeof entrySchemas | keyof typeof pi16EntrySchemas> = z.infer<
  (typeof entrySchemas & typeof pi16EntrySchemas)[T]
>;
/** A message as its role's schema types it. */
export type MessageRecordOf<R extends keyof typeof messageSchemas | keyof typeof pi16MessageSchemas> = z.infer<
  (typeof messageSchemas & typeof pi16MessageSchemas)[R]
>;
/** Every entry kind the schemas type, by `type`. */
export type SessionEntryRecord = {
  [T in keyof typeof entrySchemas | keyof typeof pi16EntrySchemas]: EntryRecordOf<T>;
}[keyof typeof entrySchemas | keyof typeof pi16EntrySchemas];
/** Every message the schemas type, by `role`. */
export type AgentMessageRecord = {
  [R in keyof typeof messageSchemas | keyof typeof pi16MessageSchemas]: MessageRecordOf<R>;
}[keyof typeof messageSchemas | keyof typeof pi16MessageSchemas];

export const OMP_ENTRY_TYPES = [
  "title_change",
  "model_usage",
  "reset_boundary",
  "credential_pin",
  "service_tier_change",
  "mode_change",
  "ttsr_injection",
  "session_init",
  "mcp_tool_selection",
] as const;

/** Every entry kind and message role the schemas know, by name. */
const KNOWN_ENTRIES: Record<string, z.ZodType> = { ...entrySchemas, ...pi16EntrySchemas };
const KNOWN_MESSAGES: Record<string, z.ZodType> = { ...messageSchemas, ...pi16MessageSchemas };

export function isKnownEntryType(type: string): boolean {
  return Object.hasOwn(KNOWN_ENTRIES, type);
}

export function isKnownRole(role: string): boolean {
  return Object.hasOwn(KNOWN_MESSAGES, role);
}

/** Validate a full entry (v2+ shape) and its message body. Returns readable problems, empty when valid. */
export function validateEntry(record: Record<string, unknown>): string[] {
  const type = String(record.type);
  const schema = Object.hasOwn(KNOWN_ENTRIES, type) ? KNOWN_ENTRIES[type] : undefined;
  if (!schema) return [];
  const problems = issuesOf(schema.safeParse(record));
  if (type === "message" && record.message && typeof record.message === "object") {
    const role = (record.message as { role?: unknown }).role;
    const known = typeof role === "string" && Object.hasOwn(KNOWN_MESSAGES, role);
    const messageSchema = known ? KNOWN_MESSAGES[role] : undefined;
    if (messageSchema) problems.push(...issuesOf(messageSchema.safeParse(record.message), "message"));
  }
  return problems;
}

export function validateHeader(record: Record<string, unknown>): string[] {
  return issuesOf(ompHeaderSchema.safeParse(record));
}

function issuesOf(result: { success: boolean; error?: z.ZodError }, prefix?: string): string[] {
  if (result.success || !result.error) return [];
  return result.error.issues.slice(0, 3).map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join(".");
    return path ? `${path}: ${issue.message}` : issue.message;
  });
}
