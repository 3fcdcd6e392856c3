/**
 * `read_session`: one branch of a listed session as Markdown, a window at a time. A window starts at the branch's
 * first entry, at the entry asked for (`entry`, with up to three entries before it), or where the last window ended
 * (`from`, a cursor); it holds whole entries up to `maxChars`, each cut to a preview where it is long
 * (core/export/recall.ts), and says how to go on. Only the entries of the window are decoded: a 100 MB session costs
 * its parse and the window.
 */
import { branchPath, hasTranscriptItem, transcriptItem, type BranchPath } from "../../core/transcript.js";
import { pathTo, type Session } from "../../core/session/index.js";
import { formatCount, jsonSafe, truncate } from "../../protocol/format.js";
import { loadExporters } from "../views/exportBranch.js";
import { sessionTitle, type StoreSession } from "../store/index.js";
import { QUOTED_NOTE, quoteBlock, recallSafe, RecallError, type ToolAnswer } from "./answer.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { READ_DEFAULT_CHARS, type ReadArgs } from "./schemas.js";
import { findSession, type RecallSource } from "./source.js";

type RecallMarkdown = Awaited<ReturnType<typeof loadExporters>>["recallMarkdown"];

/**
 * A string of the session's (an id, a path, a title) in the tool's own lines: cut to a line's worth, quoted, every
 * control and invisible character escaped.
 */
const quoted = (text: string, max: number) => recallSafe(jsonSafe(JSON.stringify(truncate(text, max))));

/** Entries shown before the one asked for, so that the turn that led to it is read with it. */
const CONTEXT_BEFORE = 3;
/** The most characters of one text, and of one tool output, in a window (less when the window has less room). */
const TEXT_MAX = 6_000;
const OUTPUT_MAX = 1_200;
/** The most characters of the session's id, folder and title in the tool's own lines (40 in a small window). */
const FIELD_MAX = 300;
/** What ends an entry cut to fit the window. */
const CUT_NOTE = "\n\n*(cut: the entry is longer than the window)*";

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
  leaf: string | null;
  /** The path index the window is about: the entry asked for, the cursor's, or the branch's first. */
  start: number;
  /** Show up to `CONTEXT_BEFORE` entries before `start` (a window around an entry). */
  context: boolean;
  path: BranchPath;
}

function plan(args: ReadArgs, session: Session, stored: StoreSession): Plan {
  const inherited = stored.parent ? stored.inherited : undefined;
  const known = (id: string, what: string) => {
    if (!session.byId.has(id)) throw new RecallError(`${what} ${JSON.stringify(id)} is not an entry of the session`);
    return id;
  };
  if (args.from !== undefined) return { ...decodeCursor(args.from, session, inherited), context: false };
  const leaf =
    args.branch !== undefined && args.branch !== "active"
      ? known(args.branch, "branch")
      : args.entry !== undefined && args.branch === undefined
        ? leafThrough(session, known(args.entry, "entry"))
        : session.leafId;
  const path = branchPath(session, { leafId: leaf, inherited });
  if (args.entry === undefined) return { leaf, start: 0, context: false, path };
  const at = path.position.get(known(args.entry, "entry"));
  if (at === undefined) throw new RecallError(`entry ${JSON.stringify(args.entry)} is not on the branch asked for`);
  return { leaf, start: at, context: true, path };
}

/** One entry of a window: its Markdown (escaped as the answer carries it), its id, and its path index. */
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
    return { md: quoteBlock(recallMarkdown(item, session, limits)).body, entryId: item.entryId, index };
  };
}

/**
 * The window's entries within `budget` characters: the entry at the plan's start (always, made shorter when it
 * must), then what follows while it fits; around an entry, first up to `CONTEXT_BEFORE` entries before it, nearest
 * first, in a third of the room.
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
  for (let i = p.start; i < p.path.entries.length && used < budget; i++) {
    let part = render(i, budget - used);
    if (!part) continue;
    if (part.md.length + 2 > budget - used) {
      // The next window starts at it; the window's own entry too long for it is shown shorter, then cut.
      if (parts.length) break;
      part = render(i, Math.floor((budget - used) / 4))!;
      if (part.md.length + 2 > budget - used) part.md = part.md.slice(0, budget - used - CUT_NOTE.length) + CUT_NOTE;
    }
    parts.push(part);
    used += part.md.length + 2;
  }
  return [...before, ...parts];
}

/** The answer: the tool's own lines (what the window is, how to go on) around the quoted window. */
function frame(p: Plan, session: Session, stored: StoreSession, parts: Part[], fieldMax: number) {
  const quote = (text: string, max = fieldMax) => quoted(text, max);
  const total = p.path.entries.length;
  // The next window starts after the last entry shown (entries with nothing to read after it go with it).
  let end = parts.length ? parts.at(-1)!.index + 1 : p.start;
  while (end < total && !hasTranscriptItem(p.path.entries[end]!)) end++;
  const next = end < total && p.leaf !== null ? encodeCursor(session, p.path, p.leaf, end) : null;
  const id = stored.summary.ok ? stored.summary.id : String(session.header.id ?? "");
  const branch =
    p.leaf === session.leafId ? "the active branch" : `the branch ending at entry ${quote(p.leaf ?? "", 100)}`;
  const shown = parts.length ? `entries ${parts[0]!.index + 1}–${end} of ${formatCount(total)}` : "no entries";
  const block = quoteBlock(parts.map((x) => x.md).join("\n\n") || "*(nothing to read in this window)*");
  const head = [
    `Session ${quote(id)} (${session.flavor === "omp" ? "Oh My Pi" : "pi"}), file ${quote(session.file, 1000)}, ` +
      `working directory ${quote(String(session.header.cwd ?? ""))}: ${branch}, ${shown}.`,
    `Its title and everything between ${block.open} and ${block.close} is quoted from the session file. ` + QUOTED_NOTE,
    `Title: ${quote(sessionTitle(stored))}`,
  ];
  // The file names the session for the next call whatever its id holds (a path-like id, another file's id).
  const tail = next
    ? `More of this branch: read_session { "session": ${quote(session.file, Infinity)}, "from": "${next}" }`
    : "End of the branch.";
  return { text: `${head.join("\n")}\n${block.text}\n${tail}`, next, id, end };
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
  // The frame's own length, once (its fields are bounded; shorter for a small window), gives the window its room.
  let fieldMax = FIELD_MAX;
  let overhead = frame(p, session, stored, [], fieldMax).text.length + 100;
  if (overhead > maxChars / 2) overhead = frame(p, session, stored, [], (fieldMax = 40)).text.length + 100;
  const parts = await fill(p, session, Math.max(200, maxChars - overhead), args.thinking === true);
  let f = frame(p, session, stored, parts, fieldMax);
  // Escapes the frame could not foresee: entries after the one asked for go first, then those before it, and the
  // last one left is cut.
  while (f.text.length > maxChars && parts.length > 1) {
    if (parts.at(-1)!.index > p.start) parts.pop();
    else parts.shift();
    f = frame(p, session, stored, parts, fieldMax);
  }
  const over = f.text.length - maxChars;
  if (over > 0 && parts.length === 1 && parts[0]!.md.length > over + CUT_NOTE.length) {
    parts[0]!.md = parts[0]!.md.slice(0, parts[0]!.md.length - over - CUT_NOTE.length) + CUT_NOTE;
    f = frame(p, session, stored, parts, fieldMax);
  }
  return {
    text: f.text,
    data: {
      session: f.id,
      file: session.file,
      branchLeaf: p.leaf,
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
