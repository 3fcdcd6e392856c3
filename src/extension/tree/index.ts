/**
 * The Sessions tree's public surface. Modules outside `src/extension/tree/` import from here only (lint enforces
 * it): the provider, and the node types commands and tests look at.
 */
import type { BranchNode } from "./branchNode.js";
import type { DetailNode } from "./detailNode.js";
import type { FoldedEntryNode } from "./foldedEntryNode.js";
import type { ForkedFromNode } from "./forkedFromNode.js";
import type { ForkNode } from "./forkNode.js";
import type { ForksNode } from "./forksNode.js";
import type { GroupNode } from "./groupNode.js";
import type { InfoNode } from "./infoNode.js";
import type { ProjectNode } from "./projectNode.js";
import type { RowNode } from "./rowNode.js";
import type { SessionNode } from "./sessionNode.js";

export { SessionsTreeProvider } from "./provider.js";
export { LIVE_MS } from "./present.js";
export type { TreeNode } from "./node.js";
export type {
  BranchNode,
  DetailNode,
  FoldedEntryNode,
  ForkedFromNode,
  ForkNode,
  ForksNode,
  GroupNode,
  InfoNode,
  ProjectNode,
  RowNode,
  SessionNode,
};

/** Every node, discriminated by `kind` (rows, whatever their class, are `kind: "row"` with an outline item). */
export type Element =
  | GroupNode
  | ProjectNode
  | SessionNode
  | RowNode
  | FoldedEntryNode
  | DetailNode
  | ForkNode
  | ForksNode
  | ForkedFromNode
  | InfoNode;
