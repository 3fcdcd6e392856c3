/**
 * The summary of a long session made as its entries stream past (`ParseOptions.onEntry`), without the session's tree:
 * the same summary as `summarize(parse(file))` (test/node/store/leanSummary.test.ts compares them on every fixture
 * and on generated and mutated files), packed as the cache and the worker threads carry it (core/summaryPack.ts), in
 * memory bounded by the entry count, not the bytes. Per entry it keeps the id, its parent's position, the time, the
 * line and a few flags in typed columns (core/leanColumns.ts); per usage record a row of numbers; per file touch one
 * row. The details are written as JSON bytes (core/jsonBytes.ts), never held as arrays. The tree's
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
import type { EntryStats, PackedSummary, PackedTouches } from "./summaryPack.js";
import { Column, IdIndex } from "./leanColumns.js";
import { JsonBytes } from "./jsonBytes.js";
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
  /** The ids in order, and the latest entry of each id (pi's Map: a later duplicate wins). */
  private readonly index = new IdIndex();
  private readonly ids = this.index.ids;
  /** The parent's position when it was seen before (any of its entries; the latest is looked up at the end). */
  private readonly parents = new Column(Int32Array);
  /** The parent ids not seen yet when their child was read. */
  private readonly laterParents = new Map<number, string>();
  private readonly times = new Column(Float64Array);
  private readonly lines = new Column(Int32Array);
  private readonly flags = new Column(Uint8Array);
  /** Per entry: -1, or the index of its assistant model in `models`. */
  private readonly modelOf = new Column(Int32Array);
  private readonly models: { provider: unknown; model: unknown }[] = [];
  private readonly modelKeys = new Map<string, number>();
  private readonly changes = new Map<number, ModelNote>();
  private readonly duplicates: Diagnostic[] = [];
  private readonly usageRows = new Column(Float64Array);
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
    this.parents.push(this.parentOf(e, at));
    const previous = this.index.push(e.id);
    this.times.push(time);
    this.lines.push(e.line);
    const metadata = e.type === "session_info" || e.type === "label" ? METADATA : 0;
    this.flags.push(metadata | (e.type === "compaction" ? COMPACTION : 0));
    if (previous !== undefined) {
      this.flags.set(previous, this.flags.at(previous) | SHADOWED);
      this.duplicates.push({
        line: e.line,
        severity: "warning",
        code: "duplicate-id",
        message: `id ${JSON.stringify(e.id)} is already used on line ${this.lines.at(previous)}; the later entry wins`,
      });
    }
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
    const seen = this.index.latest(e.parentId);
    if (seen !== undefined) return seen;
    this.laterParents.set(at, e.parentId);
    return LATER_PARENT;
  }

  private noteUsage(at: number, time: number, u: UsageFacts): void {
    const key = JSON.stringify([u.provider, u.model, u.source]);
    let k = this.usageKeyIndex.get(key);
    if (k === undefined) this.usageKeyIndex.set(key, (k = this.usageKeys.push([u.provider, u.model, u.source]) - 1));
    for (const v of [at, time, k, u.input, u.output, u.cacheRead, u.cacheWrite, u.totalTokens, u.cost])
      this.usageRows.push(v);
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
    // The packed details (`PackedDetail` as JSON) index the entries that are not shadowed.
    const out = new JsonBytes();
    const position = new Int32Array(n);
    const { stats, compactions, lastActiveAt } = this.writeEntries(out, position);
    const cost = this.writeUsage(out, position, active);
    const touches = this.packedTouches(position, active);
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
      metadataTail: n > 0 && (this.flags.at(n - 1) & METADATA) !== 0,
      branchPoints: tree.branchPoints,
      compactions,
      labels: [...this.labels],
      cost,
      diagnostics: [...file.diagnostics, ...this.duplicates, ...tree.diagnostics]
        .sort((a, b) => a.line - b.line)
        .slice(0, MAX_DIAGNOSTICS),
      truncatedTail: file.truncatedTail,
      packed: 2,
      stats,
      detail: out.finish(),
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
      if (this.flags.at(i) & SHADOWED) shadowedLines.push(this.lines.at(i));
    }
    return { active, shadowedLines, leafId: n ? this.ids[n - 1]! : null };
  }

  /**
   * The details' ids and times of the entries that are not shadowed (setting `position` of each), and what a listing
   * reads of them without the details.
   */
  private writeEntries(
    out: JsonBytes,
    position: Int32Array,
  ): { stats: EntryStats; compactions: number; lastActiveAt: number } {
    let kept = 0;
    out.raw('{"ids":"');
    for (let i = 0; i < this.ids.length; i++) {
      if (this.flags.at(i) & SHADOWED) continue;
      if (kept) out.raw("\\n");
      out.stringBody(this.ids[i]!);
      position[i] = kept++;
    }
    out.raw('","times":[');
    let first = Infinity;
    let last = -Infinity;
    let lastActiveAt = Number.NaN;
    let compactions = 0;
    for (let i = 0, k = 0; i < this.ids.length; i++) {
      const f = this.flags.at(i);
      if (f & SHADOWED) continue;
      const t = this.times.at(i);
      if (k++) out.raw(",");
      out.number(t);
      if (f & COMPACTION) compactions++;
      if (!Number.isFinite(t)) continue;
      if (t < first) first = t;
      if (t > last) last = t;
      if (!(f & METADATA) && !(t <= lastActiveAt)) lastActiveAt = t;
    }
    out.raw("]");
    const stats: EntryStats = [kept, Number.isFinite(first) ? first : null, Number.isFinite(last) ? last : null];
    return { stats, compactions, lastActiveAt };
  }

  /** The details' usage keys and the rows of the entries that are not shadowed, ending them; returns their cost. */
  private writeUsage(out: JsonBytes, position: Int32Array, active: Uint8Array): number {
    const rows = this.usageRows;
    let cost = 0;
    out.raw(`,"keys":${JSON.stringify(this.usageKeys)},"usage":[`);
    let written = 0;
    for (let r = 0; r < rows.length; r += ROW) {
      const at = rows.at(r);
      if (this.flags.at(at) & SHADOWED) continue;
      if (written++) out.raw(",");
      out.number(position[at]!);
      for (let k = 1; k < ROW; k++) {
        out.raw(",");
        out.number(rows.at(r + k));
      }
      out.raw(`,${active[at]!}`);
      cost += rows.at(r + 8);
    }
    out.raw("]}");
    return cost;
  }

  private packedTouches(position: Int32Array, active: Uint8Array): PackedTouches {
    const rows = this.touchRows;
    const out: PackedTouches = [];
    for (let r = 0; r < rows.length; r += 6) {
      const at = rows[r] as number;
      if (this.flags.at(at) & SHADOWED) continue;
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
      if (this.flags.at(i) & SHADOWED) continue;
      const raw = this.parents.at(i);
      if (raw === NO_PARENT || raw === SELF_PARENT) parent[i] = raw;
      else {
        const id = raw === LATER_PARENT ? this.laterParents.get(i)! : this.ids[raw]!;
        parent[i] = this.index.latest(id) ?? -2;
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
      if (this.flags.at(i) & SHADOWED) continue;
      const p = parent[i]!;
      if (p === SELF_PARENT)
        diagnostics.push({
          line: this.lines.at(i),
          severity: "warning",
          code: "self-parent",
          message: "entry is its own parent; shown as a root",
        });
      else if (p === -2) {
        const raw = this.parents.at(i);
        const id = raw === LATER_PARENT ? this.laterParents.get(i)! : this.ids[raw]!;
        diagnostics.push({
          line: this.lines.at(i),
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
      if (!(this.flags.at(i) & SHADOWED) && state[i] === 2)
        diagnostics.push({
          line: this.lines.at(i),
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
    for (let at = this.index.latest(this.ids[n - 1]!)!; at >= 0 && !on[at]; at = parent[at]!) on[at] = 1;
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
      } else if (this.modelOf.at(i) >= 0 && !(flavor === "omp" && explicitDefault)) {
        const m = this.models[this.modelOf.at(i)]!;
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
function reachability(parent: Int32Array, flags: Column<Uint8Array>): Uint8Array {
  const n = parent.length;
  const state = new Uint8Array(n);
  const chain: number[] = [];
  for (let i = 0; i < n; i++) {
    if (flags.at(i) & SHADOWED || state[i]) continue;
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
