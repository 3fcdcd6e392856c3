/** The union of the Sessions tree's node classes, for the provider and callers outside the tree. Nodes themselves
 * speak of `TreeNode` (node.ts), so no node module imports this list of them. */
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

/** Every node, discriminated by `kind` (rows, whatever their class, are `kind: "row"` with an outline item). */
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
