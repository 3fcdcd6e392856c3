/** What a command was invoked on: a tree element, or (from a webview or a test) a plain file path. */
import type { Element } from "./tree/index.js";

/** The session file of a tree element, or the argument itself when it is a path. */
export function fileOf(arg: unknown): string | undefined {
  if (typeof arg === "string") return arg;
  if (arg && typeof arg === "object" && "file" in arg && typeof (arg as { file: unknown }).file === "string")
    return (arg as { file: string }).file;
  return undefined;
}

/** The entry a tree element stands for (a row, a folded entry, a compaction detail). */
export function entryIdOf(arg: unknown): string | undefined {
  if (!arg || typeof arg !== "object") return undefined;
  const e = arg as Element;
  if (e.kind === "row") return e.item.id;
  if (e.kind === "entry" || e.kind === "detail") return e.entryId;
  return undefined;
}
