// Forks of pi 1.6 sessions count their copies once: the store's per-session cost of the real pi 1.6 store equals pi
// 1.6's own session totals (getSessionStats(), in the oracles) less, for a fork, what its copied entries cost (found
// in the raw files: same id in the parent, written before the fork's header). pi 1.6 copies `usage` entries into a
// fork (S6 of fixtures/real/pi-1.6), so the cache warmer's calls are counted in the parent only.
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { usageReport } from "../../../src/node/report.js";
import { loadStore } from "../../../src/node/store/index.js";
import { REAL } from "../../support/fixtures.js";
import { listFiles } from "../../support/helpers.js";

type Raw = Record<string, any>;
const DIR = join(REAL, "pi-1.6", "sessions");
const FILES = listFiles(DIR, ".jsonl");
const records = (f: string): Raw[] =>
  readFileSync(f, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const piCost = (f: string): number => JSON.parse(readFileSync(`${f}.oracle.json`, "utf8")).usage.cost;

/** What one raw entry costs in pi's session totals (every kind pi 1.6's getSessionStats() counts). */
function entryCost(e: Raw): number {
  if (e.type === "usage" || e.type === "branch_summary" || e.type === "compaction") return e.usage?.cost?.total ?? 0;
  if (e.type !== "message") return 0;
  const m = e.message;
  return m.role === "assistant" || m.role === "toolResult" ? (m.usage?.cost?.total ?? 0) : 0;
}

describe("pi 1.6 forks in the store", () => {
  it("each session's own cost is pi's total less its copies of the parent's entries (counted once)", async () => {
    const store = await loadStore({ roots: [{ dir: DIR, agent: "pi", source: "test" }], cacheFile: null });
    const rows = new Map(usageReport(store.sessions, { by: "session" }).rows.map((r) => [r.file!, r]));
    let forks = 0;
    let copiedUsageEntries = 0;
    for (const file of FILES) {
      const [header, ...entries] = records(file);
      let want = piCost(file);
      if (header!.parentSession) {
        const parent = FILES.find((f) => header!.parentSession.endsWith(f.slice(f.lastIndexOf("/") + 1)))!;
        const parentIds = new Set(records(parent).map((r) => r.id));
        const copied = entries.filter((e) => parentIds.has(e.id) && e.timestamp <= header!.timestamp);
        want -= copied.reduce((n, e) => n + entryCost(e), 0);
        copiedUsageEntries += copied.filter((e) => e.type === "usage").length;
        forks++;
      }
      // A session that cost nothing (S8: pi was killed during its first request) has no row.
      const cost = rows.get(file)?.cost ?? 0;
      assert.ok(Math.abs(cost - want) < 1e-9, `${file.slice(-50)}: ${cost} vs ${want}`);
    }
    assert.equal(forks, 2, "S6 (/fork of S1) and S7 (forkFrom of S3)");
    assert.ok(copiedUsageEntries >= 2, "the fork copied the cache warmer's usage entries");
  });
});
