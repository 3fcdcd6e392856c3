// Breaks: src/core must not reach up into src/node.
import { loadStore } from "../node/store/index.js";
export const x = loadStore;
