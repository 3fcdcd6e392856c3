// The single-threaded floor as a whole process: read the file and JSON.parse every line, nothing else.
import { readFileSync } from "node:fs";

let n = 0;
for (const line of readFileSync(process.argv[2], "utf8").split("\n")) {
  if (!line) continue;
  try {
    JSON.parse(line);
    n++;
  } catch {
    /* skipped, as pi skips it */
  }
}
if (n < 0) console.log(n);
