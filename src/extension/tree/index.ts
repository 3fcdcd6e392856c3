/**
 * The Sessions tree's public surface. Modules outside `src/extension/tree/` import from here only (lint enforces
 * it): the provider, and the node types commands and tests look at.
 */
import type {
  BranchNode,
  DetailNode,
  Element,
  FoldedEntryNode,
  ForkedFromNode,
  ForkNode,
  ForksNode,
  GroupNode,
  InfoNode,
  ProjectNode,
  RowNode,
  SessionNode,
} from "./elements.js";
export { SessionsTreeProvider } from "./provider.js";
export { LIVE_MS } from "./present.js";
export type { TreeNode } from "./node.js";
export type { Element };
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
