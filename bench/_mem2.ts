import { summarizeFileSync } from "../src/node/store/index.js";
const [file, mode, lean] = process.argv.slice(2);
let peak = 0;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
const t0 = performance.now();
const s = summarizeFileSync(file!, mode as "full" | "usage", lean === "lean" ? 0 : Infinity);
peak = Math.max(peak, process.memoryUsage().rss);
clearInterval(timer);
console.log(
  mode,
  lean,
  `${((performance.now() - t0) / 1000).toFixed(1)} s, peak ${(peak / 1048576).toFixed(0)} MB`,
  typeof s === "string" ? s : s.ok ? ("packed" in s ? "packed" : s.entries.length) : s,
);
