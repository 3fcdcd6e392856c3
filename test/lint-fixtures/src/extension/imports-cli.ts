// Breaks: the extension does not depend on the CLI.
import { run } from "../cli/main.js";
export const x = run;
