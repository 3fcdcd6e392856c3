/**
 * The Sessions tree's data provider: structure (roots, children, parents), refresh, interning, and finding the node
 * of a session or an entry for `reveal`. Each node kind renders itself (`./*Node.ts`); this class only routes.
 * Nodes are interned by id so that a change refreshes exactly one session's nodes and expansion survives refreshes.
 * Children are built one level at a time from the core's `SessionOutline`.
 */
import { basename } from "node:path";
import * as vscode from "vscode";
import { type FilterMode, type OutlineItem, SessionOutline } from "../../core/outline.js";
import { pathTo } from "../../core/session/index.js";
import type { SessionLibrary } from "../../node/library.js";
import { lastActivity } from "../../node/store/index.js";
import { readTailPreview } from "../../node/tailPreview.js";
import { formatBytes } from "../../protocol/format.js";
import type { SessionService } from "../service.js";
import { BranchNode } from "./branchNode.js";
import { BranchSummaryNode } from "./branchSummaryNode.js";
import { CompactionNode } from "./compactionNode.js";
import { EntryRowNode } from "./entryRowNode.js";
import { GroupNode } from "./groupNode.js";
import type { Element } from "./elements.js";
import type { FileNode, ForkDisplay, TreeContext, TreeNode } from "./node.js";
import { ForksNode } from "./forksNode.js";
import { LIVE_MS } from "./present.js";
import type { RowNode } from "./rowNode.js";
import { SessionNode } from "./sessionNode.js";
import { TurnNode } from "./turnNode.js";

/** Sessions larger than this show progress while they are read. */
const LARGE_SESSION_BYTES = 8 * 1024 * 1024;
/**
 * Sessions larger than this show the latest turns of their active branch at once, read from the end of the file
 * (`readTailPreview`), until their parse ends: it takes half a second and more from here (a 1 GB session: seconds).
 */
const PREVIEW_BYTES = 64 * 1024 * 1024;

export class SessionsTreeProvider implements vscode.TreeDataProvider<Element>, TreeContext, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Element | Element[] | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly nodes = new Map<string, TreeNode>();
  private readonly outlines = new Map<string, SessionOutline>();
  /** Outlines being built (one parse per session, however many ask). */
  private readonly loading = new Map<string, Promise<SessionOutline | null>>();
  /** Tail-first outlines of large sessions whose parse has not ended (`preview`). */
  private readonly previews = new Map<string, SessionOutline>();
  private readonly keys = new Map<string, string>();
  private readonly liveFiles = new Set<string>();
  private readonly liveTimer: NodeJS.Timeout;
  private readonly disposables: vscode.Disposable[] = [];
  private filterMode: FilterMode;
  private forkDisplayMode: ForkDisplay = readForkDisplay();

  constructor(
    private readonly service: SessionService,
    filter: FilterMode,
    readonly workspaceFolderPaths: () => string[] = () =>
      (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath),
  ) {
    this.filterMode = filter;
    this.disposables.push(
      service.onDidChange((set) => {
        if (!set || set.structural) return this.refreshAll();
        const files = new Set(set.changes.map((c) => c.file));
        for (const f of files) {
          this.outlines.delete(f);
          this.previews.delete(f);
        }
        this.fireFamilies(files);
      }),
    );
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration("piSessions.forks.display")) return;
        this.forkDisplayMode = readForkDisplay();
        this.refreshAll();
      }),
    );
    // The "live" marker fades a minute after the last write.
    this.liveTimer = setInterval(() => this.expireLive(), 15_000);
  }

  get lib(): SessionLibrary {
    return this.service.lib;
  }

  get filter(): FilterMode {
    return this.filterMode;
  }

  get forkDisplay(): ForkDisplay {
    return this.forkDisplayMode;
  }

  setFilter(mode: FilterMode): void {
    this.filterMode = mode;
    this.outlines.clear();
    this.previews.clear();
    this.fireSessions(() => true);
  }

  refreshAll(): void {
    this.outlines.clear();
    this.previews.clear();
    this.loading.clear(); // reads of a library replaced meanwhile are not joined
    this.emitter.fire(undefined);
  }

  /**
   * Re-render changed sessions and what names or orders them: a fork's label names its parent, and its parent's
   * "Forks (N)" lists the forks by their latest activity. (The top rows are ordered when a group is listed again.)
   */
  private fireFamilies(files: Set<string>): void {
    const lib = this.service.lib;
    const families = lib.families();
    const affected = new Set(files);
    const parents = new Set<string>();
    for (const f of files) {
      const s = lib.get(f);
      if (!s) continue;
      const p = families.parent(s);
      if (p) parents.add(p.file);
      for (const k of [...families.forks(s), ...families.subagents(s)]) affected.add(k.file);
    }
    this.fireSessions((file) => affected.has(file));
    const lists = [...this.nodes.values()].filter((n) => n instanceof ForksNode && parents.has(n.file));
    if (lists.length) this.emitter.fire(lists as Element[]);
  }

  /** Re-render the session nodes of the files that match (every place each session is listed). */
  private fireSessions(match: (file: string) => boolean): void {
    const nodes = [...this.nodes.values()].filter((n): n is SessionNode => n instanceof SessionNode && match(n.file));
    if (nodes.length) this.emitter.fire(nodes);
  }

  markLive(file: string): void {
    this.liveFiles.add(file);
  }

  private expireLive(): void {
    const now = Date.now();
    const expired = new Set(
      [...this.liveFiles].filter((f) => {
        const s = this.service.lib.get(f);
        return !s || now - lastActivity(s) >= LIVE_MS;
      }),
    );
    if (!expired.size) return;
    for (const f of expired) this.liveFiles.delete(f);
    this.fireSessions((file) => expired.has(file));
  }

  intern<T extends TreeNode>(node: T): T {
    const existing = this.nodes.get(node.id) as T | undefined;
    if (existing && existing.constructor === node.constructor) {
      Object.assign(existing, node);
      return existing;
    }
    this.nodes.set(node.id, node);
    return node;
  }

  /** `session:<id>`, made unique when two files carry the same session id (a copied file). */
  private refreshKeys(): void {
    this.keys.clear();
    const used = new Set<string>();
    const sessions = this.service.lib.sessions.sort((a, b) => a.file.localeCompare(b.file));
    for (const s of sessions) {
      let key = s.summary.ok ? `session:${s.summary.id}` : `file:${s.file}`;
      if (used.has(key)) key = `${key}@${s.file}`;
      used.add(key);
      this.keys.set(s.file, key);
    }
  }

  keyOf(file: string): string {
    if (!this.keys.has(file)) this.refreshKeys();
    return this.keys.get(file) ?? `file:${file}`;
  }

  sessionNode(file: string, parent: Element): SessionNode {
    return SessionNode.of(file, parent, this);
  }

  row(session: FileNode, parent: Element, item: OutlineItem): RowNode {
    const file = session.file;
    const type = this.loadedOutline(file)?.session.byId.get(item.id)?.type;
    const id = `${session.id}/${item.kind === "branch" ? "branch" : "entry"}:${item.id}`;
    const Kind =
      item.kind === "branch"
        ? BranchNode
        : type === "compaction"
          ? CompactionNode
          : type === "branch_summary"
            ? BranchSummaryNode
            : item.kind === "turn"
              ? TurnNode
              : EntryRowNode;
    return this.intern(new Kind(id, file, item, session, parent, this));
  }

  // ----------------------------------------------------------------------------------------------
  // Structure

  async getChildren(node?: TreeNode): Promise<Element[]> {
    await this.service.ensureStarted();
    // Every node class is a member of `Element` (index.ts lists them).
    return (node ? await node.getChildren() : this.roots()) as Element[];
  }

  getParent(node: Element): Element | undefined {
    // Every node class is a member of `Element` (elements.ts lists them).
    return node.parent as Element | undefined;
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    return node.getTreeItem();
  }

  /** Tooltips are built only when they are about to be shown. */
  resolveTreeItem(item: vscode.TreeItem, node: TreeNode): vscode.TreeItem {
    return node.resolveTreeItem(item);
  }

  private roots(): Element[] {
    const state = this.service.state;
    if (state === "noAgentDir" || state === "noSessions") return []; // viewsWelcome explains
    this.refreshKeys();
    const out: Element[] = [];
    if (this.workspaceFolderPaths().length) out.push(this.intern(new GroupNode("ws", "workspace", this)));
    out.push(this.intern(new GroupNode("all", "all", this)));
    return out;
  }

  loadedOutline(file: string): SessionOutline | undefined {
    return this.outlines.get(file) ?? this.previews.get(file);
  }

  /** The session's model and its outline for the current filter (parsed on first use, then followed live). */
  outline(file: string): Promise<SessionOutline | null> {
    const cached = this.outlines.get(file);
    if (cached) return Promise.resolve(cached);
    let pending = this.loading.get(file);
    if (!pending) {
      const read = this.readOutline(file).finally(() => {
        if (this.loading.get(file) === read) this.loading.delete(file);
      });
      this.loading.set(file, (pending = read));
    }
    return pending;
  }

  private async readOutline(file: string): Promise<SessionOutline | null> {
    // A large session that is not followed yet takes a moment to read: say so in the window's progress area.
    const lib = this.service.lib;
    const size = lib.get(file)?.sizeBytes ?? 0;
    const title = vscode.l10n.t("Reading {0} ({1})", basename(file), formatBytes(size));
    let result;
    try {
      result =
        !lib.isFollowed(file) && size > LARGE_SESSION_BYTES
          ? await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title }, () => lib.open(file))
          : await lib.open(file);
    } finally {
      if (lib === this.service.lib) this.previews.delete(file);
    }
    if (!result.ok) return null;
    const outline = new SessionOutline(result.session, this.filterMode);
    // A library replaced meanwhile (new settings) reads its own: this one is answered, not kept.
    if (lib === this.service.lib) this.outlines.set(file, outline);
    return outline;
  }

  /**
   * For a large session not read yet: the latest turns of its active branch, read from the end of the file, while
   * the whole of it is read in the background; its nodes are rendered again when that ends. Null otherwise.
   */
  async preview(file: string): Promise<SessionOutline | null> {
    const lib = this.service.lib;
    if (this.outlines.has(file)) return null;
    const known = this.previews.get(file);
    if (known) return known;
    if (lib.isFollowed(file) || (lib.get(file)?.sizeBytes ?? 0) <= PREVIEW_BYTES) return null;
    let session;
    try {
      session = await readTailPreview(file);
    } catch {
      session = null; // the full read reports why the file cannot be read
    }
    if (!session) return null;
    const outline = new SessionOutline(session, this.filterMode);
    this.previews.set(file, outline);
    void this.outline(file).then(
      () => this.fireSessions((f) => f === file),
      () => this.fireSessions((f) => f === file),
    );
    return outline;
  }

  // ----------------------------------------------------------------------------------------------
  // Finding nodes (reveal)

  /**
   * The node of a session, preferring the This Workspace group. In the nested fork display a fork is found under its
   * family's row: the chain from the family root down to it, through each "Forks (N)" (or "Subagents (N)") node.
   */
  async sessionElementFor(file: string, prefer: "workspace" | "all" = "workspace"): Promise<SessionNode | undefined> {
    await this.service.ensureStarted();
    const target = this.service.lib.get(file);
    if (!target) return undefined;
    const chain = this.forkDisplayMode === "nested" ? this.service.lib.families().chain(target) : [target];
    const roots = this.roots();
    const groups = prefer === "workspace" ? roots : [...roots].reverse();
    /** `chain[at]`'s node in `level`, then down the chain to the target. */
    const descend = (level: Element[]): SessionNode | undefined => {
      for (let at = 0; at < chain.length; at++) {
        const top = level.find((k): k is SessionNode => k instanceof SessionNode && k.file === chain[at]!.file);
        if (!top) continue;
        let node = top;
        for (const next of chain.slice(at + 1)) {
          const forks = ForksNode.of(node, next.summary.ok && next.summary.subagent ? "subagents" : "forks", this);
          node = SessionNode.of(next.file, forks, this);
        }
        return node;
      }
      return undefined;
    };
    for (const g of groups) {
      const level = await this.getChildren(g);
      const hit = descend(level);
      if (hit) return hit;
      for (const k of level) {
        if (k.kind !== "project") continue;
        const inProject = descend(await this.getChildren(k));
        if (inProject) return inProject;
      }
    }
    return undefined;
  }

  /** The row or folded entry that shows `entryId` under the current filter (walking down the outline). */
  async entryElementFor(sessionNode: SessionNode, entryId: string): Promise<Element | undefined> {
    const outline = await this.outline(sessionNode.file);
    if (!outline) return undefined;
    const target = outline.nearestVisible(entryId);
    if (!target) return sessionNode;
    const ancestors = new Set(pathTo(outline.session, target).map((e) => e.id));
    let level: Element[] = await this.getChildren(sessionNode);
    for (let depth = 0; depth < 10_000; depth++) {
      let next: Element | undefined;
      for (const k of level) {
        if (k.kind !== "row") continue;
        if (k.item.id === target) return k;
        if (k.item.kind === "turn" && k.item.folded?.includes(target)) {
          const kids = await this.getChildren(k);
          return kids.find((x) => x.kind === "entry" && x.entryId === target) ?? k;
        }
        if (k.item.kind === "branch" && ancestors.has(k.item.id)) next = k;
      }
      if (!next) return undefined;
      level = await this.getChildren(next);
    }
    return undefined;
  }

  dispose(): void {
    clearInterval(this.liveTimer);
    for (const d of this.disposables) d.dispose();
    this.emitter.dispose();
  }
}

function readForkDisplay(): ForkDisplay {
  return vscode.workspace.getConfiguration("piSessions").get<string>("forks.display") === "flat" ? "flat" : "nested";
}
