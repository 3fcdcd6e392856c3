// Breaks: src/core (at any depth) must not reach up into src/cli.
import { run } from "../../cli/main.js";
export const x = run;
