/**
 * Text as PostgreSQL takes it. Its `text` holds no NUL, and a B-tree index entry holds at most about 2.7 KB: one NUL
 * in a session's name, or one 3 KB model name or entry id, would refuse the whole batch, and every sync after it.
 */
import { createHash } from "node:crypto";

/** A NUL as U+FFFD (what a reader sees of an unreadable character). */
export const pgText = <T extends string | null>(text: T): T =>
  text === null ? text : (text.replace(/\0/g, "\uFFFD") as T);

/** Longest value of an indexed column, in characters (a composite key of four stays within the index's limit). */
const KEY_CHARS = 400;

/**
 * A value of an indexed column (a file, an id, a model, a project): as it is when short, else its start and a
 * digest of the whole, so two long values stay apart and the same value is always the same key.
 */
export function pgKey<T extends string | null>(text: T): T {
  if (text === null) return text;
  const clean = pgText(text);
  if (clean.length <= KEY_CHARS) return clean as T;
  const digest = createHash("sha256").update(clean).digest("hex").slice(0, 32);
  return `${clean.slice(0, KEY_CHARS - 40)}…#${digest}` as T;
}
