/**
 * The Sessions view's listing as the extension host makes it (src/extension/service.ts → SessionLibrary: a first
 * listing from each file's ends, then the full read in worker threads), in a process of its own: when the first
 * rows are there, when every session is read in full, the process's peak RSS (worker threads included), and the
 * longest the event loop was blocked. Prints one JSON line. `node --import tsx bench/editorPass.ts AGENT_DIR CACHE`.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { SessionLibrary } from "../src/node/library.js";
import { resolveRoots } from "../src/node/roots.js";
import { cacheFileFor } from "../src/node/store/index.js";

const [agentDir, cacheDir] = process.argv.slice(2);
const roots = resolveRoots({ agentDirs: [agentDir!] });
const workerFile = join(import.meta.dirname, "..", "dist", "summaryWorker.cjs");
if (!existsSync(workerFile)) throw new Error("npm run build first");
let peak = 0;
const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25);
const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
const t0 = performance.now();
const library = new SessionLibrary({ roots, cacheFile: cacheFileFor(cacheDir!, roots), summaryWorker: workerFile });
await library.ensureLoaded();
const firstRows = performance.now() - t0;
await library.whenComplete();
const complete = performance.now() - t0;
delay.disable();
clearInterval(sample);
peak = Math.max(peak, process.memoryUsage().rss);
console.log(
  JSON.stringify({
    firstRows,
    complete,
    peakMb: peak / 1048576,
    maxBlockMs: delay.max / 1e6,
    sessions: library.sessions.length,
  }),
);
library.dispose();
