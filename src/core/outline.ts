/**
 * The explorer's view of one session tree, grouped the way pi's `/tree` shows it: a linear run reads as turns
 * (a user prompt with the assistant replies and tool calls folded under it), a branch point lists its branches
 * with the active one first, and filters hide entries the way pi's filter modes do (descendants of a hidden entry
 * attach to its nearest visible ancestor).
 *
 * Only one level is built per call: expanding a branch of a 20,000-entry session walks that branch's chain and
 * nothing else. Pure: used by the VS Code tree and testable in plain Node.
 */
import type { CompactionInfo, Entry, Session } from "./session/index.js";
import { compactionMethod, isTimelineEntry } from "./compact/blackmagic.js";
import { OMP_ENTRY_TYPES } from "./schema.js";
import { pathTo } from "./session/index.js";

export const FILTER_MODES = ["default", "no-tools", "user-only", "labeled-only", "all"] as const;
export type FilterMode = (typeof FILTER_MODES)[number];

export function isFilterMode(value: unknown): value is FilterMode {
  return typeof value === "string" && (FILTER_MODES as readonly string[]).includes(value);
}

/**
 * Settings and bookkeeping entries, hidden by pi's default filter: pi's list, plus every OMP-only entry type except
 * `reset_boundary` (a /clear, which changes what the model sees).
 */
const BOOKKEEPING = new Set<string>([
  "label",
  "custom",
  "model_change",
  "thinking_level_change",
  "session_info",
  // pi 1.6: a call outside the conversation, and an edit of what another entry puts in context (pi's /tree hides both)
  "usage",
  "context_edit",
  ...OMP_ENTRY_TYPES.filter((t) => t !== "reset_boundary"),
]);

/** Entries that start their own row at the segment level; everything else folds under the preceding user turn. */
const STANDALONE = new Set(["compaction", "branch_summary", "reset_boundary"]);

const TOOL_ROLES = new Set(["toolResult", "bashExecution", "pythonExecution"]);

export interface OutlineItem {
  /** `turn`: a user prompt with folded entries; `entry`: a row of its own; `branch`: one branch of a branch point. */
  kind: "turn" | "entry" | "branch";
  /** The entry the row stands for; for a branch, its first visible entry. */
  id: string;
  /** On the active path (for a branch: it contains the active leaf). */
  active: boolean;
  /** turn: the visible entries folded under the prompt, in order. */
  folded?: string[];
  /** branch: position among its siblings (1-based, active first) and how many there are. */
  index?: number;
  of?: number;
  /** branch: entries in the branch's subtree (unfiltered). */
  size?: number;
}

/** Precomputed per session and filter: which entries are visible and which are on the active path. */
/** What a compaction row of the tree shows (`SessionOutline.compactionFacts`). */
export interface CompactionFacts {
  info: CompactionInfo | null;
  /** The entry the compaction keeps from, when it is on the compaction's path. */
  kept: Entry | null;
  method: string | null;
}

export class SessionOutline {
  readonly activePath: Set<string>;
  /** The row that carries the active-leaf marker: the leaf, or its nearest visible ancestor when the filter
   * hides it. */
  readonly visibleLeafId: string | null;
  private readonly subtreeSizes = new Map<string, number>();
  private readonly compactionFactsById = new Map<string, CompactionFacts>();

  constructor(
    readonly session: Session,
    readonly filter: FilterMode,
  ) {
    this.activePath = new Set(pathTo(session, session.leafId).map((e) => e.id));
    this.visibleLeafId = session.leafId === null ? null : this.nearestVisible(session.leafId);
  }

  /**
   * What a compaction row shows: its record (tokens, kept range), the entry it keeps from, and how it was made
   * ("server · OpenAI", "local fallback (remote_error)"; null for a harness's own). Computed once per outline.
   */
  compactionFacts(entry: Entry): CompactionFacts {
    let facts = this.compactionFactsById.get(entry.id);
    if (!facts) {
      const info = this.session.compactions.find((c) => c.id === entry.id) ?? null;
      const kept = info?.keptFromId ? (this.session.byId.get(info.keptFromId) ?? null) : null;
      facts = { info, kept, method: compactionMethod(entry.data.details) };
      this.compactionFactsById.set(entry.id, facts);
    }
    return facts;
  }

  isVisible(entry: Entry): boolean {
    const s = this.session;
    // Blackmagic's timeline entry is part of its compaction (shown there), never a row of its own.
    if (entry.type === "custom" && isTimelineEntry(entry)) return false;
    switch (this.filter) {
      case "all":
        return true;
      case "user-only":
        return entry.role === "user";
      case "labeled-only":
        return s.labels.has(entry.id);
      case "no-tools":
        if (BOOKKEEPING.has(entry.type)) return false;
        if (entry.role !== undefined && TOOL_ROLES.has(entry.role)) return false;
        return !(entry.role === "assistant" && isToolCallOnly(entry));
      default:
        return !BOOKKEEPING.has(entry.type);
    }
  }

  /** Visible children of an entry (or the visible roots for null): hidden entries are looked through. */
  visibleChildren(id: string | null): string[] {
    const s = this.session;
    const direct = id === null ? s.roots : (s.children.get(id) ?? []);
    const out: string[] = [];
    // Depth-first, in order, without recursion (hidden chains can be thousands of entries long).
    const stack = [...direct].reverse();
    const seen = new Set<string>();
    while (stack.length) {
      const next = stack.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      const entry = s.byId.get(next);
      if (!entry) continue;
      if (this.isVisible(entry)) out.push(next);
      else {
        const kids = s.children.get(next);
        if (kids) for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
      }
    }
    // Like pi: the branch that holds the active leaf comes first; otherwise the timestamp order stays.
    const active = out.filter((c) => this.activePath.has(c));
    return active.length ? [...active, ...out.filter((c) => !this.activePath.has(c))] : out;
  }

  /** The rows of a level: the session's top level (null), or the inside of a branch starting at `startId`. */
  items(startId: string | null): OutlineItem[] {
    const starts = startId === null ? this.visibleChildren(null) : [startId];
    if (starts.length !== 1) return this.branches(starts);
    const chain: string[] = [];
    let current = starts[0]!;
    let kids: string[];
    const guard = new Set<string>();
    for (;;) {
      chain.push(current);
      guard.add(current);
      kids = this.visibleChildren(current);
      if (kids.length !== 1 || guard.has(kids[0]!)) break;
      current = kids[0]!;
    }
    const rows = this.group(chain);
    if (kids.length > 1) rows.push(...this.branches(kids));
    return rows;
  }

  private group(chain: string[]): OutlineItem[] {
    const s = this.session;
    const rows: OutlineItem[] = [];
    let turn: OutlineItem | null = null;
    for (const id of chain) {
      const entry = s.byId.get(id)!;
      const active = this.activePath.has(id);
      if (entry.role === "user") {
        turn = { kind: "turn", id, active, folded: [] };
        rows.push(turn);
      } else if (STANDALONE.has(entry.type) || !turn) {
        turn = null;
        rows.push({ kind: "entry", id, active });
      } else {
        turn.folded!.push(id);
      }
    }
    return rows;
  }

  private branches(starts: string[]): OutlineItem[] {
    return starts.map((id, i) => ({
      kind: "branch",
      id,
      active: this.activePath.has(id),
      index: i + 1,
      of: starts.length,
      size: this.subtreeSize(id),
    }));
  }

  /** The entry itself when visible, else its nearest visible ancestor (null when none is). */
  nearestVisible(id: string): string | null {
    const seen = new Set<string>();
    for (
      let e = this.session.byId.get(id);
      e && !seen.has(e.id);
      e = e.parentId === null ? undefined : this.session.byId.get(e.parentId)
    ) {
      if (this.isVisible(e)) return e.id;
      seen.add(e.id);
    }
    return null;
  }

  /** Entries in the subtree of `id`, itself included (unfiltered). */
  subtreeSize(id: string): number {
    const cached = this.subtreeSizes.get(id);
    if (cached !== undefined) return cached;
    let n = 0;
    const stack = [id];
    const seen = new Set<string>();
    while (stack.length) {
      const next = stack.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      n++;
      const kids = this.session.children.get(next);
      if (kids) stack.push(...kids);
    }
    this.subtreeSizes.set(id, n);
    return n;
  }
}

/** An assistant message with tool calls and no text, which is not an error or abort (pi hides these). */
function isToolCallOnly(entry: Entry): boolean {
  const m = entry.message;
  if (!m) return false;
  if (m.record.stopReason === "error" || m.record.stopReason === "aborted") return false;
  const content = m.content;
  if (!Array.isArray(content)) return typeof content !== "string" || !content.trim();
  return !m.blocks.some((b) => b.type === "text" && b.text.trim() !== "");
}
