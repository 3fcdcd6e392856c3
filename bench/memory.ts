/**
 * Child process of `npm run bench`: the RSS increase of holding one parsed session (the model the tree needs), in a
 * fresh process so nothing else is on the heap. Prints JSON. Run with --expose-gc.
 */
import { readFileSync, statSync } from "node:fs";
import { readSessionFile } from "../src/node/readSession.js";

const file = process.argv[2]!;
const mode = process.argv[3] ?? "ours";
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
gc();
const before = process.memoryUsage().rss;
let held: unknown;
if (mode === "ours") {
  // As the CLI and the extension read it: in chunks, large bodies left in the file.
  const r = await readSessionFile(file, { validate: false });
  if (!r.ok) throw new Error("rejected");
  held = r.session;
} else {
  // The floor: every line parsed and kept (what any full in-memory reader holds).
  held = readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}
gc();
const after = process.memoryUsage().rss;
console.log(JSON.stringify({ mode, bytes: statSync(file).size, rssIncrease: after - before, heldType: typeof held }));
