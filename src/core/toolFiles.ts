/**
 * Which tool calls read or change a file, and the texts an edit sent: one reading of tool arguments for the file
 * history, the transcript's edit diffs and branch comparison.
 *
 * Tools mapped, by name (lower-cased, as OMP normalizes built-in names):
 * - `read` → read: pi's `read {path, offset?, limit?}`; OMP's `read {path}`, whose path may end in a selector
 *   (`:20-40`, `:raw`), cut by `readPathOf`.
 * - `edit` → edit: pi's `edit {path, oldText, newText}` and `{path, edits: [{oldText, newText}]}`; OMP's replace mode
 *   `{path, old_string, new_string}`, its patch mode `{path, edits: [{op, diff}]}` (a file, no old/new texts), and
 *   `edits: [{old, new}]`. OMP's `apply_patch`, hashline and "sloppy" modes send `{input}` only: their paths are inside
 *   a patch text, which is not parsed (like `bash` commands, never guessed from).
 * - `write` → write: `{path, content}` in both agents; the file's whole text after the call.
 * Other tools (`bash`, `grep`, `find`, OMP's `ast_edit` over globs) name no single file and are not mapped.
 * pi 1.6's nested calls (a tool result's `nestedCalls`, e.g. codemode's `read` through `ctx.executeTool()`) are mapped
 * the same way, as touches of the tool result's entry.
 */
import { messageText } from "./entryText.js";
import { isPlainObject } from "./jsonShape.js";
import type { Entry, TouchKind, ToolTouch } from "./session/entry.js";
import { narrowBlock } from "./session/message.js";
import type { Session } from "./session/model.js";

export type { TouchKind, ToolTouch };

const KIND_BY_TOOL: Record<string, TouchKind> = { read: "read", edit: "edit", write: "write" };

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** The file a tool call's arguments name (`path`, or Claude-style `file_path` / `filePath`). */
export function toolPathOf(args: Record<string, unknown>): string {
  return str(args.path) || str(args.file_path) || str(args.filePath);
}

/** The touch a tool call block makes, or null when it names no file or is not a file tool. */
function touchOf(block: Record<string, unknown>, index: number): ToolTouch | null {
  if (block.type !== "toolCall" || typeof block.name !== "string") return null;
  const kind = KIND_BY_TOOL[block.name.toLowerCase()];
  if (!kind || !isPlainObject(block.arguments)) return null;
  const path = toolPathOf(block.arguments);
  if (!path.trim()) return null;
  return { index, toolCallId: str(block.id), tool: block.name, kind, path };
}

/** The file touches of an assistant message's content, in call order. */
export function contentTouches(content: unknown): ToolTouch[] {
  if (!Array.isArray(content)) return [];
  const out: ToolTouch[] = [];
  content.forEach((b, i) => {
    const t = isPlainObject(b) ? touchOf(b, i) : null;
    if (t) out.push(t);
  });
  return out;
}

/**
 * The file touches of a tool result's nested calls (pi 1.6 `nestedCalls.calls`: the reads, edits and writes a tool
 * such as codemode made through other tools), in call order; `index` is the call's position in that list.
 */
export function nestedTouches(nestedCalls: unknown): ToolTouch[] {
  const calls = isPlainObject(nestedCalls) ? nestedCalls.calls : undefined;
  if (!Array.isArray(calls)) return [];
  const out: ToolTouch[] = [];
  calls.forEach((call, index) => {
    if (!isPlainObject(call) || typeof call.name !== "string" || !isPlainObject(call.arguments)) return;
    const kind = KIND_BY_TOOL[call.name.toLowerCase()];
    const path = toolPathOf(call.arguments);
    if (kind && path.trim()) out.push({ index, toolCallId: str(call.id), tool: call.name, kind, path });
  });
  return out;
}

export interface EditTexts {
  oldText: string;
  newText: string;
  /** OMP's `replace_all` (and its older `all`): every occurrence, not exactly one. */
  all?: true;
}

/**
 * The replacements an `edit` call sent, in order (empty when its mode carries none, e.g. OMP's patch mode), read as
 * pi reads them (edit.js `prepareEditArguments`): `edits` sent as a JSON string is parsed, and a top-level
 * `oldText`/`newText` pair next to `edits` is one more replacement, after them.
 */
export function editTextsOf(args: Record<string, unknown>): EditTexts[] {
  let edits: unknown = args.edits;
  if (typeof edits === "string") {
    try {
      edits = JSON.parse(edits);
    } catch {
      edits = undefined;
    }
  }
  const list = Array.isArray(edits) ? edits.filter(isPlainObject) : [args];
  if (Array.isArray(edits) && typeof args.oldText === "string" && typeof args.newText === "string") list.push(args);
  return list
    .map((e): EditTexts => {
      const edit: EditTexts = {
        oldText: str(e.oldText ?? e.old_string ?? e.old),
        newText: str(e.newText ?? e.new_string ?? e.new),
      };
      if (e.replace_all === true || e.all === true) edit.all = true;
      return edit;
    })
    .filter((e) => e.oldText || e.newText);
}

/** One OMP read selector (`20`, `20-40`, `-10`, `20+5`, `1-3,8-9`, `raw`, `conflicts`, `image`). */
const OMP_SELECTOR = /^(?:raw|conflicts|image|-?\d+(?:[-+]\d*)?(?:,\d+(?:[-+]\d*)?)*)$/;

/**
 * The file an OMP `read` path names, without its selectors (`src/a.ts:20-40:raw`). Cut from the end one `:` at a
 * time (linear in the path's length, whatever it holds), testing only the short last segment.
 */
export function readPathOf(path: string): string {
  let end = path.length;
  for (;;) {
    const colon = path.lastIndexOf(":", end - 1);
    if (colon <= 0 || end - colon > 64 || !OMP_SELECTOR.test(path.slice(colon + 1, end))) break;
    end = colon;
  }
  return path.slice(0, end);
}

/** A path that is a URI (`memory://`, `https://`, OMP's `xd://`): not a file of the workspace. */
export function isUriPath(path: string): boolean {
  return /^[a-z][a-z0-9+.-]+:\/\//i.test(path);
}

/** The arguments of the tool call at `index` of an assistant entry (the entry's body is read), or null. */
export function toolCallArgs(
  entry: Entry,
  touch: Pick<ToolTouch, "index" | "toolCallId">,
): Record<string, unknown> | null {
  const record = entry.message?.record;
  if (entry.role === "toolResult") {
    // A nested call (pi 1.6): its arguments are in the result's `nestedCalls`.
    const calls = isPlainObject(record?.nestedCalls) ? record.nestedCalls.calls : undefined;
    const call: unknown = Array.isArray(calls) ? calls[touch.index] : undefined;
    return isPlainObject(call) && str(call.id) === touch.toolCallId && isPlainObject(call.arguments)
      ? call.arguments
      : null;
  }
  // The call at its position in the content (one block narrowed: a message may hold thousands of calls).
  const content = entry.message?.content;
  const b = Array.isArray(content) ? narrowBlock(content[touch.index], touch.index) : undefined;
  if (b?.type !== "toolCall" || b.id !== touch.toolCallId) return null;
  return b.arguments ?? null;
}

/**
 * The two texts "Show Edit Diff" compares: an edit's replaced and replacing texts (several replacements one after
 * the other, separated by a marker line), or a write's whole new text against nothing.
 */
export function touchDiffTexts(
  kind: TouchKind,
  args: Record<string, unknown>,
): { before: string; after: string } | null {
  if (kind === "write") return typeof args.content === "string" ? { before: "", after: args.content } : null;
  if (kind !== "edit") return null;
  const edits = editTextsOf(args);
  if (!edits.length) return null;
  const gap = "\n⋯\n";
  return { before: edits.map((e) => e.oldText).join(gap), after: edits.map((e) => e.newText).join(gap) };
}

/**
 * An edit shown in the whole file: `current` (the file as it is now) as "after", and "before" with each edit's new
 * text put back to its old text. Only when every new text is found exactly once (else which place it changed is a
 * guess) and none overlaps another; null otherwise, and the edit is shown as its fragments.
 */
export function editInFile(current: string, edits: readonly EditTexts[]): { before: string; after: string } | null {
  if (!edits.length) return null;
  const places: { at: number; edit: EditTexts }[] = [];
  for (const edit of edits) {
    if (!edit.newText) return null;
    const at = current.indexOf(edit.newText);
    if (at < 0 || current.indexOf(edit.newText, at + 1) >= 0) return null;
    places.push({ at, edit });
  }
  places.sort((a, b) => a.at - b.at);
  let before = "";
  let from = 0;
  for (const { at, edit } of places) {
    if (at < from) return null;
    before += current.slice(from, at) + edit.oldText;
    from = at + edit.newText.length;
  }
  return { before: before + current.slice(from), after: current };
}

/** The text of the user prompt the entry answers (the nearest user message at or above it), or "". */
export function promptText(session: Pick<Session, "byId">, entryId: string): string {
  let id: string | null = entryId;
  for (let steps = 0; id !== null && steps < 100_000; steps++) {
    const e: Entry | undefined = session.byId.get(id);
    if (!e) return "";
    const m = e.role === "user" ? e.message : undefined;
    if (m) {
      const text = messageText(m).trim();
      if (text) return text;
    }
    id = e.parentId;
  }
  return "";
}

/** The first line of the user prompt the entry answers, or "". */
export function promptBefore(session: Pick<Session, "byId">, entryId: string): string {
  return promptText(session, entryId).split("\n", 1)[0]!;
}
