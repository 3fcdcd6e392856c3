/**
 * `read_session`: one branch of a listed session as Markdown, a window at a time. A window starts at the branch's
 * first entry, a few entries before the one asked for (`entry`), or where the last window ended (`from`, a cursor);
 * it holds whole entries up to `maxChars`, each cut to a preview where it is long (core/export/recall.ts), and says
 * how to go on. Only the entries of the window are decoded: a 100 MB session costs its parse and the window.
 */
import { createHash } from "node:crypto";
import { branchPath, hasTranscriptItem, transcriptItem, type BranchPath } from "../../core/transcript.js";
import { pathTo, type Session } from "../../core/session/index.js";
import { formatCount, jsonSafe } from "../../protocol/format.js";
import { loadExporters } from "../views/exportBranch.js";

type RecallMarkdown = Awaited<ReturnType<typeof loadExporters>>["recallMarkdown"];
import { sessionTitle, type StoreSession } from "../store/index.js";
import { QUOTED_NOTE, quoteBlock, RecallError, type ToolAnswer } from "./answer.js";
import { READ_DEFAULT_CHARS, type ReadArgs } from "./schemas.js";
import { findSession, type RecallSource } from "./source.js";

/** A string of the session's (a path, a title) in the tool's own lines: quoted, every control escaped. */
const quote = (text: string) => jsonSafe(JSON.stringify(text));

/** Entries shown before the one asked for, so that the turn that led to it is read with it. */
const CONTEXT_BEFORE = 3;
/** The most characters of one text, and of one tool output, in a window (less when the window has less room). */
const TEXT_MAX = 6_000;
const OUTPUT_MAX = 1_200;
/** Room the tool's own lines around the quoted block take at first (the header and the closing lines). */
const FRAME_CHARS = 900;
/** What ends an entry cut to fit the window. */
const CUT_NOTE = "\n\n*(cut: the entry is longer than the window)*";

interface Cursor {
  /** A digest of the session's file, the branch's leaf, the entry the window starts at. */
  file: string;
  leaf: string;
  entry: string;
}

/** The session a cursor belongs to, in a few characters (the cursor is checked against it, never opened). */
const fileTag = (file: string) => createHash("sha256").update(file).digest("base64url").slice(0, 10);

function encodeCursor(file: string, leaf: string, entry: string): string {
  return Buffer.from(JSON.stringify([fileTag(file), leaf, entry])).toString("base64url");
}

function decodeCursor(text: string): Cursor {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    parts = null;
  }
  const [file, leaf, entry] = Array.isArray(parts) && parts.length === 3 ? (parts as unknown[]) : [];
  if (typeof file !== "string" || typeof leaf !== "string" || typeof entry !== "string")
    throw new RecallError(`from: ${JSON.stringify(text)} is not a cursor of read_session`);
  return { file, leaf, entry };
}

/** The leaf of the newest branch through an entry: the active one when the entry is on it. */
function leafThrough(session: Session, entryId: string): string {
  const active = session.leafId ? pathTo(session, session.leafId) : [];
  if (active.some((e) => e.id === entryId)) return session.leafId!;
  let at = entryId;
  for (let steps = 0; steps < session.entries.length; steps++) {
    const kids = session.children.get(at);
    if (!kids?.length) break;
    at = kids[kids.length - 1]!;
  }
  return at;
}

interface Plan {
  leaf: string;
  /** The path index the window is about: the entry asked for, the cursor's, or the branch's first. */
  start: number;
  /** Show up to `CONTEXT_BEFORE` entries before `start` (a window around an entry). */
  context: boolean;
  path: BranchPath;
}

function plan(args: ReadArgs, session: Session, stored: StoreSession): Plan {
  const inherited = stored.parent ? stored.inherited : undefined;
  const known = (id: string, what: string) => {
    if (!session.byId.has(id))
      throw new RecallError(`${what} ${JSON.stringify(id)} is not an entry of ${session.file}`);
    return id;
  };
  if (args.from !== undefined) {
    const c = decodeCursor(args.from);
    if (c.file !== fileTag(session.file)) throw new RecallError("from: the cursor is of another session");
    const path = branchPath(session, { leafId: known(c.leaf, "the cursor's branch"), inherited });
    const start = path.position.get(c.entry);
    if (start === undefined) throw new RecallError("from: the session changed; read it again without the cursor");
    return { leaf: c.leaf, start, context: false, path };
  }
  const leaf =
    args.branch !== undefined && args.branch !== "active"
      ? known(args.branch, "branch")
      : args.entry !== undefined && args.branch === undefined
        ? leafThrough(session, known(args.entry, "entry"))
        : session.leafId;
  if (leaf === null) return { leaf: "", start: 0, context: false, path: branchPath(session, { leafId: null }) };
  const path = branchPath(session, { leafId: leaf, inherited });
  let start = 0;
  if (args.entry !== undefined) {
    const at = path.position.get(known(args.entry, "entry"));
    if (at === undefined) throw new RecallError(`entry ${args.entry} is not on the branch ending at ${leaf}`);
    start = at;
  }
  return { leaf, start, context: args.entry !== undefined, path };
}

/** One entry of a window: its Markdown, its id, and its path index. */
interface Part {
  md: string;
  entryId: string;
  index: number;
}

type Render = (index: number, room: number) => Part | null;

function renderer(p: Plan, session: Session, thinking: boolean, recallMarkdown: RecallMarkdown): Render {
  return (index, room) => {
    const item = transcriptItem(p.path, index);
    if (!item) return null;
    const limits = { thinking, textMax: Math.min(TEXT_MAX, room), outputMax: Math.min(OUTPUT_MAX, room) };
    return { md: recallMarkdown(item, session, limits), entryId: item.entryId, index };
  };
}

/**
 * The window: the entry at the plan's start (always, made shorter when it must), then what follows while it fits;
 * around an entry, first up to `CONTEXT_BEFORE` entries before it, nearest first, in a third of the room.
 */
async function fill(p: Plan, session: Session, budget: number, thinking: boolean): Promise<Part[]> {
  const render = renderer(p, session, thinking, (await loadExporters()).recallMarkdown);
  const before: Part[] = [];
  let used = 0;
  for (let i = p.start - 1, n = 0; p.context && i >= 0 && n < CONTEXT_BEFORE; i--) {
    const part = render(i, Math.floor(budget / 3) - used);
    if (!part) continue;
    if (used + part.md.length + 2 > budget / 3) break;
    before.unshift(part);
    used += part.md.length + 2;
    n++;
  }
  const parts: Part[] = [];
  for (let i = p.start; i < p.path.entries.length; i++) {
    let part = render(i, budget - used);
    if (!part) continue;
    if (part.md.length + 2 > budget - used) {
      // The next window starts at it; the window's own entry too long for it is shown shorter, never left out.
      if (parts.length) break;
      part = render(i, Math.floor((budget - used) / 4))!;
    }
    parts.push(part);
    used += part.md.length + 2;
  }
  return [...before, ...parts];
}

/** The answer: the tool's own lines (what the window is, how to go on) around the quoted window. */
function frame(p: Plan, session: Session, stored: StoreSession, parts: Part[]) {
  const total = p.path.entries.length;
  // The next window starts after the last entry shown (entries with nothing to read after it go with it).
  let end = parts.length ? parts.at(-1)!.index + 1 : p.start;
  while (end < total && !hasTranscriptItem(p.path.entries[end]!)) end++;
  const next = end < total ? encodeCursor(session.file, p.leaf, p.path.entries[end]!.id) : null;
  const id = stored.summary.ok ? stored.summary.id : String(session.header.id ?? "");
  const branch = p.leaf === session.leafId ? "the active branch" : `the branch ending at entry ${p.leaf}`;
  const shown = parts.length ? `entries ${parts[0]!.index + 1}–${end} of ${formatCount(total)}` : "no entries";
  const quoted = quoteBlock(parts.map((x) => x.md).join("\n\n") || "*(nothing to read in this window)*");
  const head = [
    `Session ${quote(id)} (${session.flavor === "omp" ? "Oh My Pi" : "pi"}), file ${quote(session.file)}, working ` +
      `directory ${quote(String(session.header.cwd ?? ""))}: ${branch}, ${shown}.`,
    `Its title and everything between ${quoted.open} and ${quoted.close} is quoted from the session file. ` +
      QUOTED_NOTE,
    `Title: ${quote(sessionTitle(stored))}`,
  ];
  const named = stored.sameIdAs.length || !id ? session.file : id;
  const tail = next
    ? `More of this branch: read_session { "session": ${quote(named)}, "from": "${next}" }`
    : "End of the branch.";
  return { text: `${head.join("\n")}\n${quoted.text}\n${tail}`, next, id, end };
}

export async function readSession(args: ReadArgs, source: RecallSource): Promise<ToolAnswer> {
  const sessions = await source.sessions();
  const stored = findSession(sessions, args.session, source.rootDirs());
  const parsed = await source.open(stored);
  if (!parsed.ok)
    throw new RecallError(`${parsed.file}:${parsed.rejection.line}: not readable: ${parsed.rejection.message}`);
  const session = parsed.session;
  const p = plan(args, session, stored);
  const maxChars = args.maxChars ?? READ_DEFAULT_CHARS;
  const parts = await fill(p, session, Math.max(500, maxChars - FRAME_CHARS), args.thinking === true);
  // The frame's length depends on the session's names and escapes: the window gives up entries until it fits, and
  // a single entry left is cut.
  let f = frame(p, session, stored, parts);
  while (f.text.length > maxChars && parts.length > 1) {
    // Entries after the one the window is about go first, then those before it.
    if (parts.at(-1)!.index > p.start) parts.pop();
    else parts.shift();
    f = frame(p, session, stored, parts);
  }
  if (f.text.length > maxChars && parts.length === 1) {
    const over = f.text.length - maxChars + CUT_NOTE.length;
    parts[0]!.md = parts[0]!.md.slice(0, Math.max(0, parts[0]!.md.length - over)) + CUT_NOTE;
    f = frame(p, session, stored, parts);
  }
  return {
    text: f.text,
    data: {
      session: f.id,
      file: session.file,
      branchLeaf: p.leaf || null,
      activeBranch: p.leaf === session.leafId,
      entriesOnBranch: p.path.entries.length,
      window: {
        first: parts[0]?.entryId ?? null,
        last: parts.at(-1)?.entryId ?? null,
        fromIndex: parts[0]?.index ?? p.start,
        toIndex: f.end,
      },
      next: f.next,
    },
  };
}
