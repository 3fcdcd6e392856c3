// Breaks: a sibling folder of src/node reaches search through its index only.
import { SearchIndex } from "./search/searchIndex.js";
export const x = SearchIndex;
