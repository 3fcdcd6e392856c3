/**
 * A session file reduced to what listings, lineage and usage need. Plain JSON, so the store can keep it in its
 * persistent cache and never re-read an unchanged file.
 */
import { activityOf, firstPromptOf, laterPromptOf, lastPromptOf, nameTimeOf } from "./summaryFacts.js";
import type { Diagnostic, Rejection } from "./diagnostics.js";
import { scanEnvelope } from "./envelope.js";
import { decodeUtf8, parseLine } from "./jsonl.js";
import {
  type Entry,
  isPlainObject,
  type ParseResult,
  pathTo,
  type Session,
  SessionReader,
  settingsAt,
  splitModel,
} from "./session/index.js";
import type { ToolTouch } from "./toolFiles.js";
import { type UsageRecord, usageRecords } from "./usage.js";

/** A tool call that named a file, where it is in the session (the file history's raw material). */
export interface TouchRecord extends ToolTouch {
  entryId: string;
  /** Entry timestamp in ms (NaN when the entry has none). */
  time: number;
  /** On the active path (what the agent resumes). */
  active: boolean;
}

/** The file touches of `entries`, in file order (shadowed entries left out, as for usage). */
function touchRecords(entries: readonly Entry[], isActive: (id: string) => boolean): TouchRecord[] {
  const out: TouchRecord[] = [];
  for (const e of entries) {
    if (e.shadowed || !e.touches) continue;
    const time = e.timestamp ? Date.parse(e.timestamp) : Number.NaN;
    const active = isActive(e.id);
    // Properties copied one by one (an object spread is many times slower).
    for (const t of e.touches)
      out.push({
        index: t.index,
        toolCallId: t.toolCallId,
        tool: t.tool,
        kind: t.kind,
        path: t.path,
        entryId: e.id,
        time,
        active,
      });
  }
  return out;
}

export interface SessionSummaryOk {
  ok: true;
  id: string;
  flavor: "pi" | "omp";
  version: number;
  cwd: string | null;
  name: string | null;
  firstPrompt: string | null;
  /**
   * A fork's first user prompt with text written after its header (entry time later than `created`): its first own
   * prompt, since the copies of its parent's entries keep their earlier times (docs/session-format.md#forks). Null for
   * a session that is no fork (its title is `firstPrompt`). A first-paint (`partial`) summary has it only when the
   * file's head holds it.
   */
  laterPrompt: string | null;
  /**
   * When the name was set, in ms: the time of pi's last `session_info` entry (so a fork's name of its own is told
   * from the one it copied). Null when unknown (no name; Oh My Pi, whose title slot is rewritten in place).
   */
  nameTime: number | null;
  /** A fork's last user prompt with text (with no prompt of its own: the last one it copied); null for no fork. */
  lastPrompt: string | null;
  /** Header timestamp in ms (the fork moment for forks). */
  created: number;
  parentSession: { raw: string; kind: "path" | "id" } | null;
  /** OMP subagent session (has a `session_init` entry). */
  subagent: boolean;
  leafId: string | null;
  model: string | null;
  /** [entry id, entry time in ms] in file order. */
  entries: [string, number][];
  /**
   * The newest time of an entry that is activity (a message, a tool run, a compaction), not a name or a label written
   * afterwards: what "last active" means (NaN when none has a time).
   */
  lastActiveAt: number;
  /** Whether the file's last entry is a name or a label: then its write was no agent at work (`lastWritten`). */
  metadataTail: boolean;
  branchPoints: number;
  compactions: number;
  /** [entry id, label] of the labeled entries. */
  labels: [string, string][];
  usage: UsageRecord[];
  /** The tool calls that read or changed a file (core/toolFiles.ts), in file order. */
  touches: TouchRecord[];
  /** The sum of `usage` costs (every branch; fork ownership not applied): listings need no usage records for it. */
  cost: number;
  diagnostics: Diagnostic[];
  /** True when the last line is incomplete (mid-write or crash). */
  truncatedTail: boolean;
  /** A first-paint summary from the file's head and tail only: no entries, usage or counts yet. */
  partial?: true;
}

export interface SessionSummaryRejected {
  ok: false;
  rejection: Rejection;
  diagnostics: Diagnostic[];
}

export type SessionSummary = SessionSummaryOk | SessionSummaryRejected;

const MAX_DIAGNOSTICS = 50;

/** What `summarize` and `extendSummary` both take from the whole session as it is now. */
function perSession(s: Session, usage: UsageRecord[]) {
  let cost = 0;
  for (const r of usage) cost += r.cost;
  return {
    compactions: s.compactions.length,
    labels: [...s.labels].map(([id, l]): [string, string] => [id, l.label]),
    usage,
    cost,
    diagnostics: s.diagnostics.slice(0, MAX_DIAGNOSTICS),
    truncatedTail: s.truncatedTail,
  };
}

/** `provider/model` at the session's leaf, or null. */
function modelAt(s: Session): string | null {
  const { model } = settingsAt(s);
  return model ? `${model.provider}/${model.modelId}` : null;
}

/** What names and places a session in a listing: everything a first-paint (`partial`) summary has. */
type NamingFacts = Omit<
  SessionSummaryOk,
  | "entries"
  | "lastActiveAt"
  | "metadataTail"
  | "branchPoints"
  | "touches"
  | "compactions"
  | "labels"
  | "usage"
  | "cost"
  | "diagnostics"
  | "truncatedTail"
  | "partial"
>;

function namingFacts(s: Session): NamingFacts {
  const created = Date.parse(String(s.header.timestamp));
  return {
    ok: true,
    id: s.header.id,
    flavor: s.flavor,
    version: s.version,
    cwd: typeof s.header.cwd === "string" ? s.header.cwd : null,
    name: s.name,
    firstPrompt: firstPromptOf(s.entries),
    // Only a fork is named by these (the listing stays small, and no other session reads a body for them).
    laterPrompt: s.forkOf ? laterPromptOf(s.entries, created) : null,
    lastPrompt: s.forkOf ? lastPromptOf(s.entries) : null,
    nameTime: s.name ? nameTimeOf(s.flavor, s.entries) : null,
    created,
    parentSession: s.forkOf ? { raw: s.forkOf.raw, kind: s.forkOf.kind } : null,
    subagent: s.entries.some((e) => e.type === "session_init"),
    leafId: s.leafId,
    model: modelAt(s),
  };
}

/**
 * The summary of a parsed session. `touches: false` leaves the file touches out (a usage report's reads, which are
 * never cached).
 */
export function summarize(result: ParseResult, options: { touches?: boolean } = {}): SessionSummary {
  if (!result.ok)
    return { ok: false, rejection: result.rejection, diagnostics: result.diagnostics.slice(0, MAX_DIAGNOSTICS) };
  const s = result.session;
  const usage = usageRecords(s);
  let active: Set<string> | undefined;
  const isActive = (id: string) => (active ??= new Set(pathTo(s, s.leafId).map((e) => e.id))).has(id);
  const touches = options.touches === false ? [] : touchRecords(s.entries, isActive);
  const entries = s.entries
    .filter((e) => !e.shadowed)
    .map((e): [string, number] => [e.id, e.timestamp ? Date.parse(e.timestamp) : Number.NaN]);
  const branchPoints = [...s.children.values()].filter((c) => c.length > 1).length;
  const activity = activityOf(s.entries, Number.NaN);
  return summaryOf(namingFacts(s), { entries, branchPoints, touches, ...activity }, perSession(s, usage));
}

/**
 * A summary from its parts, property by property in one order: object spreads of these cost about 20 µs a summary
 * (measured), more than the whole parse of a first-paint probe.
 */
function summaryOf(
  f: NamingFacts,
  tree: Pick<SessionSummaryOk, "entries" | "branchPoints" | "touches" | "lastActiveAt" | "metadataTail">,
  p: ReturnType<typeof perSession>,
  partial = false,
): SessionSummaryOk {
  const out: SessionSummaryOk = {
    ok: true,
    id: f.id,
    flavor: f.flavor,
    version: f.version,
    cwd: f.cwd,
    name: f.name,
    firstPrompt: f.firstPrompt,
    laterPrompt: f.laterPrompt,
    lastPrompt: f.lastPrompt,
    nameTime: f.nameTime,
    created: f.created,
    parentSession: f.parentSession,
    subagent: f.subagent,
    leafId: f.leafId,
    model: f.model,
    entries: tree.entries,
    lastActiveAt: tree.lastActiveAt,
    metadataTail: tree.metadataTail,
    branchPoints: tree.branchPoints,
    touches: tree.touches,
    compactions: p.compactions,
    labels: p.labels,
    usage: p.usage,
    cost: p.cost,
    diagnostics: p.diagnostics,
    truncatedTail: p.truncatedTail,
  };
  if (partial) out.partial = true;
  return out;
}

/**
 * The summary after entries were appended to a session already summarized as `prev` (a live session's update):
 * only the new entries are looked at, plus one walk of the active path. Falls back to `summarize` when the append
 * was not a plain one (a reused id, a different session).
 */
export function extendSummary(prev: SessionSummary, result: ParseResult): SessionSummary {
  if (!prev.ok || !result.ok) return summarize(result);
  const s = result.session;
  const known = prev.entries.length;
  const all = s.entries;
  if (
    s.header.id !== prev.id ||
    s.byId.size !== all.length ||
    all.length < known ||
    all[known - 1]?.id !== prev.entries[known - 1]?.[0]
  )
    return summarize(result);
  const added = all.slice(known);
  const entries = prev.entries.concat(
    added.map((e) => [e.id, e.timestamp ? Date.parse(e.timestamp) : Number.NaN] as [string, number]),
  );
  // The usual append continues the active path: old flags stay, new entries are on it, the model changes only with a
  // model change. Otherwise the active path is walked once.
  const continues = added.every((e, i) => e.parentId === (i === 0 ? prev.leafId : added[i - 1]!.id));
  let usage: UsageRecord[];
  let touches: TouchRecord[];
  let model = prev.model;
  if (continues) {
    usage = prev.usage.concat(usageRecords({ ...s, entries: added }, () => true));
    touches = prev.touches.concat(touchRecords(added, () => true));
  } else {
    const active = new Set(pathTo(s, s.leafId).map((e) => e.id));
    const flip = <R extends { entryId: string; active: boolean }>(r: R): R =>
      r.active === active.has(r.entryId) ? r : { ...r, active: !r.active };
    usage = prev.usage.concat(usageRecords({ ...s, entries: added }, (id) => active.has(id))).map(flip);
    touches = prev.touches.concat(touchRecords(added, (id) => active.has(id))).map(flip);
  }
  const setsModel = (e: { type: string; role?: string }) =>
    e.type === "model_change" || (e.type === "message" && e.role === "assistant");
  if (!continues || (s.flavor === "omp" && added.some(setsModel))) {
    model = modelAt(s);
  } else {
    // pi: the model is the last model change or assistant message on the path.
    for (const e of added) {
      if (!setsModel(e)) continue;
      if (e.type !== "model_change") model = `${String(e.provider)}/${String(e.model)}`;
      else if (typeof e.data.model === "string") {
        const sp = splitModel(e.data.model);
        model = `${sp.provider}/${sp.modelId}`;
      } else model = `${String(e.data.provider)}/${String(e.data.modelId)}`;
    }
  }
  let branchPoints = prev.branchPoints;
  const addedIds = new Set(added.map((e) => e.id));
  for (const parent of new Set(added.map((e) => e.parentId).filter((p): p is string => p !== null))) {
    const kids = s.children.get(parent) ?? [];
    const before = kids.filter((k) => !addedIds.has(k)).length;
    if (before < 2 && kids.length >= 2) branchPoints++;
  }
  return {
    ...prev,
    name: s.name,
    firstPrompt: prev.firstPrompt ?? firstPromptOf(added),
    laterPrompt: prev.parentSession ? (prev.laterPrompt ?? laterPromptOf(added, prev.created)) : null,
    lastPrompt: prev.parentSession ? (lastPromptOf(added) ?? prev.lastPrompt) : null,
    nameTime: !s.name
      ? null
      : added.some((e) => e.type === "session_info")
        ? nameTimeOf(s.flavor, added)
        : prev.nameTime,
    subagent: prev.subagent || added.some((e) => e.type === "session_init"),
    leafId: s.leafId,
    model,
    entries,
    ...activityOf(added, prev.lastActiveAt),
    branchPoints,
    touches,
    ...perSession(s, usage),
  };
}

/**
 * A first-paint summary from a file's first and last bytes (the listing of a cold store reads a few KB per file):
 * header, title slot, first prompt, and from the tail the leaf, the model and a newer name. Null when the head does
 * not hold a complete header (the caller reads the file in full).
 */
export function probeSummary(file: string, head: Uint8Array, tail: Uint8Array, size: number): SessionSummaryOk | null {
  if (head.length >= size) return null;
  const cut = head.lastIndexOf(10);
  if (cut < 0) return null;
  // Long records (assistant messages, tool results) are checked and reduced to their envelope by the scan, not
  // parsed: a first paint reads no body but the first prompt's (read back from the head when asked for).
  const reader = new SessionReader(file, { validate: false, scan: true });
  reader.feedChunk(head.subarray(0, cut + 1));
  const r = reader.result(true);
  if (!r.ok) return null;
  // v1 ids are line numbers: only a full read knows them.
  if (r.session.version < 2) return null;
  // The head's facts, then the tail's answers over them.
  const facts = namingFacts(r.session);
  // The tail: complete lines only (the first one may be cut, and the last one when the agent is writing).
  const truncatedTail = tail[tail.length - 1] !== 10;
  let end = truncatedTail ? tail.lastIndexOf(10) : tail.length - 1;
  // From the end: the last entry is the leaf, the last model change or assistant message has the model, the last
  // session_info the name. Only lines that can answer a question still open are read.
  let needLeaf = true;
  let needModel = true;
  let needName = r.session.flavor === "pi";
  while (end > 0 && (needLeaf || needModel || needName)) {
    const start = tail.lastIndexOf(10, end - 1) + 1;
    if (start === 0 && tail.length < size) break; // the first line of the tail may be cut
    const v = tailRecord(tail, start, end, needLeaf, needModel, needName);
    end = start - 1;
    if (!v) continue;
    if (needLeaf) {
      facts.leafId = v.id as string;
      needLeaf = false;
    }
    if (needName && v.type === "session_info") {
      facts.name = typeof v.name === "string" && v.name.trim() ? v.name.trim() : null;
      needName = false;
    }
    if (needModel && v.type === "model_change" && typeof v.provider === "string" && typeof v.modelId === "string") {
      facts.model = `${v.provider}/${v.modelId}`;
      needModel = false;
    }
    if (
      needModel &&
      v.type === "message" &&
      isPlainObject(v.message) &&
      v.message.role === "assistant" &&
      typeof v.message.provider === "string" &&
      typeof v.message.model === "string"
    ) {
      facts.model = `${v.message.provider}/${v.message.model}`;
      needModel = false;
    }
  }
  const nothing = { compactions: 0, labels: [], usage: [], cost: 0, diagnostics: [], truncatedTail };
  const tree = { entries: [], branchPoints: 0, touches: [], lastActiveAt: Number.NaN, metadataTail: false };
  return summaryOf(facts, tree, nothing, true);
}

/** Tail lines longer than this are scanned first (their envelope answers for messages, the bulk of a tail). */
const SCAN_TAIL_LINE = 512;

/**
 * The record on tail bytes [start, end) when it can answer a question still open (the leaf: any entry; the model: a
 * model change or an assistant message; the name: a session_info), or null. A valid entry's envelope answers for a
 * message; anything else is parsed. A line that is no JSON object with a string id is no answer.
 */
function tailRecord(
  tail: Uint8Array,
  start: number,
  end: number,
  needLeaf: boolean,
  needModel: boolean,
  needName: boolean,
): Record<string, unknown> | null {
  let envelope: Record<string, unknown> | null = null;
  if (end - start > SCAN_TAIL_LINE) {
    envelope = scanEnvelope(tail, start, end);
    if (envelope && envelope.type === "message" && typeof envelope.id === "string") {
      return needLeaf || (needModel && isPlainObject(envelope.message) && envelope.message.role === "assistant")
        ? envelope
        : null;
    }
  }
  const line = decodeUtf8(tail.subarray(start, end));
  const modelLine = needModel && (line.includes('"model_change"') || line.includes('"assistant"'));
  const nameLine = needName && line.includes('"session_info"');
  if ((!needLeaf && !modelLine && !nameLine) || !line.trim()) return null;
  const p = parseLine(line);
  return p.ok && isPlainObject(p.value) && typeof p.value.id === "string" ? p.value : null;
}
