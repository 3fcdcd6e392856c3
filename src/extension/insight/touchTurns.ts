/**
 * The agent turns behind a file's touches, as the quick pick and the Agent History view show them: the session's
 * name, the kind, when, and the first line of the user prompt that led to the call (read from the opened session,
 * once the user asks for the list, never on keystrokes).
 */
import { basename } from "node:path";
import * as vscode from "vscode";
import { editInFile, editTextsOf, toolCallArgs, touchDiffTexts } from "../../core/toolFiles.js";
import { countOf, formatDateTime, relativeTime, truncate } from "../../protocol/format.js";
import { promptLines } from "../../core/promptBehind.js";
import type { FileTouch } from "../../node/touches.js";
import { readSessionFile } from "../../node/readSession.js";
import type { SessionService } from "../service.js";
import type { DiffTexts } from "../webviews/diffTexts.js";
import { displayTitle, leafBranchTitle } from "../titles.js";
import { branchesOnPath } from "../../core/branches.js";

export const KIND_ICONS: Record<FileTouch["kind"], string> = { read: "eye", edit: "edit", write: "new-file" };

export function kindLabel(kind: FileTouch["kind"]): string {
  return kind === "read" ? vscode.l10n.t("read") : kind === "edit" ? vscode.l10n.t("edit") : vscode.l10n.t("write");
}

/** The CodeLens line: "$(edit) 3 agent edits · $(eye) 5 reads · 2 sessions" (writes count as edits; codicons). */
export function lensTitle(touches: readonly FileTouch[]): string {
  const edits = touches.filter((t) => t.kind !== "read").length;
  const reads = touches.length - edits;
  const sessions = new Set(touches.map((t) => t.session.file)).size;
  const parts: string[] = [];
  if (edits)
    parts.push(`$(edit) ${edits === 1 ? vscode.l10n.t("1 agent edit") : vscode.l10n.t("{0} agent edits", edits)}`);
  if (reads) {
    const n = edits
      ? reads === 1
        ? vscode.l10n.t("1 read")
        : vscode.l10n.t("{0} reads", reads)
      : reads === 1
        ? vscode.l10n.t("1 agent read")
        : vscode.l10n.t("{0} agent reads", reads);
    parts.push(`$(eye) ${n}`);
  }
  parts.push(sessions === 1 ? vscode.l10n.t("1 session") : vscode.l10n.t("{0} sessions", sessions));
  return parts.join(" · ");
}

/** Sessions whose prompts a list reads at most (the others show their session's name). */
const PROMPT_SESSIONS = 20;
/** Prompt lines kept per session file, for as long as the file is unchanged (most recently used 50). */
const promptCache = new Map<string, { size: number; mtimeMs: number; prompts: Map<string, TurnText> }>();

/** What a list says of a turn: the first line of its prompt, and its branch when a branch point is above it. */
export interface TurnText {
  prompt: string;
  branch: string | null;
}

/**
 * The first line of the prompt behind each touch, by `file\nentryId`. A session the library follows is read from its
 * model; another is parsed and let go (a long list must not keep every session it names in memory), and its lines
 * are cached while the file is unchanged. At most `PROMPT_SESSIONS` sessions, the newest touches first.
 */
export async function promptsOf(
  service: SessionService,
  touches: readonly FileTouch[],
): Promise<Map<string, TurnText>> {
  const out = new Map<string, TurnText>();
  const files = [...new Set(touches.map((t) => t.session.file))].slice(0, PROMPT_SESSIONS);
  for (const file of files) {
    const s = service.lib.get(file);
    // What the file was when we started: a read that an append overtakes is cached under the older size.
    const size = s?.sizeBytes;
    const mtimeMs = s?.mtimeMs;
    const cached = promptCache.get(file);
    let prompts = cached && s && cached.size === size && cached.mtimeMs === mtimeMs ? cached.prompts : null;
    if (prompts) {
      promptCache.delete(file); // most recently used last
      promptCache.set(file, cached!);
    } else {
      const r = service.lib.peek(file) ?? (await readSessionFile(file, { validate: false }).catch(() => null));
      if (!r?.ok) continue;
      // Every touch of the session, not only this list's: another file's list finds its lines here too.
      prompts = new Map();
      const ids = [
        ...touches.filter((t) => t.session.file === file).map((t) => t.entryId),
        ...(s?.summary.ok ? s.summary.touches.map((t) => t.entryId) : []),
      ];
      const lineOf = promptLines(r.session);
      for (const id of ids)
        if (!prompts.has(id) && r.session.byId.has(id))
          prompts.set(id, { prompt: lineOf(id), branch: leafBranchTitle(branchesOnPath(r.session, id)) });
      promptCache.delete(file);
      if (size !== undefined && mtimeMs !== undefined) promptCache.set(file, { size, mtimeMs, prompts });
      while (promptCache.size > 50) promptCache.delete(promptCache.keys().next().value!);
    }
    for (const t of touches) {
      const p = t.session.file === file ? prompts.get(t.entryId) : undefined;
      if (p !== undefined) out.set(`${file}\n${t.entryId}`, p);
    }
  }
  return out;
}

/** "edit · 3 hours ago" */
export function touchWhen(t: FileTouch): string {
  return Number.isFinite(t.time) ? `${kindLabel(t.kind)} · ${relativeTime(t.time)}` : kindLabel(t.kind);
}

export function touchTooltip(t: FileTouch, prompt: string | undefined): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, false);
  md.isTrusted = false;
  md.supportHtml = false;
  md.appendText(`${displayTitle(t.session)}\n`);
  md.appendText(`${kindLabel(t.kind)} (${t.tool}) · ${Number.isFinite(t.time) ? formatDateTime(t.time) : "?"}\n`);
  if (prompt) md.appendText(`${prompt}\n`);
  md.appendText(t.onActivePath ? vscode.l10n.t("On the active branch") : vscode.l10n.t("On another branch"));
  if (t.kind === "edit")
    md.appendText(
      `\n${vscode.l10n.t("Compare with Current File needs a write: an edit sends only the text it replaces.")}`,
    );
  return md;
}

/** "2 edits · 1 read" (a kind with none left out). */
export function sessionsSummary(touches: readonly FileTouch[]): string {
  const edits = touches.filter((t) => t.kind !== "read").length;
  const reads = touches.length - edits;
  return [
    edits ? countOf(edits, vscode.l10n.t("edit"), vscode.l10n.t("edits")) : "",
    reads ? countOf(reads, vscode.l10n.t("read"), vscode.l10n.t("reads")) : "",
  ]
    .filter(Boolean)
    .join(" · ");
}

/** The tool call's arguments, read from the opened session. */
async function argsOf(service: SessionService, t: FileTouch): Promise<Record<string, unknown>> {
  const r = await service.lib.open(t.session.file);
  const entry = r.ok ? r.session.byId.get(t.entryId) : undefined;
  const args = entry ? toolCallArgs(entry, t) : null;
  if (!args)
    throw new Error(vscode.l10n.t("The tool call {0} is no longer in {1}", t.toolCallId, basename(t.session.file)));
  return args;
}

/** "Show Edit Diff": the texts the agent sent, titled "<file> — edit by <session> at <time>". */
export async function showEditDiff(service: SessionService, diffs: DiffTexts, t: FileTouch): Promise<void> {
  const args = await argsOf(service, t);
  const texts = touchDiffTexts(t.kind, args);
  if (!texts) throw new Error(vscode.l10n.t("This {0} carries no texts to compare", kindLabel(t.kind)));
  const when = Number.isFinite(t.time) ? formatDateTime(t.time) : "?";
  const by = truncate(displayTitle(t.session), 40);
  const title = vscode.l10n.t("{0} — {1} by {2} at {3}", basename(t.path), kindLabel(t.kind), by, when);
  if (t.kind !== "edit") return diffs.open(texts.before, texts.after, title, t.path);
  // An edit sends only the texts it replaces: shown in the file as it is now where that is certain, else as
  // fragments named so that no language server checks a piece of code as if it were a whole file.
  const inFile = editInFile((await currentText(t.path)) ?? "", editTextsOf(args));
  if (inFile)
    return diffs.open(inFile.before, inFile.after, vscode.l10n.t("{0} (in the file as it is now)", title), t.path);
  await diffs.open(texts.before, texts.after, vscode.l10n.t("{0} (the edited parts)", title), `${t.path} (fragment)`);
}

/** Files larger than this are not read to place an edit in them. */
const PLACE_EDIT_MAX_BYTES = 8 * 1024 * 1024;

/** The file's text now, or null when it is gone, too large or unreadable. */
async function currentText(path: string): Promise<string | null> {
  try {
    const uri = vscode.Uri.file(path);
    if ((await vscode.workspace.fs.stat(uri)).size > PLACE_EDIT_MAX_BYTES) return null;
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return null;
  }
}

/** "Compare with Current File": a write's whole text against the file as it is now. */
export async function compareWithCurrent(service: SessionService, diffs: DiffTexts, t: FileTouch): Promise<void> {
  if (t.kind !== "write")
    throw new Error(vscode.l10n.t("Compare with Current File needs a write: an edit sends only the text it replaces."));
  const args = await argsOf(service, t);
  if (typeof args.content !== "string") throw new Error(vscode.l10n.t("This write carries no text"));
  const title = vscode.l10n.t("{0} — after {1} ↔ now", basename(t.path), truncate(displayTitle(t.session), 40));
  await diffs.openAgainst(args.content, vscode.Uri.file(t.path), title);
}
