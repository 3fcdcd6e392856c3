/** One parsed record into an entry: its envelope checked, its facts taken, its shape validated. */
import type { BodySource } from "../bodySource.js";
import type { Diagnostic } from "../diagnostics.js";
import { usageFacts } from "../facts.js";
import { isPlainObject } from "../jsonShape.js";
import { isKnownEntryType, isKnownRole, validateEntry } from "../schema.js";
import { contentTouches, nestedTouches } from "../toolFiles.js";
import { Entry } from "./entry.js";

export type RawRecord = { line: number; value: Record<string, unknown> };

/** A record without a string `type` is no entry (all versions). */
export function missingType(line: number): Diagnostic {
  return { line, severity: "error", code: "missing-type", message: "record has no string `type`; line skipped" };
}

/** The id and parent of a v2+ record, or null (with a diagnostic) when it cannot be an entry. */
export function checkEnvelope(
  { line, value }: RawRecord,
  diagnostics: Diagnostic[],
): { id: string; parentId: string | null } | null {
  if (typeof value.type !== "string") {
    diagnostics.push(missingType(line));
    return null;
  }
  if (typeof value.id !== "string" || value.id === "") {
    diagnostics.push({
      line,
      severity: "error",
      code: "missing-id",
      message: `${value.type} record has no string \`id\`; line skipped`,
    });
    return null;
  }
  let parentId: string | null;
  if (typeof value.parentId === "string") parentId = value.parentId;
  else {
    if (value.parentId !== null) {
      diagnostics.push({
        line,
        severity: "warning",
        code: "missing-parent-id",
        message: "record has no `parentId`; treated as a root",
      });
    }
    parentId = null;
  }
  return { id: value.id, parentId };
}

/** Entry types are few: one string each, however many entries. */
const typeNames = new Map<string, string>();

/** An entry from its parsed record `data`, held either as `data` itself or as the bytes [start, end) of `body`. */
export function makeEntry(
  data: Record<string, unknown>,
  id: string,
  parentId: string | null,
  line: number,
  body: Record<string, unknown> | Uint8Array | BodySource,
  start = 0,
  end = 0,
  hook = false,
): Entry {
  let type = typeNames.get(data.type as string);
  if (type === undefined) {
    type = data.type as string;
    if (typeNames.size < 256) typeNames.set(type, type);
  }
  const entry = new Entry(
    id,
    parentId,
    type,
    line,
    typeof data.timestamp === "string" ? data.timestamp : undefined,
    isKnownEntryType(type),
    body,
    start,
    end,
    hook,
  );
  if (type === "message" && isPlainObject(data.message)) {
    const m = data.message;
    if (typeof m.role === "string") entry.role = m.role;
    if (m.role === "assistant") {
      entry.provider = m.provider;
      entry.model = m.model;
      const touches = contentTouches(m.content);
      if (touches.length) entry.touches = touches;
    } else if (m.role === "toolResult" && m.nestedCalls !== undefined) {
      const touches = nestedTouches(m.nestedCalls);
      if (touches.length) entry.touches = touches;
    }
  }
  const usage = usageFacts(type, data);
  if (usage) entry.usage = usage;
  if ("fromExtension" in data) entry.fromExtension = true;
  return entry;
}

export function validateOne(entry: Entry, data: Record<string, unknown>, diagnostics: Diagnostic[]): void {
  if (!entry.known) {
    diagnostics.push({
      line: entry.line,
      severity: "warning",
      code: "unknown-entry-type",
      message: `unknown entry type ${JSON.stringify(entry.type)}; kept as an opaque node`,
    });
    return;
  }
  if (entry.role !== undefined && !isKnownRole(entry.role)) {
    diagnostics.push({
      line: entry.line,
      severity: "warning",
      code: "unknown-role",
      message: `unknown message role ${JSON.stringify(entry.role)}; kept as an opaque message`,
    });
  }
  if (entry.timestamp === undefined || Number.isNaN(Date.parse(entry.timestamp))) {
    diagnostics.push({
      line: entry.line,
      severity: "warning",
      code: "invalid-timestamp",
      message: "entry timestamp is missing or not an ISO date; sibling order may differ",
    });
  }
  // v1 entries are validated in their migrated form (synthesized ids, firstKeptEntryId).
  for (const problem of validateEntry(data)) {
    diagnostics.push({ line: entry.line, severity: "warning", code: "schema", message: `${entry.type}: ${problem}` });
  }
}
