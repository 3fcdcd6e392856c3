/**
 * The Sessions tree's data provider: structure (roots, children, parents), refresh, interning, and finding the node
 * of a session or an entry for `reveal`. Each node kind renders itself (`./*Node.ts`); this class only routes.
 * Nodes are interned by id so that a change refreshes exactly one session's nodes and expansion survives refreshes.
 * Children are built one level at a time from the core's `SessionOutline`; outlines, previews, keys and live marks
 * are the model's (model.ts), which says what changed.
 */
import * as vscode from "vscode";
import { type FilterMode, type OutlineItem, SessionOutline } from "../../core/outline.js";
import { pathTo } from "../../core/session/index.js";
import type { SessionLibrary } from "../../node/library.js";
import type { StoreSession } from "../../node/store/index.js";
import type { MarksState } from "../marksState.js";
import type { SessionService } from "../service.js";
import { BranchNode } from "./branchNode.js";
import { BranchSummaryNode } from "./branchSummaryNode.js";
import { CompactionNode } from "./compactionNode.js";
import { EntryRowNode } from "./entryRowNode.js";
import { GroupNode } from "./groupNode.js";
import type { Element } from "./elements.js";
import type { FileNode, ForkDisplay, TreeContext, TreeNode } from "./node.js";
import { ForksNode } from "./forksNode.js";
import { SessionsTreeModel } from "./model.js";
import type { RowNode } from "./rowNode.js";
import { SessionNode } from "./sessionNode.js";
import { TurnNode } from "./turnNode.js";

export class SessionsTreeProvider implements vscode.TreeDataProvider<Element>, TreeContext, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Element | Element[] | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly nodes = new Map<string, TreeNode>();
  /** The caches, keys, live marks and settings the tree shows (model.ts). */
  readonly model: SessionsTreeModel;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly service: SessionService,
    filter: FilterMode,
    readonly marks: MarksState,
  ) {
    this.model = new SessionsTreeModel(service, filter);
    this.disposables.push(
      this.model,
      // A pin or an archive moves rows between places and groups: the whole tree is listed again.
      marks.onDidChange(() => this.emitter.fire(undefined)),
      this.model.onDidChange((change) => {
        if (change.kind === "all") this.emitter.fire(undefined);
        else if (change.kind === "families") this.fireFamilies(change.files);
        else this.fireSessions(change.match);
      }),
    );
  }

  get lib(): SessionLibrary {
    return this.service.lib;
  }

  get filter(): FilterMode {
    return this.model.filter;
  }

  get forkDisplay(): ForkDisplay {
    return this.model.forkDisplay;
  }

  setFilter(mode: FilterMode): void {
    this.model.setFilter(mode);
  }

  refreshAll(): void {
    this.model.refreshAll();
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
    this.model.markLive(file);
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

  keyOf(file: string): string {
    return this.model.keyOf(file);
  }

  workspaceFolderPaths(): string[] {
    return this.service.workspaceFolders();
  }

  workspaceSessions(): StoreSession[] {
    return this.service.workspaceSessions();
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
    this.model.refreshKeys();
    const out: Element[] = [];
    if (this.workspaceFolderPaths().length) out.push(this.intern(new GroupNode("ws", "workspace", this)));
    out.push(this.intern(new GroupNode("all", "all", this)));
    return out;
  }

  loadedOutline(file: string): SessionOutline | undefined {
    return this.model.loadedOutline(file);
  }

  outline(file: string): Promise<SessionOutline | null> {
    return this.model.outline(file);
  }

  preview(file: string): Promise<SessionOutline | null> {
    return this.model.preview(file);
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
    const chain = this.forkDisplay === "nested" ? this.service.lib.families().chain(target) : [target];
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
    for (const d of this.disposables) d.dispose();
    this.emitter.dispose();
  }
}
