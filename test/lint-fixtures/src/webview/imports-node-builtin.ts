// Breaks: a webview bundle runs in a browser: no Node modules.
import { readFile } from "node:fs/promises";
export const x = readFile;
