// Breaks: the CLI reaches search through its index only.
import { indexTargets } from "../node/search/targets.js";
export const x = indexTargets;
