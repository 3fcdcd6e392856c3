// Loaded with `node --import` into a measured process: on exit it writes the process's peak RSS (bytes) to the file
// named by PEAK_RSS_FILE. The same hook is in every process a row compares, so its cost cancels out. On Linux the
// peak is VmHWM: getrusage's maxrss also counts the parent's RSS at the fork (it survives the exec), which here is
// the benchmark's own.
import { readFileSync, writeFileSync } from "node:fs";

function peakBytes() {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
    if (hwm) return Number(hwm[1]) * 1024;
  } catch {
    /* not Linux */
  }
  return process.resourceUsage().maxRSS * 1024;
}

process.on("exit", () => {
  if (process.env.PEAK_RSS_FILE) writeFileSync(process.env.PEAK_RSS_FILE, String(peakBytes()));
});
