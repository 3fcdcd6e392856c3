/** What a session summary reads from its entries one by one: its prompts, when it was named, when it was active. */
import { truncate } from "../protocol/format.js";
import { messageText } from "./entryText.js";
import type { Entry } from "./session/index.js";

/** The first user prompt with text among `entries` (their bodies are read until one is found). */
export function firstPromptOf(entries: readonly Entry[]): string | null {
  for (const e of entries) {
    if (e.role !== "user" || !e.message) continue;
    const text = messageText(e.message);
    if (text.trim()) return truncate(text, 200);
  }
  return null;
}

/** The last user prompt with text among `entries` (their bodies are read from the end until one is found). */
export function lastPromptOf(entries: readonly Entry[]): string | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.role !== "user" || !e.message) continue;
    const text = messageText(e.message);
    if (text.trim()) return truncate(text, 200);
  }
  return null;
}

/** The time of the last `session_info` entry among `entries` of a pi session (null when none or unknown, or OMP). */
export function nameTimeOf(flavor: string, entries: readonly Entry[]): number | null {
  if (flavor !== "pi") return null;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.type !== "session_info") continue;
    const t = e.timestamp ? Date.parse(e.timestamp) : Number.NaN;
    return Number.isFinite(t) ? t : null;
  }
  return null;
}

/** The first user prompt with text among `entries` written after `created` (ms). */
export function laterPromptOf(entries: readonly Entry[], created: number): string | null {
  if (!Number.isFinite(created)) return null; // where the fork starts is not known
  // An entry without a readable time is no copy (copies keep their parent's times): it counts as written later.
  const later = (e: Entry) => !(Date.parse(e.timestamp ?? "") <= created);
  return firstPromptOf(entries.filter((e) => e.role === "user" && later(e)));
}

/** Entries that say something about the session (its name, a label) rather than do something in it. */
const METADATA_TYPES = new Set(["session_info", "label"]);

/** Whether an entry names or labels rather than does something: it counts for no activity or duration. */
export const isMetadataEntry = (e: { type: string }): boolean => METADATA_TYPES.has(e.type);

/** The newest activity time among `entries` (after `since`), and whether the last of them is metadata. */
export function activityOf(entries: readonly Entry[], since: number): { lastActiveAt: number; metadataTail: boolean } {
  let lastActiveAt = since;
  for (const e of entries) {
    if (e.shadowed || METADATA_TYPES.has(e.type) || !e.timestamp) continue;
    const t = Date.parse(e.timestamp);
    if (Number.isFinite(t) && !(t <= lastActiveAt)) lastActiveAt = t;
  }
  const last = entries.at(-1);
  return { lastActiveAt, metadataTail: last !== undefined && METADATA_TYPES.has(last.type) };
}
