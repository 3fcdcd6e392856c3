// Breaks: outside src/node/search/, search is reached through its index only.
import { SearchIndex } from "../node/search/searchIndex.js";
export const x = SearchIndex;
