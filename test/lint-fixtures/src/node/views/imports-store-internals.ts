// Breaks: src/node/views reaches the store through its index only.
import { loadStore } from "../store/discover.js";
export const x = loadStore;
