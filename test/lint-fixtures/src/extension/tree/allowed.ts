// Passes: inside the tree, its modules import each other directly.
import { SessionNode } from "./sessionNode.js";
export const x = SessionNode;
