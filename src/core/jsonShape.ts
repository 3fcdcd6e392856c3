/**
 * The one test of a JSON value's shape below the typed views: whether it is an object (not null, not an array).
 * The reader's narrowing (core/session/message.ts, core/facts.ts) and the few walks over arbitrary JSON use it; code
 * above the reader reads typed fields instead.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
