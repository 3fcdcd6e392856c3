import { existsSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { generateLargeStore } from "./generate.js";
const dir = join(import.meta.dirname, "..", ".bench", "store-scale3");
if (!existsSync(join(dir, ".done"))) {
  rmSync(dir, { recursive: true, force: true });
  const t = Date.now();
  const g = await generateLargeStore(join(dir, "sessions"), {
    sessions: 8000,
    ordinaryBytes: 560 * 1048576,
    longMb: [1800, 1400, 554],
    seed: 38,
  });
  writeFileSync(join(dir, ".done"), JSON.stringify(g));
  console.log(g, (Date.now() - t) / 1000, "s");
}
