/**
 * Branch comparison's view model (the panel) and JSON (`pi-sessions compare`), from `core/compare.ts`: per side the
 * entries, cost and tokens after the fork point, the files it changed and read (resolved against the session's cwd),
 * its compact turns, and, for a file both sides changed, whether each side's final text is known: a write, then
 * edits that apply to it exactly (a call whose result is an error changed nothing).
 */
import { homedir } from "node:os";
import { posix, win32 } from "node:path";
import { type BranchEnd, compareBranches, type SideFacts } from "../../core/compare.js";
import type { Entry, Session } from "../../core/session/index.js";
import { type EditTexts, editTextsOf, promptText, toolCallArgs, toolPathOf } from "../../core/toolFiles.js";
import { truncate } from "../../protocol/format.js";
import { plainLabel } from "../../protocol/markdown.js";
import { entryLabelIn, messageText } from "../../core/entryText.js";
import { branchStartingAt } from "../../core/branches.js";
import type { CompareFile, CompareModel, CompareSide, CompareTurn } from "../../protocol/views.js";
import { isWindowsPath, pathKey, resolveTouchPath } from "../touches.js";

/** Turns and files a side shows at most (the rest are counted), and how long each turn's text is. */
const COMPARE_TURNS = 200;
const COMPARE_FILES = 500;
const TEXT_MAX = 600;

export interface CompareEnd extends BranchEnd {
  file: string;
  title: string;
  role: CompareSide["role"];
}

function cwdOf(session: Session): string | null {
  return typeof session.header.cwd === "string" ? session.header.cwd : null;
}

/** A file as the panel names it: relative to the session's cwd when it is under it. */
function labelOf(path: string, cwd: string | null): string {
  if (!cwd) return path;
  const rules = isWindowsPath(cwd) ? win32 : posix;
  const rel = rules.relative(cwd, path);
  return rel && !rel.startsWith("..") && !rules.isAbsolute(rel) ? rel : path;
}

/** The files a side changed and read, resolved, in first-touch order. */
function filesOf(side: SideFacts, session: Session, home: string) {
  const modified = new Map<string, string>();
  const read = new Map<string, string>();
  for (const t of side.touches) {
    const path = resolveTouchPath(t.path, cwdOf(session), session.flavor, t.kind, { home });
    if (!path) continue;
    const into = t.kind === "read" ? read : modified;
    if (!into.has(pathKey(path))) into.set(pathKey(path), path);
  }
  return { modified, read };
}

type Outcome = "ok" | "failed" | "unknown";

/**
 * What each tool call on a path came to, by `entryId:index`: its result said ok, or an error (it changed nothing), or
 * we cannot tell (no result, or results that cannot be paired with certainty). A result names its call by id: an id
 * unique among its message's calls pairs it; calls without ids, or with repeated ones, pair by order only when every
 * call has its result in order.
 */
function callOutcomes(path: readonly Entry[]): Map<string, Outcome> {
  const out = new Map<string, Outcome>();
  let calls: { index: number; id: string }[] = [];
  let entryId = "";
  let results: { id: string; error: boolean }[] = [];
  const settle = () => {
    // Counted once per message (a filter per call was quadratic: 40,000 calls in one message took 10 s).
    const callsWith = new Map<string, number>();
    for (const c of calls) callsWith.set(c.id, (callsWith.get(c.id) ?? 0) + 1);
    const resultsFor = new Map<string, { count: number; error: boolean }>();
    for (const r of results) {
      const seen = resultsFor.get(r.id);
      resultsFor.set(r.id, { count: (seen?.count ?? 0) + 1, error: r.error });
    }
    const inOrder = results.length === calls.length && results.every((r, k) => r.id === calls[k]!.id);
    calls.forEach((c, k) => {
      let outcome: Outcome = "unknown";
      if (c.id !== "" && callsWith.get(c.id) === 1) {
        const mine = resultsFor.get(c.id);
        if (mine?.count === 1) outcome = mine.error ? "failed" : "ok";
      } else if (inOrder) outcome = results[k]!.error ? "failed" : "ok";
      out.set(`${entryId}:${c.index}`, outcome);
    });
    calls = [];
    results = [];
  };
  for (const e of path) {
    if (e.role === "assistant") {
      settle();
      if (!e.touches?.length) continue; // no file call here: nothing to pair
      entryId = e.id;
      for (const b of e.message?.blocks ?? []) if (b.type === "toolCall") calls.push({ index: b.index, id: b.id });
    } else if (e.role === "toolResult" && calls.length && e.message) {
      const m = e.message.record;
      results.push({ id: typeof m.toolCallId === "string" ? m.toolCallId : "", error: m.isError === true });
    }
  }
  settle();
  return out;
}

/** pi's `normalizeToLF`: CRLF and a lone CR both become LF. */
function toLF(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/** Replacements one edit call may make before its text is given up as unknown (a hostile replace_all). */
const MAX_REPLACEMENTS = 100_000;
/** The longest text an edit may leave before it is given up as unknown (a replace_all that multiplies a file). */
const MAX_TEXT_CHARS = 16 * 1024 * 1024;
/** The texts of all a side's files held at once: past it, a file whose text would grow them is unknown. */
const MAX_KEPT_CHARS = 32 * 1024 * 1024;
/**
 * Characters of text one side's edits may search and build in all (each edit searches its file's whole text): past
 * it, the files it still edits are unknown. Bounds the work of a crafted session (thousands of edits of a large
 * file, or of an empty replace on a shared path both sides replay) to about a second.
 */
const EDIT_WORK_BUDGET = 256 * 1024 * 1024;
/** Replacements one side's edits may make in all (600 replace_alls of a letter in a 100 KB file took 16 s). */
const SIDE_REPLACEMENTS = 1_000_000;

/**
 * Needles up to this long are found by `indexOf`; longer ones by KMP. V8's Boyer–Moore looks at a needle's last 250
 * characters only, so past that its search is quadratic on a needle that differs from the text early (100,000 `a`s
 * around a `b` in a million `a`s took 15 s; a 256-character one in 16 M `a`s, 0.4 s a search).
 */
const SHORT_NEEDLE = 200;

/**
 * A search for `needle` from a position: `String.indexOf` for a short needle; for a long one Knuth–Morris–Pratt, which
 * is linear in text and needle whatever they hold (`indexOf` took 15 s for 100,000 `a`s around a `b` in a text of
 * a million `a`s).
 */
function finder(needle: string): (text: string, from: number) => number {
  if (needle.length <= SHORT_NEEDLE) return (text, from) => text.indexOf(needle, from);
  const fail = new Int32Array(needle.length);
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle.charCodeAt(i) !== needle.charCodeAt(k)) k = fail[k - 1]!;
    if (needle.charCodeAt(i) === needle.charCodeAt(k)) k++;
    fail[i] = k;
  }
  return (text, from) => {
    for (let i = Math.max(0, from), k = 0; i < text.length; i++) {
      while (k > 0 && text.charCodeAt(i) !== needle.charCodeAt(k)) k = fail[k - 1]!;
      if (text.charCodeAt(i) === needle.charCodeAt(k)) k++;
      if (k === needle.length) return i - needle.length + 1;
    }
    return -1;
  };
}

/**
 * What an `edit` call makes of `text`, as pi applies it (edit-diff.js `applyEditsToNormalizedContent`): line endings
 * made LF, every replacement found in the text as it was before the call, exactly once (OMP's `replace_all`: every
 * occurrence), none overlapping, all applied at once. Null when pi would have matched fuzzily or refused: unknown.
 * `isLF`: the text has no CR (it came from here), so its line endings need no pass of their own. `budget`: the
 * replacements left to the caller's whole walk (each costs a span and a slice), spent here.
 */
export function applyEdits(
  text: string,
  edits: readonly EditTexts[],
  isLF = false,
  budget: { replacements: number } = { replacements: MAX_REPLACEMENTS },
): string | null {
  const base = isLF ? text : toLF(text);
  const spans: { at: number; length: number; newText: string }[] = [];
  for (const e of edits) {
    const oldText = toLF(e.oldText);
    const newText = toLF(e.newText);
    if (!oldText) return null;
    const find = finder(oldText);
    const first = find(base, 0);
    if (first < 0) return null;
    if (!e.all && find(base, first + 1) >= 0) return null;
    for (let at = first; at >= 0; at = e.all ? find(base, at + oldText.length) : -1) {
      spans.push({ at, length: oldText.length, newText });
      if (spans.length > MAX_REPLACEMENTS || --budget.replacements < 0) return null;
    }
  }
  spans.sort((a, b) => a.at - b.at);
  let length = base.length;
  for (const sp of spans) length += sp.newText.length - sp.length;
  if (length > MAX_TEXT_CHARS) return null;
  // One pass, in chunks: a replace_all of a common letter in a large file stays linear.
  const parts: string[] = [];
  let from = 0;
  for (const sp of spans) {
    if (sp.at < from) return null; // overlapping: pi refuses
    parts.push(base.slice(from, sp.at), sp.newText);
    from = sp.at + sp.length;
  }
  parts.push(base.slice(from));
  return parts.join("");
}

/** What a side's calls leave in one file so far: its text (null: unknown for now), or dead (unknown for good). */
interface FileState {
  text: string | null;
  dead: boolean;
}

/**
 * The text a branch leaves in each file it changed (its whole path, the shared part too), by `pathKey`: the last
 * write's text with the later edits applied as pi applies them (`applyEdits`); a call whose result is an error
 * changed nothing, and one whose result is not known makes the text unknown until a later write. A call whose
 * arguments cannot be read makes it unknown for good. One walk of the path for every file (a walk per file and a
 * copy of the text per edit made compare quadratic).
 */
function finalTexts(side: SideFacts, session: Session, home: string): Map<string, FileState> {
  const outcomes = callOutcomes(side.path);
  const states = new Map<string, FileState>();
  let work = 0; // characters searched and built by the edits so far (`EDIT_WORK_BUDGET`)
  let kept = 0; // characters of the texts held (`MAX_KEPT_CHARS`)
  const keep = (state: FileState, text: string | null) => {
    kept -= state.text?.length ?? 0;
    const fits = text !== null && kept + text.length <= MAX_KEPT_CHARS;
    state.text = fits ? text : null;
    kept += state.text?.length ?? 0;
  };
  const budget = { replacements: SIDE_REPLACEMENTS };
  const cwd = cwdOf(session);
  for (const e of side.path) {
    for (const t of e.touches ?? []) {
      if (t.kind === "read") continue;
      const path = resolveTouchPath(t.path, cwd, session.flavor, t.kind, { home });
      if (!path) continue;
      const key = pathKey(path);
      let state = states.get(key);
      if (!state) states.set(key, (state = { text: null, dead: false }));
      if (state.dead) continue;
      const outcome = outcomes.get(`${e.id}:${t.index}`) ?? "unknown";
      if (outcome === "failed") continue;
      if (outcome === "unknown") {
        keep(state, null); // it may or may not have changed the file: a later write makes it known again
        continue;
      }
      const entry = session.byId.get(e.id);
      const args = entry ? toolCallArgs(entry, t) : null;
      if (!args) {
        state.dead = true;
        keep(state, null);
      } else if (t.kind === "write") keep(state, typeof args.content === "string" ? toLF(args.content) : null);
      else {
        const edits = editTextsOf(args);
        if (state.text !== null) work += state.text.length * (edits.length + 1);
        // The text is LF already (a write's is made so, and so is what an edit leaves).
        const next =
          state.text === null || !edits.length || work > EDIT_WORK_BUDGET
            ? null
            : applyEdits(state.text, edits, true, budget);
        work += next?.length ?? 0; // what it built counts too
        keep(state, next);
      }
    }
  }
  return states;
}

const finalTextsBySide = new WeakMap<SideFacts, { home: string; states: Map<string, FileState> }>();

/** The text a branch leaves in `file` (`finalTexts`), or null when it is not known. */
export function finalTextOf(side: SideFacts, session: Session, file: string, home = homedir()): string | null {
  let known = finalTextsBySide.get(side);
  if (!known || known.home !== home)
    finalTextsBySide.set(side, (known = { home, states: finalTexts(side, session, home) }));
  return known.states.get(pathKey(file))?.text ?? null;
}

function turnsOf(after: readonly Entry[]): CompareTurn[] {
  const turns: CompareTurn[] = [];
  for (const e of after) {
    if (e.role !== "user" && e.role !== "assistant") continue;
    const m = e.message;
    if (!m) continue;
    const time = timeOf(e);
    const text = messageText(m).trim();
    if (e.role === "user") {
      if (text) turns.push({ kind: "user", entryId: e.id, text: truncate(text, TEXT_MAX), time });
      continue;
    }
    // An answer keeps its lines (it is shown as Markdown): cut by length, not flattened.
    if (text) turns.push({ kind: "assistant", entryId: e.id, text: cutKeepingLines(text, TEXT_MAX), time });
    for (const b of m.blocks) {
      if (b.type !== "toolCall") continue;
      const args = b.arguments ?? {};
      const what = toolPathOf(args) || (typeof args.command === "string" ? args.command : "");
      const name = typeof b.record.name === "string" ? b.name : "tool";
      turns.push({ kind: "tool", entryId: e.id, text: truncate(`${name} ${what}`.trim(), 200), time });
    }
  }
  return turns;
}

export function compareModel(a: CompareEnd, b: CompareEnd, home = homedir()): CompareModel {
  const c = compareBranches(a, b);
  const ends = [a, b] as const;
  const files = c.sides.map((side, i) => filesOf(side, ends[i]!.session, home));
  const touchedBy = (i: number) => new Set([...files[i]!.modified.keys(), ...files[i]!.read.keys()]);
  const touched = [touchedBy(0), touchedBy(1)];
  const sides = c.sides.map((side, i): CompareSide => {
    const end = ends[i]!;
    const other = touched[1 - i]!;
    const cwd = cwdOf(end.session);
    const list = (m: Map<string, string>): CompareFile[] =>
      [...m]
        .slice(0, COMPARE_FILES)
        .map(([key, path]) => ({ path, label: labelOf(path, cwd), shared: other.has(key) }));
    const turns = turnsOf(side.after);
    return {
      file: end.file,
      title: end.title,
      branch: branchTaken(end.session, c.forkPointId, side.after),
      firstPrompt: firstPromptLabel(turns),
      leafId: end.leafId,
      leafLabel: leafLabelOf(end),
      role: end.role,
      entries: side.after.length,
      cost: side.cost,
      tokens: side.tokens,
      durationMs: Number.isFinite(side.firstTime) ? side.lastTime - side.firstTime : null,
      filesModified: list(files[i]!.modified),
      filesRead: list(files[i]!.read),
      moreFiles:
        Math.max(0, files[i]!.modified.size - COMPARE_FILES) + Math.max(0, files[i]!.read.size - COMPARE_FILES),
      turns: turns.slice(0, COMPARE_TURNS),
      moreTurns: Math.max(0, turns.length - COMPARE_TURNS),
    };
  }) as [CompareSide, CompareSide];
  const bothEdited = [...files[0]!.modified]
    .filter(([key]) => files[1]!.modified.has(key))
    .slice(0, COMPARE_FILES)
    .map(([, path]) => ({
      path,
      diffable:
        finalTextOf(c.sides[0], a.session, path, home) !== null &&
        finalTextOf(c.sides[1], b.session, path, home) !== null,
    }));
  return {
    kind: "compare",
    forkPointId: c.forkPointId,
    forkPrompt: c.forkPointId
      ? truncate(promptText(a.session, c.forkPointId) || promptText(b.session, c.forkPointId), TEXT_MAX) || null
      : null,
    forkTime: timeOf(
      c.forkPointId ? (a.session.byId.get(c.forkPointId) ?? b.session.byId.get(c.forkPointId)) : undefined,
    ),
    sides,
    bothEdited,
  };
}

/** The branch a side takes at the fork point (`branchStartingAt`), when the fork point is a branch point there. */
function branchTaken(session: Session, forkPointId: string | null, after: readonly Entry[]): CompareSide["branch"] {
  const first = after[0];
  if (!first || first.parentId !== forkPointId) return null;
  const b = branchStartingAt(session, first.id);
  return b && { number: b.number, of: b.of, name: b.name };
}

function cutKeepingLines(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const line = cut.lastIndexOf("\n");
  return `${line > max / 2 ? cut.slice(0, line) : cut}…`;
}

function timeOf(e: Entry | undefined): number | null {
  const t = Date.parse(e?.timestamp ?? "");
  return Number.isFinite(t) ? t : null;
}

/** `pi-sessions compare --json`: the documented shape. */
export function compareJson(a: BranchEnd, b: BranchEnd, home = homedir()) {
  const c = compareBranches(a, b);
  const ends = [a, b];
  return {
    forkPoint: c.forkPointId,
    sides: c.sides.map((side, i) => {
      const f = filesOf(side, ends[i]!.session, home);
      return {
        leaf: side.leaf,
        entries: side.after.length,
        cost: side.cost,
        tokens: side.tokens,
        filesModified: [...f.modified.values()],
        filesRead: [...f.read.values()],
        lastAssistant: side.lastAssistant,
      };
    }),
  };
}

function leafLabelOf(end: CompareEnd): string | null {
  const leaf = end.leafId === null ? undefined : end.session.byId.get(end.leafId);
  return leaf ? entryLabelIn(end.session.byId, leaf, 60) : null;
}

/** The side's first prompt as its heading shows it: plain (`plainLabel`), as the branch names are. */
function firstPromptLabel(turns: readonly CompareTurn[]): string | null {
  const text = turns.find((t) => t.kind === "user")?.text;
  return text === undefined ? null : plainLabel(text);
}
