/**
 * A name or a label appended to a session the way the agent appends it (pi's `appendSessionInfo` and
 * `appendLabelChange`): one record after the active leaf, a fresh 8-hex id, one whole line. Written as every writer of
 * ours writes: under the writer lock, refused while an agent is writing the file (changed in the last seconds, or
 * OMP's lock held), and only if the file is still exactly what was read; on any failure it is left as it was.
 */
import { stat } from "node:fs/promises";
import { type Entry, parseSession, type Session } from "../../core/session/index.js";
import { appendRefusal } from "../appendRefusal.js";
import { newEntryId } from "../compact/entryLines.js";
import {
  appendIfUnchanged,
  overwriteHeadIfUnchanged,
  publishLockHeld,
  SessionWriteError,
  snapshot,
  withWriterLock,
} from "../sessionWrite.js";
import { cleanOmpTitle, titleSlotBytes, userTitleSlot } from "./ompTitle.js";

/** Why nothing was written: the message names the file and the reason. */
export class ManageRefused extends Error {
  constructor(
    readonly file: string,
    /** Why, without the file: what a view that already names the session shows. */
    readonly reason: string,
  ) {
    super(`${file}${reason.startsWith("line ") ? " " : ": "}${reason}`);
    this.name = "ManageRefused";
  }
}

/** What an append wrote (or, in a dry run, would write). */
export interface Appended {
  file: string;
  record: Record<string, unknown>;
  written: boolean;
}

export interface AppendOptions {
  dryRun?: boolean;
  /** A file written this recently is taken to be in an agent's hands (the same window as Compact Branch). */
  busyWindowMs?: number;
  now?: () => number;
}

/** The record's own fields, decided once the session is read (`session` as it is on disk, `bytes` its file). */
export type RecordFields = (session: Session, bytes: Buffer) => Record<string, unknown>;

/** What else the agent writes right after the record (OMP's title slot), still under our writer lock. */
type AfterAppend = (bytes: Buffer, record: Record<string, unknown>) => Promise<void>;

async function appendAgentEntry(
  file: string,
  action: string,
  fields: RecordFields,
  o: AppendOptions = {},
  after?: AfterAppend,
): Promise<Appended> {
  const run = () => appendLocked(file, action, fields, o, after);
  try {
    return o.dryRun ? await run() : await withWriterLock(file, run);
  } catch (err) {
    if (err instanceof SessionWriteError) throw new ManageRefused(file, err.message);
    throw err;
  }
}

/**
 * The file as our last append in this process left it: a file that is still exactly that was last written by us, not
 * by an agent, so a second change right after the first (a rename, then a label) is not taken for an agent at work.
 */
const ownLastWrite = new Map<string, { size: number; mtimeNs: bigint }>();

async function appendLocked(
  file: string,
  action: string,
  fields: RecordFields,
  o: AppendOptions,
  after?: AfterAppend,
): Promise<Appended> {
  let read;
  try {
    read = await snapshot(file);
  } catch (err) {
    throw new ManageRefused(file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const { snap, bytes } = read;
  const parsed = parseSession(file, bytes);
  if (!parsed.ok)
    throw new ManageRefused(file, `line ${parsed.rejection.line}: ${parsed.rejection.message}; nothing was written`);
  const session = parsed.session;
  const why = appendRefusal(session, bytes, action);
  if (why) throw new ManageRefused(file, `${why}; nothing was written`);
  const record = {
    type: "",
    id: newEntryId(session),
    parentId: session.leafId,
    timestamp: new Date((o.now ?? Date.now)()).toISOString(),
    ...fields(session, bytes),
  };
  if (o.dryRun) return { file, record, written: false };
  const now = (o.now ?? Date.now)();
  const ours = ownLastWrite.get(file);
  const lastWriteWasOurs = ours?.size === snap.size && ours.mtimeNs === snap.mtimeNs;
  if (!lastWriteWasOurs && now - Number(snap.mtimeNs / 1_000_000n) < (o.busyWindowMs ?? 3000))
    throw new ManageRefused(
      file,
      `written in the last few seconds, so an agent is likely writing it; nothing was written ` +
        "(retry when it is idle)",
    );
  if (await publishLockHeld(file))
    throw new ManageRefused(file, `Oh My Pi (or another writer) holds the session's lock; nothing was written`);
  await appendIfUnchanged(file, snap, `${JSON.stringify(record)}\n`);
  await after?.(bytes, record);
  const st = await stat(file, { bigint: true }).catch(() => null);
  if (st) ownLastWrite.set(file, { size: Number(st.size), mtimeNs: st.mtimeNs });
  return { file, record, written: true };
}

/**
 * A name as pi keeps it: trimmed (pi's `appendSessionInfo`), with control characters and line breaks as spaces (a
 * name is one line in every picker), at most 500 characters. An empty name clears the session's name (pi's
 * `getSessionName` reads an empty one as none).
 */
export function cleanName(name: string): string {
  return name
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")
    .trim()
    .slice(0, 500)
    .trim();
}

/** A label as pi's `/tree` takes it: tabs and line breaks as spaces, trimmed; empty removes the label. */
export function cleanLabel(label: string): string | undefined {
  const clean = label
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")
    .trim()
    .slice(0, 200)
    .trim();
  return clean || undefined;
}

/**
 * Name a session as its agent does. pi: a `session_info` entry ("" clears the name). Oh My Pi: what
 * `setSessionName(name, "user")` writes, a `title_change` record, then the title slot rewritten in place (ompTitle.ts).
 */
export function renameSession(file: string, name: string, o: AppendOptions = {}): Promise<Appended> {
  let slot: Buffer | null = null;
  const fields: RecordFields = (session, bytes) => {
    if (session.flavor !== "omp") return { type: "session_info", name: cleanName(name) };
    const title = cleanOmpTitle(name);
    if (!title) throw new ManageRefused(file, "Oh My Pi cannot clear a name once set; nothing was written");
    slot = titleSlotBytes(bytes);
    if (!slot)
      throw new ManageRefused(
        file,
        "this Oh My Pi session has no title slot (written before OMP 18), and OMP renames such a file by rewriting " +
          "it, which Pi Session Explorer never does; rename it in omp; nothing was written",
      );
    return { type: "title_change", title, source: "user", ...(session.name ? { previousTitle: session.name } : {}) };
  };
  const writeSlot: AfterAppend = async (_bytes, record) => {
    if (!slot) return;
    const next = userTitleSlot(String(record.title), String(record.timestamp));
    try {
      await overwriteHeadIfUnchanged(file, slot, next);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new ManageRefused(file, `the title record was appended, but the title slot was not updated (${why})`);
    }
  };
  return appendAgentEntry(file, "rename", fields, o, writeSlot);
}

/** Append a `label` entry on `targetId` (no text: the label is removed), as pi's `appendLabelChange`. */
export function labelEntry(file: string, targetId: string, label: string | undefined, o: AppendOptions = {}) {
  const clean = label === undefined ? undefined : cleanLabel(label);
  return appendAgentEntry(
    file,
    "label",
    (session) => {
      const target: Entry | undefined = session.byId.get(targetId);
      if (!target)
        throw new ManageRefused(file, `no entry ${JSON.stringify(targetId)} in the session; nothing was written`);
      // pi writes `label: undefined`, which JSON leaves out: a removal has no label field.
      return { type: "label", targetId, ...(clean === undefined ? {} : { label: clean }) };
    },
    o,
  );
}
