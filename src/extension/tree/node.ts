/**
 * The base of every Sessions tree node, and what nodes may ask of the tree. Each node kind is a class in its own
 * module (GitHub Pull Requests' `treeNodes/` shape) that renders its own `TreeItem` and lists its own children. Nodes
 * are interned by id (`TreeContext.intern`), so a refresh of one session fires the same objects and expansion
 * survives; a node holds only what identifies it and reads everything else from the library when it renders.
 */
import type * as vscode from "vscode";
import type { FilterMode, OutlineItem, SessionOutline } from "../../core/outline.js";
import type { SessionLibrary } from "../../node/library.js";
import type { StoreSession } from "../../node/store/index.js";
import type { MarksState } from "../marksState.js";

/** What nodes need from the tree they are in. The provider implements it. */
export interface TreeContext {
  readonly lib: SessionLibrary;
  /** Pins and archives: pinned families first, archived sessions only under "Archived (N)" or "Show Archived". */
  readonly marks: MarksState;
  readonly filter: FilterMode;
  /** `nested`: one row per fork family, forks under "Forks (N)"; `flat`: one row per session. */
  readonly forkDisplay: ForkDisplay;
  workspaceFolderPaths(): string[];
  /** The sessions of the workspace's folders (the service's one workspace scope). */
  workspaceSessions(): StoreSession[];
  /** The session's outline for the current filter, parsed on first use. */
  outline(file: string): Promise<SessionOutline | null>;
  /** The outline if it is already built, or a large session's tail-first preview (rendering never reads files). */
  loadedOutline(file: string): SessionOutline | undefined;
  /** A large session's latest turns read from its end while it is read in full, or null (`provider.ts`). */
  preview(file: string): Promise<SessionOutline | null>;
  /** The node already known by this id and class (updated from `node`), else `node` itself. */
  intern<T extends TreeNode>(node: T): T;
  /** A stable key for a session file (`session:<id>`, made unique for copied files). */
  keyOf(file: string): string;
  /** A session rendered as live: its marker is re-rendered when it fades. */
  markLive(file: string): void;
  /** A session's node under `parent` (a group, a project, or a "Forks (N)" node). */
  sessionNode(file: string, parent: TreeNode): TreeNode;
  /** The node of one outline row (a turn, entry, branch, compaction or branch summary) under `parent`. */
  row(session: FileNode, parent: TreeNode, item: OutlineItem): TreeNode;
}

export type ForkDisplay = "nested" | "flat";

/** A node that belongs to one session file. */
export type FileNode = TreeNode & { readonly file: string };

export abstract class TreeNode {
  abstract readonly kind: string;

  constructor(
    readonly id: string,
    readonly parent: TreeNode | undefined,
    protected readonly tree: TreeContext,
  ) {}

  abstract getTreeItem(): vscode.TreeItem;

  getChildren(): TreeNode[] | Promise<TreeNode[]> {
    return [];
  }

  /** Fill in what is costly to compute (tooltips) only when it is about to be shown. */
  resolveTreeItem(item: vscode.TreeItem): vscode.TreeItem {
    return item;
  }
}
