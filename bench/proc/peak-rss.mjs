// Loaded with `node --import` into a measured process: on exit it writes the process's peak RSS (bytes) to the file
// named by PEAK_RSS_FILE. The same hook is in every process a row compares, so its cost cancels out.
import { writeFileSync } from "node:fs";

process.on("exit", () => {
  if (process.env.PEAK_RSS_FILE)
    writeFileSync(process.env.PEAK_RSS_FILE, String(process.resourceUsage().maxRSS * 1024));
});
