// pi 1.6's session totals (`AgentSession.getSessionStats()`, the `/session` numbers: every entry of the file,
// assistant usage, `usage` entries, compaction and branch-summary usage, tool-result usage), computed by pi 1.6.0's
// own code into the fixtures' oracles (fixtures/real/pi-1.6/README.md), equal ours on every file; and the reader
// raises no diagnostic on anything pi 1.6 wrote.
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { parseSession } from "../../src/core/session/index.js";
import { addRecord, emptyTotals, usageRecords } from "../../src/core/usage.js";
import { parsedFixture, PI16_FILES, pi16Oracle, shortName } from "../support/pi16Fixtures.js";

const FILES = PI16_FILES;
const oracle = pi16Oracle;
const short = shortName;
const parsed = parsedFixture;

describe("pi 1.6 sessions: usage and diagnostics as pi 1.6.0 counts them", () => {
  it("the fixtures are the eight files of the README, each with its oracle", () => {
    assert.equal(FILES.length, 8);
    // Every file loads in pi 1.6.0 and has its session totals in the oracle.
    for (const f of FILES) assert.ok(oracle(f).loadable && oracle(f).usage?.tokens, short(f));
  });

  for (const file of FILES) {
    it(`${short(file)}: tokens and cost equal getSessionStats()`, () => {
      const want = oracle(file).usage;
      const totals = emptyTotals();
      for (const r of usageRecords(parsed(file))) addRecord(totals, r);
      assert.deepEqual(
        {
          input: totals.input,
          output: totals.output,
          cacheRead: totals.cacheRead,
          cacheWrite: totals.cacheWrite,
          total: totals.totalTokens,
        },
        want.tokens,
      );
      assert.ok(Math.abs(totals.cost - want.cost) < 1e-9, `cost ${totals.cost} vs pi's ${want.cost}`);
    });
  }

  it("no diagnostic on anything pi 1.6 wrote; an entry kind nobody writes still gets one", () => {
    for (const file of FILES) assert.deepEqual(parsed(file).diagnostics, [], short(file));
    const withUsage = FILES.find((f) => readFileSync(f, "utf8").includes('"type":"usage"'))!;
    const text = readFileSync(withUsage, "utf8").replace(/"type":"usage"/, '"type":"not_a_kind"');
    const r = parseSession("/x.jsonl", text);
    assert.ok(r.ok);
    assert.ok(r.session.diagnostics.some((d) => d.code === "unknown-entry-type"));
  });
});
