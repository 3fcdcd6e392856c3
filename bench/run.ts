/**
 * `npm run bench` (`-- --quick` for a short run): parse time of the upstream fixtures and of a generated
 * session, each as a ratio to a bare baseline (read the file, JSON.parse every line) and to the real pi
 * SessionManager.open on the same file, all measured in this run. Figures only; nothing is asserted.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { join } from "node:path";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { parseSession } from "../src/core/session.js";
import { generateSession } from "./generate.js";

const quick = process.argv.includes("--quick");
const ROOT = join(import.meta.dirname, "..");
const CACHE = join(ROOT, ".bench");
mkdirSync(CACHE, { recursive: true });

function baseline(file: string): number {
  const text = readFileSync(file, "utf8");
  let n = 0;
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      JSON.parse(line);
      n++;
    } catch {
      /* skipped like the agents do */
    }
  }
  return n;
}

function ours(file: string, validate: boolean): number {
  const r = parseSession(file, readFileSync(file), { validate });
  if (!r.ok) throw new Error(`rejected ${file}`);
  return r.session.entries.length;
}

const PI_COPY = join(CACHE, "pi-open-copy.jsonl");

/** pi rewrites v1/v2 files on open, so each timed open gets a fresh copy, made outside the timed region. */
function piSetup(file: string): () => void {
  return () => copyFileSync(file, PI_COPY);
}

function pi(): number {
  return SessionManager.open(PI_COPY).getEntries().length;
}

function median(fn: () => unknown, runs: number, setup?: () => void): number {
  const times: number[] = [];
  setup?.();
  fn(); // warm-up
  for (let i = 0; i < runs; i++) {
    setup?.();
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function main() {
  const mb = quick ? 10 : 100;
  const generated = join(CACHE, `generated-${mb}mb.jsonl`);
  if (!existsSync(generated)) {
    process.stdout.write(`generating ${mb} MB session (seed 42)… `);
    const g = await generateSession(generated, { targetBytes: mb * 1024 * 1024, branchPoints: 50, seed: 42 });
    console.log(`${g.entries} entries, ${(g.bytes / 1048576).toFixed(1)} MB`);
  }
  const files = [join(ROOT, "fixtures/upstream/before-compaction.jsonl"), join(ROOT, "fixtures/upstream/large-session.jsonl"), generated];
  console.log(`machine: ${cpus().length} cores (${availableParallelism()} available), node ${process.version}${quick ? ", quick run" : ""}`);
  console.log("");
  const header = ["file", "MB", "entries", "baseline ms", "ours ms", "ours/base", "ours+zod ms", "+zod/base", "pi open ms", "pi/ours"];
  const rows: string[][] = [header];
  for (const file of files) {
    const runs = statSync(file).size > 20e6 ? (quick ? 2 : 3) : 10;
    const b = median(() => baseline(file), runs);
    const o = median(() => ours(file, false), runs);
    const z = median(() => ours(file, true), runs);
    const p = median(pi, runs, piSetup(file));
    rows.push([
      file.split("/").pop()!,
      (statSync(file).size / 1048576).toFixed(1),
      String(ours(file, false)),
      b.toFixed(0),
      o.toFixed(0),
      `${(o / b).toFixed(2)}×`,
      z.toFixed(0),
      `${(z / b).toFixed(2)}×`,
      p.toFixed(0),
      `${(p / o).toFixed(2)}×`,
    ]);
  }
  const widths = header.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  "));
  console.log("\nours/base: parse + model build relative to read + JSON.parse per line (goal ≤ 1.5×);");
  console.log("pi/ours: how many times faster than pi's SessionManager.open on the same file (goal ≥ 2×).");
}

await main();
