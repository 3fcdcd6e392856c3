// Oh My Pi 18.3's per-subagent compaction threshold (`session_init.compactionThreshold`, src/session/session-entries.ts
// of 18.3.4; a token count from `task.agentCompactionThresholdOverrides` is stored as {thresholdPercent: -1,
// thresholdTokens: N}, a percentage as {thresholdPercent: P, thresholdTokens: -1}, config/compaction-threshold.ts).
import * as assert from "node:assert/strict";
import { ompThresholdOf, ompThresholdPercent } from "../../src/core/contextWindows.js";
import { jsonl, parseOk } from "../support/helpers.js";

const header = { type: "session", version: 3, id: "s", timestamp: "2026-11-24T08:00:00.000Z", cwd: "/p", title: "t" };
const init = (compactionThreshold?: unknown) => ({
  type: "session_init",
  id: "i",
  parentId: null,
  timestamp: "2026-11-24T08:00:00.000Z",
  systemPrompt: "You are scout.",
  task: "look",
  tools: ["read"],
  ...(compactionThreshold === undefined ? {} : { compactionThreshold }),
});

describe("OMP 18.3 subagent compaction thresholds", () => {
  it("a token count and a percentage, as OMP stores them; the status bar's percent of the window", () => {
    const tokens = parseOk(jsonl(header, init({ thresholdPercent: -1, thresholdTokens: 90000 })));
    assert.equal(tokens.flavor, "omp");
    assert.deepEqual(tokens.diagnostics, []);
    const t = ompThresholdOf(tokens)!;
    assert.deepEqual(t, { thresholdPercent: -1, thresholdTokens: 90000 });
    assert.equal(ompThresholdPercent(200_000, t), 45);
    const percent = ompThresholdOf(parseOk(jsonl(header, init({ thresholdPercent: 80, thresholdTokens: -1 }))))!;
    assert.equal(ompThresholdPercent(200_000, percent), 80);
    assert.equal(ompThresholdPercent(null, percent), null, "no window, no place");
  });

  it("no threshold, or one of another shape: none (and a warning for the bad shape)", () => {
    assert.equal(ompThresholdOf(parseOk(jsonl(header, init()))), null);
    const bad = parseOk(jsonl(header, init({ thresholdPercent: "80%" })));
    assert.equal(ompThresholdOf(bad), null);
    assert.ok(bad.diagnostics.length > 0);
    assert.equal(ompThresholdPercent(100, { thresholdPercent: -1, thresholdTokens: -1 }), null);
  });
});
