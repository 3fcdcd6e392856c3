// Breaks: outside src/node/store/, the store is reached through its index only.
import { loadStore } from "../node/store/cache.js";
export const x = loadStore;
