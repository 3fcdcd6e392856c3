/**
 * The summary of a long session made as its entries stream past (`ParseOptions.onEntry`), without the session's tree:
 * the same summary as `summarize(parse(file))` (test/node/store/leanSummary.test.ts compares them on every fixture
 * and on generated and mutated files), packed as the cache and the worker threads carry it (core/summaryPack.ts), in
 * memory bounded by the entry count, not the bytes. Per entry it keeps the id, its parent's position, the time, the
 * line and a few flags in arrays of numbers; per usage record a row of numbers; per file touch one row. The tree's
 * questions (shadowed ids, orphans, cycles, branch points, the active path, the model at the leaf) are answered once,
 * at the end, from those arrays, by the rules of core/session/treeIndex.ts and queries.ts.
 */
import type { Diagnostic } from "./diagnostics.js";
import type { UsageFacts } from "./facts.js";
import { messageText } from "./entryText.js";
import {
  detectFlavor,
  type Entry,
  forkOfHeader,
  isOmpEntry,
  resolveName,
  splitModel,
  type StreamedFile,
} from "./session/index.js";
import type { SessionHeader } from "./schema.js";
import { entryStatsOf, type PackedDetail, type PackedSummary, type PackedTouches } from "./summaryPack.js";
import { truncate } from "../protocol/format.js";

const MAX_DIAGNOSTICS = 50;

/** Entry flags. */
const SHADOWED = 1;
const METADATA = 2;
const COMPACTION = 4;

/** A parent's position: none (a root), the entry itself, or an id not seen yet (looked up at the end). */
const NO_PARENT = -1;
const SELF_PARENT = -3;
const LATER_PARENT = -4;

/** A usage row while streaming: entry position, time, key, then the token buckets and the cost. */
const ROW = 9;

type ModelNote =
  | { kind: "change"; model: string; role: string }
  | { kind: "change"; model: undefined; provider: unknown; modelId: unknown };

export class LeanSummarizer {
  private readonly ids: string[] = [];
  /** The parent's position when it was seen before (any of its entries; the latest is looked up at the end). */
  private readonly parents: number[] = [];
  /** The parent ids not seen yet when their child was read. */
  private readonly laterParents = new Map<number, string>();
  private readonly times: number[] = [];
  private readonly lines: number[] = [];
  private readonly flags: number[] = [];
  /** Per entry: -1, or the index of its assistant model in `models`. */
  private readonly modelOf: number[] = [];
  private readonly models: { provider: unknown; model: unknown }[] = [];
  private readonly modelKeys = new Map<string, number>();
  private readonly changes = new Map<number, ModelNote>();
  /** The latest entry of each id (pi's Map: a later duplicate wins). */
  private readonly latest = new Map<string, number>();
  private readonly duplicates: Diagnostic[] = [];
  private readonly usageRows: number[] = [];
  private readonly usageKeys: [string, string, string][] = [];
  private readonly usageKeyIndex = new Map<string, number>();
  private readonly touchRows: (string | number)[] = [];
  private readonly labels = new Map<string, string>();
  private readonly titleChanges: { title: string; source: string | undefined }[] = [];
  private sessionInfoName: string | null | undefined = undefined;
  private ompEntry = false;
  private subagent = false;
  private nameTime: number | null = null;
  private firstPrompt: string | null = null;
  private laterPrompt: string | null = null;
  private lastPrompt: string | null = null;
  /** An id holds a newline: the packed form (ids joined by newlines) cannot carry it. */
  private unpackable = false;
  /** The header's time and whether it is a fork, from the header the first entry comes with. */
  private created = Number.NaN;
  private fork = false;

  /** `touches`: keep the file touches (a listing's summary; a usage report's leaves them). */
  constructor(private readonly options: { touches: boolean }) {}

  /** One entry, in file order, and the file's header (`ParseOptions.onEntry`). */
  readonly add = (e: Entry, header: SessionHeader): void => {
    const at = this.ids.length;
    if (!at) {
      this.created = Date.parse(String(header.timestamp));
      this.fork = forkOfHeader(header) !== null;
    }
    const time = e.timestamp ? Date.parse(e.timestamp) : Number.NaN;
    if (e.id.includes("\n")) this.unpackable = true;
    this.ids.push(e.id);
    this.parents.push(this.parentOf(e, at));
    this.times.push(time);
    this.lines.push(e.line);
    const metadata = e.type === "session_info" || e.type === "label" ? METADATA : 0;
    this.flags.push(metadata | (e.type === "compaction" ? COMPACTION : 0));
    const previous = this.latest.get(e.id);
    if (previous !== undefined) {
      this.flags[previous]! |= SHADOWED;
      this.duplicates.push({
        line: e.line,
        severity: "warning",
        code: "duplicate-id",
        message: `id ${JSON.stringify(e.id)} is already used on line ${this.lines[previous]}; the later entry wins`,
      });
    }
    this.latest.set(e.id, at);
    if (!this.ompEntry && isOmpEntry(e)) this.ompEntry = true;
    if (e.type === "session_init") this.subagent = true;
    this.noteModel(e);
    this.noteMetadata(e, time);
    if (e.role === "user") this.notePrompt(e, time);
    if (e.usage) for (const u of Array.isArray(e.usage) ? e.usage : [e.usage]) this.noteUsage(at, time, u);
    if (this.options.touches && e.touches)
      for (const t of e.touches) this.touchRows.push(at, t.index, t.toolCallId, t.tool, t.kind, t.path);
  };

  private parentOf(e: Entry, at: number): number {
    if (e.parentId === null) return NO_PARENT;
    if (e.parentId === e.id) return SELF_PARENT;
    // Most entries follow the one before them.
    if (at && this.ids[at - 1] === e.parentId) return at - 1;
    const seen = this.latest.get(e.parentId);
    if (seen !== undefined) return seen;
    this.laterParents.set(at, e.parentId);
    return LATER_PARENT;
  }

  private noteUsage(at: number, time: number, u: UsageFacts): void {
    const key = JSON.stringify([u.provider, u.model, u.source]);
    let k = this.usageKeyIndex.get(key);
    if (k === undefined) this.usageKeyIndex.set(key, (k = this.usageKeys.push([u.provider, u.model, u.source]) - 1));
    this.usageRows.push(at, time, k, u.input, u.output, u.cacheRead, u.cacheWrite, u.totalTokens, u.cost);
  }

  private noteModel(e: Entry): void {
    if (e.type === "model_change") {
      const d = e.data;
      this.changes.set(
        this.ids.length - 1,
        typeof d.model === "string"
          ? { kind: "change", model: d.model, role: typeof d.role === "string" ? d.role : "default" }
          : { kind: "change", model: undefined, provider: d.provider, modelId: d.modelId },
      );
      this.modelOf.push(-1);
    } else if (e.type === "message" && e.role === "assistant") {
      const key = `${typeof e.provider}:${String(e.provider)}\u0000${typeof e.model}:${String(e.model)}`;
      let k = this.modelKeys.get(key);
      if (k === undefined)
        this.modelKeys.set(key, (k = this.models.push({ provider: e.provider, model: e.model }) - 1));
      this.modelOf.push(k);
    } else this.modelOf.push(-1);
  }

  /** Labels, names and titles, as the tree's index notes them (treeIndex.ts `noteMetadata`). */
  private noteMetadata(e: Entry, time: number): void {
    if (e.type === "label") {
      const d = e.data;
      if (typeof d.targetId !== "string") return;
      if (typeof d.label === "string" && d.label) this.labels.set(d.targetId, d.label);
      else this.labels.delete(d.targetId);
    } else if (e.type === "session_info") {
      const d = e.data;
      this.sessionInfoName = typeof d.name === "string" && d.name.trim() ? d.name.trim() : null;
      this.nameTime = Number.isFinite(time) ? time : null;
    } else if (e.type === "title_change") {
      const d = e.data;
      if (typeof d.title === "string")
        this.titleChanges.push({ title: d.title, source: typeof d.source === "string" ? d.source : undefined });
    }
  }

  /** The prompts a listing names a session by (summaryFacts.ts): the first; for a fork, its first own and its last. */
  private notePrompt(e: Entry, time: number): void {
    if ((this.firstPrompt !== null && !this.fork) || !e.message) return;
    const text = messageText(e.message);
    if (!text.trim()) return;
    const cut = truncate(text, 200);
    this.firstPrompt ??= cut;
    if (!this.fork) return;
    this.lastPrompt = cut;
    if (this.laterPrompt === null && Number.isFinite(this.created) && !(time <= this.created)) this.laterPrompt = cut;
  }

  /**
   * The summary, packed, from the streamed file's header and everything added; null when it cannot be packed (an id
   * holding a newline: summarize that file from its tree).
   */
  finish(file: StreamedFile): PackedSummary | null {
    if (this.unpackable) return null;
    const n = this.ids.length;
    const parent = this.resolveParents();
    const tree = this.tree(parent);
    const active = this.activePath(parent);
    const flavor = detectFlavor(file.header, file.titleSlot, this.ompEntry);
    const { name } = resolveName(flavor, file.header, file.titleSlot, this.titleChanges, this.sessionInfoName);
    const forkOf = forkOfHeader(file.header);
    // The packed details index the entries that are not shadowed.
    const position = new Int32Array(n);
    const ids: string[] = [];
    const times: (number | null)[] = [];
    let lastActiveAt = Number.NaN;
    let compactions = 0;
    for (let i = 0; i < n; i++) {
      const f = this.flags[i]!;
      if (f & SHADOWED) continue;
      position[i] = ids.push(this.ids[i]!) - 1;
      const t = this.times[i]!;
      times.push(Number.isFinite(t) ? t : null);
      if (f & COMPACTION) compactions++;
      if (!(f & METADATA) && Number.isFinite(t) && !(t <= lastActiveAt)) lastActiveAt = t;
    }
    const { usage, cost } = this.packedUsage(position, active);
    const touches = this.packedTouches(position, active);
    const detail: PackedDetail = { ids: ids.join("\n"), times, keys: this.usageKeys, usage };
    const summary: PackedSummary = {
      ok: true,
      id: file.header.id,
      flavor,
      version: file.version,
      cwd: typeof file.header.cwd === "string" ? file.header.cwd : null,
      name,
      firstPrompt: this.firstPrompt,
      laterPrompt: forkOf ? this.laterPrompt : null,
      lastPrompt: forkOf ? this.lastPrompt : null,
      nameTime: name && flavor === "pi" ? this.nameTime : null,
      created: Date.parse(String(file.header.timestamp)),
      parentSession: forkOf ? { raw: forkOf.raw, kind: forkOf.kind } : null,
      subagent: this.subagent,
      leafId: n ? this.ids[n - 1]! : null,
      model: this.modelAtLeaf(active, flavor),
      lastActiveAt,
      metadataTail: n > 0 && (this.flags[n - 1]! & METADATA) !== 0,
      branchPoints: tree.branchPoints,
      compactions,
      labels: [...this.labels],
      cost,
      diagnostics: [...file.diagnostics, ...this.duplicates, ...tree.diagnostics]
        .sort((a, b) => a.line - b.line)
        .slice(0, MAX_DIAGNOSTICS),
      truncatedTail: file.truncatedTail,
      packed: 2,
      stats: entryStatsOf(times),
      detail,
    };
    if (touches.length) summary.touchDetail = JSON.stringify(touches);
    return summary;
  }

  /**
   * What the search index needs of a streamed session (node/search/indexStream.ts): the ids on the active path, the
   * lines of the entries a later one shadowed (their units are not indexed), and the leaf.
   */
  indexFacts(): { active: string[]; shadowedLines: number[]; leafId: string | null } {
    const n = this.ids.length;
    const onPath = this.activePath(this.resolveParents());
    const active: string[] = [];
    const shadowedLines: number[] = [];
    for (let i = 0; i < n; i++) {
      if (onPath[i]) active.push(this.ids[i]!);
      if (this.flags[i]! & SHADOWED) shadowedLines.push(this.lines[i]!);
    }
    return { active, shadowedLines, leafId: n ? this.ids[n - 1]! : null };
  }

  /** The usage rows of the entries that are not shadowed, packed (core/summaryPack.ts), and their cost. */
  private packedUsage(position: Int32Array, active: Uint8Array): { usage: (number | null)[]; cost: number } {
    const rows = this.usageRows;
    const usage: (number | null)[] = [];
    let cost = 0;
    for (let r = 0; r < rows.length; r += ROW) {
      const at = rows[r]!;
      if (this.flags[at]! & SHADOWED) continue;
      const time = rows[r + 1]!;
      usage.push(position[at]!, Number.isFinite(time) ? time : null);
      for (let k = 2; k < ROW; k++) usage.push(rows[r + k]!);
      usage.push(active[at]!);
      cost += rows[r + 8]!;
    }
    return { usage, cost };
  }

  private packedTouches(position: Int32Array, active: Uint8Array): PackedTouches {
    const rows = this.touchRows;
    const out: PackedTouches = [];
    for (let r = 0; r < rows.length; r += 6) {
      const at = rows[r] as number;
      if (this.flags[at]! & SHADOWED) continue;
      out.push(position[at]!, rows[r + 1]!, rows[r + 2]!, rows[r + 3]!, rows[r + 4]!, rows[r + 5]!, active[at]!);
    }
    return out;
  }

  /**
   * Each entry's parent as the tree has it: the latest entry of its parent's id (-1 a root, -2 a parent not in the
   * file, -3 the entry itself). Shadowed entries are no nodes of the tree: theirs is left unset.
   */
  private resolveParents(): Int32Array {
    const n = this.ids.length;
    const parent = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      if (this.flags[i]! & SHADOWED) continue;
      const raw = this.parents[i]!;
      if (raw === NO_PARENT || raw === SELF_PARENT) parent[i] = raw;
      else {
        const id = raw === LATER_PARENT ? this.laterParents.get(i)! : this.ids[raw]!;
        parent[i] = this.latest.get(id) ?? -2;
      }
    }
    return parent;
  }

  /** The tree's findings: orphans and self-parents, cycles, branch points (treeIndex.ts `buildIndex`). */
  private tree(parent: Int32Array): { branchPoints: number; diagnostics: Diagnostic[] } {
    const n = this.ids.length;
    const diagnostics: Diagnostic[] = [];
    const childCount = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      if (this.flags[i]! & SHADOWED) continue;
      const p = parent[i]!;
      if (p === SELF_PARENT)
        diagnostics.push({
          line: this.lines[i]!,
          severity: "warning",
          code: "self-parent",
          message: "entry is its own parent; shown as a root",
        });
      else if (p === -2) {
        const raw = this.parents[i]!;
        const id = raw === LATER_PARENT ? this.laterParents.get(i)! : this.ids[raw]!;
        diagnostics.push({
          line: this.lines[i]!,
          severity: "warning",
          code: "orphan",
          message: `parent ${JSON.stringify(id)} is not in the file; shown as a root`,
        });
      } else if (p >= 0) childCount[p]!++;
    }
    let branchPoints = 0;
    for (let i = 0; i < n; i++) if (childCount[i]! > 1) branchPoints++;
    const state = reachability(parent, this.flags);
    for (let i = 0; i < n; i++)
      if (!(this.flags[i]! & SHADOWED) && state[i] === 2)
        diagnostics.push({
          line: this.lines[i]!,
          severity: "warning",
          code: "parent-cycle",
          message: "entry is inside a parentId cycle and reachable from no root",
        });
    return { branchPoints, diagnostics };
  }

  /** 1 for each entry on the path from the root to the leaf (pathTo: stops at a missing parent or a repeated id). */
  private activePath(parent: Int32Array): Uint8Array {
    const n = this.ids.length;
    const on = new Uint8Array(n);
    if (!n) return on;
    for (let at = this.latest.get(this.ids[n - 1]!)!; at >= 0 && !on[at]; at = parent[at]!) on[at] = 1;
    return on;
  }

  /** `provider/model` at the leaf, as `settingsAt` finds it on the active path (root first). */
  private modelAtLeaf(active: Uint8Array, flavor: "pi" | "omp"): string | null {
    let model: { provider: unknown; modelId: unknown } | null = null;
    let explicitDefault = false;
    for (let i = 0; i < active.length; i++) {
      if (!active[i]) continue;
      const change = this.changes.get(i);
      if (change) {
        if (change.model !== undefined) {
          if (change.role === "default") {
            explicitDefault = true;
            model = splitModel(change.model);
          }
        } else model = { provider: change.provider, modelId: change.modelId };
      } else if (this.modelOf[i]! >= 0 && !(flavor === "omp" && explicitDefault)) {
        const m = this.models[this.modelOf[i]!]!;
        model = { provider: m.provider, modelId: m.model };
      }
    }
    return model ? `${String(model.provider)}/${String(model.modelId)}` : null;
  }
}

/**
 * Whether each entry is reached from a root: its parent chain ends at a root (1), or runs into a cycle (2). Each
 * entry is walked once (an explicit list, no recursion); shadowed entries are skipped.
 */
function reachability(parent: Int32Array, flags: number[]): Uint8Array {
  const n = parent.length;
  const state = new Uint8Array(n);
  const chain: number[] = [];
  for (let i = 0; i < n; i++) {
    if (flags[i]! & SHADOWED || state[i]) continue;
    let at = i;
    let outcome = 0;
    while (outcome === 0) {
      if (state[at] === 1 || state[at] === 2) outcome = state[at]!;
      else if (state[at] === 3)
        outcome = 2; // met itself: a cycle
      else if (parent[at]! < 0) {
        state[at] = 1;
        outcome = 1;
      } else {
        state[at] = 3;
        chain.push(at);
        at = parent[at]!;
      }
    }
    for (const c of chain) state[c] = outcome;
    chain.length = 0;
  }
  return state;
}
