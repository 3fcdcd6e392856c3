// The real pi 1.6.0 in the test run (test/support/pi16.ts: pi's own code under Node 22 in a child process): on every
// pi 1.6 fixture and on random sessions written through pi's own SessionManager methods, our context at every entry,
// the session totals and the per-model split equal pi's `buildSessionProjection()`, `getSessionStats()` and
// `getUsageCostBreakdown()`.
import * as assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import fc from "fast-check";
import { buildContext } from "../../src/core/context/index.js";
import { parseSession, type Session } from "../../src/core/session/index.js";
import { addRecord, emptyTotals, usageRecords } from "../../src/core/usage.js";
import { usageReport } from "../../src/node/report.js";
import { loadStore } from "../../src/node/store/index.js";
import { listFiles, plain, withTempDir } from "../support/helpers.js";
import { REAL } from "../support/fixtures.js";
import { askPi16, type Pi16Answer } from "../support/pi16.js";
import { programs } from "../support/pi16Programs.js";

const FIXTURES = listFiles(join(REAL, "pi-1.6", "sessions"), ".jsonl");

function parsed(file: string): Session {
  const r = parseSession(file, readFileSync(file));
  assert.ok(r.ok, `${file} is read`);
  return r.session;
}

/** Our context at every entry and at the active leaf equals pi's projection there. */
function assertContexts(session: Session, pi: Pi16Answer, label: string): number {
  assert.equal(session.leafId, pi.leafId, `${label}: active leaf`);
  const leaves: [string | undefined, Pi16Answer["active"]][] = [[undefined, pi.active], ...Object.entries(pi.at)];
  for (const [leaf, want] of leaves) {
    const ours = plain(buildContext(session, leaf));
    assert.deepEqual(
      ours.entries.map((e) => ({ id: e.entryId, type: e.type, messages: e.messages })),
      want.entries,
      `${label} @ ${leaf ?? "leaf"}`,
    );
    assert.equal(ours.thinkingLevel, want.thinkingLevel, `${label} @ ${leaf ?? "leaf"}: thinking level`);
    assert.deepEqual(ours.model, want.model, `${label} @ ${leaf ?? "leaf"}: model`);
  }
  return leaves.length;
}

function assertTotals(session: Session, pi: Pi16Answer, label: string): void {
  const totals = emptyTotals();
  for (const r of usageRecords(session)) addRecord(totals, r);
  const { input, output, cacheRead, cacheWrite } = totals;
  assert.deepEqual(
    { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite },
    pi.tokens,
    `${label}: tokens`,
  );
  assert.ok(Math.abs(totals.cost - pi.cost) < 1e-9, `${label}: cost ${totals.cost} vs pi's ${pi.cost}`);
}

/** The per-model rows of the usage report for this file alone equal pi's `getUsageCostBreakdown()`. */
async function assertBreakdown(file: string, pi: Pi16Answer, label: string): Promise<void> {
  await withTempDir(async (dir) => {
    const root = join(dir, "sessions", "--p--");
    mkdirSync(root, { recursive: true });
    copyFileSync(file, join(root, basename(file)));
    const store = await loadStore({
      roots: [{ dir: join(dir, "sessions"), agent: "pi", source: "test" }],
      cacheFile: null,
    });
    const rows = usageReport(store.sessions, { by: "model" }).rows;
    const ours = rows.map((r) => ({ key: r.key, tokens: r.input + r.output + r.cacheRead + r.cacheWrite }));
    assert.deepEqual(
      ours,
      pi.breakdown.map(({ key, tokens }) => ({ key, tokens })),
      `${label}: per-model rows, in pi's order`,
    );
    rows.forEach((r, i) => assert.ok(Math.abs(r.cost - pi.breakdown[i]!.cost) < 1e-9, `${label}: ${r.key} cost`));
  });
}

describe("pi 1.6.0 itself as the oracle", function () {
  this.timeout(300_000);

  it("every pi 1.6 fixture: context at every entry, totals and the per-model split equal pi 1.6.0's", async () => {
    const answers = askPi16({ op: "read", files: FIXTURES });
    let leaves = 0;
    for (const pi of answers) {
      const label = basename(pi.file).slice(0, 30);
      const session = parsed(pi.file);
      leaves += assertContexts(session, pi, label);
      assertTotals(session, pi, label);
      await assertBreakdown(pi.file, pi, label);
    }
    assert.ok(leaves > 200, `compared ${leaves} leaves`);
  });

  it("random sessions written by pi 1.6.0's SessionManager: context at every entry, totals, model split", async () => {
    await withTempDir(async (dir) => {
      const sample = fc.sample(programs, { seed: 1606, numRuns: 100 });
      const answers = askPi16({ op: "build", dir, programs: sample });
      assert.equal(answers.length, sample.length);
      let edited = 0;
      let retainNone = 0;
      for (const [n, pi] of answers.entries()) {
        const label = `program ${n}: ${JSON.stringify(sample[n])}`;
        const session = parsed(pi.file);
        assert.deepEqual(session.diagnostics, [], `${label}: no diagnostic on what pi wrote`);
        assertContexts(session, pi, label);
        assertTotals(session, pi, label);
        await assertBreakdown(pi.file, pi, label);
        const ctx = buildContext(session);
        if (ctx.entries.some((e) => e.edit)) edited++;
        if (session.compactions.some((c) => c.firstKeptEntryId === c.id)) retainNone++;
      }
      // The sample exercises what it is for.
      assert.ok(edited >= 10, `${edited} programs end with a context edit in effect`);
      assert.ok(retainNone >= 5, `${retainNone} programs hold a retain-none compaction`);
    });
  });
});
