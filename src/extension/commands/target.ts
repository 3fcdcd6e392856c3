/**
 * What a command was invoked on, read one way for every caller: a Sessions tree node (a session, a row, a folded
 * entry, a compaction detail), a file path (a webview, a test, another command, the palette's pickers), a plain
 * `{ file, entryId }` (the entry menu), or nothing.
 */
import type { Element } from "../tree/index.js";

export interface CommandTarget {
  /** The session file the target names. */
  readonly file: string | undefined;
  /** The entry the target stands for (a row, a folded entry, a compaction detail). */
  readonly entryId: string | undefined;
}

/** The session file and entry of a command's first argument. */
export function targetOf(arg: unknown): CommandTarget {
  if (typeof arg === "string") return { file: arg, entryId: undefined };
  if (!arg || typeof arg !== "object") return { file: undefined, entryId: undefined };
  const file = "file" in arg && typeof arg.file === "string" ? arg.file : undefined;
  return { file, entryId: entryIdOfNode(arg as Element | { entryId?: unknown }) };
}

function entryIdOfNode(e: Element | { entryId?: unknown }): string | undefined {
  // A plain `{ file, entryId }` (the entry menu, a webview): no tree node's kind.
  if (!("kind" in e)) return typeof e.entryId === "string" ? e.entryId : undefined;
  if (e.kind === "row") return e.item.id;
  if (e.kind === "entry" || e.kind === "detail") return e.entryId;
  return undefined;
}
