// Passes: src/node reaches the store and search through their index, and the core below it.
import { parseSession } from "../../core/session/index.js";
import { SearchIndex } from "../search/index.js";
import { loadStore } from "../store/index.js";
export const x = [parseSession, SearchIndex, loadStore];
