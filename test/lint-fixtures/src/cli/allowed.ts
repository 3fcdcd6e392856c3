// Passes: the CLI reaches the store and search through their index.
import { SearchIndex } from "../node/search/index.js";
import { loadStore } from "../node/store/index.js";
export const x = [SearchIndex, loadStore];
