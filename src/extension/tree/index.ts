/**
 * The Sessions tree's public surface. Modules outside `src/extension/tree/` import from here only (lint enforces
 * it): the provider, and the node types commands and tests look at (`Element`, the union of them, and each class).
 */
export type * from "./elements.js";
export { SessionsTreeProvider } from "./provider.js";
export { LIVE_MS } from "./present.js";
export type { TreeNode } from "./node.js";
