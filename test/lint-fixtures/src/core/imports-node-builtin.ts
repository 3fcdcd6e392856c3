// Breaks: src/core is environment-neutral (node:fs, and the bare "path").
import { readFileSync } from "node:fs";
import { join } from "path";
export const x = [readFileSync, join];
