// Breaks: outside src/extension/tree/, the tree is reached through its index only.
import { SessionNode } from "./tree/sessionNode.js";
export const x = SessionNode;
