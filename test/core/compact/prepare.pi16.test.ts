// Our prepareCompaction (the cut, the messages summarized, tokensBefore, the file lists) equals pi 1.6.0's own, run in
// the test (test/support/pi16.ts), at every entry of every pi fixture (pi 0.30 to 1.6) and of random sessions written
// by pi 1.6.0's SessionManager (context edits, compactions with and without kept entries, system messages), for
// several `keepRecentTokens`.
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { prepareCompaction } from "../../../src/core/compact/prepare.js";
import { parseSession, type Session } from "../../../src/core/session/index.js";
import { PI_FIXTURES, REAL } from "../../support/fixtures.js";
import { listFiles, plain, withTempDir } from "../../support/helpers.js";
import { askPi16 } from "../../support/pi16.js";
import { programs } from "../../support/pi16Programs.js";

const KEEPS = [1, 60, 400, 20000];

interface PiPreparation {
  firstKeptEntryId: string;
  isSplitTurn: boolean;
  tokensBefore: number;
  previousSummary: string | null;
  messagesToSummarize: unknown[];
  turnPrefixMessages: unknown[];
  read: string[];
  edited: string[];
  written: string[];
}

function parsed(file: string): Session {
  const r = parseSession(file, readFileSync(file));
  assert.ok(r.ok, file);
  return r.session;
}

/**
 * Our preparation equals pi's at every entry (or, with `sampled`, at every branch end and every 7th entry: the
 * answers hold the messages summarized at each), for each keep; returns how many pi prepared.
 */
function compare(files: string[], sampled = false): number {
  const leaves: Record<string, string[]> = {};
  if (sampled)
    for (const f of files) {
      const s = parsed(f);
      const ends = s.entries.filter((e) => !s.children.has(e.id)).map((e) => e.id);
      leaves[f] = [...new Set([...ends, ...s.entries.filter((_, i) => i % 7 === 3).map((e) => e.id)])];
    }
  const answers = askPi16<{ file: string; preparations: Record<string, PiPreparation | null> }>({
    op: "prepare",
    files,
    keeps: KEEPS,
    ...(sampled ? { leaves } : {}),
  });
  let prepared = 0;
  for (const { file, preparations } of answers) {
    const s = parsed(file);
    for (const [key, theirs] of Object.entries(preparations)) {
      const [leaf, keep] = key.split("/") as [string, string];
      const ours = prepareCompaction(s, leaf, Number(keep));
      const at = `${file.slice(-40)} @ ${key}`;
      if (theirs === null) {
        assert.ok(typeof ours === "string", `${at}: pi refuses, we prepare`);
        continue;
      }
      assert.ok(typeof ours !== "string", `${at}: pi prepares, we refuse (${String(ours)})`);
      assert.equal(ours.firstKeptEntryId, theirs.firstKeptEntryId, `${at}: firstKept`);
      assert.equal(ours.isSplitTurn, theirs.isSplitTurn, `${at}: split turn`);
      assert.equal(ours.tokensBefore, theirs.tokensBefore, `${at}: tokensBefore`);
      assert.equal(ours.previousSummary ?? null, theirs.previousSummary, `${at}: previous summary`);
      assert.deepEqual(plain(ours.messagesToSummarize), theirs.messagesToSummarize, `${at}: summarized`);
      assert.deepEqual(plain(ours.turnPrefixMessages), theirs.turnPrefixMessages, `${at}: turn prefix`);
      const modified = new Set([...theirs.edited, ...theirs.written]);
      assert.deepEqual(ours.readFiles, theirs.read.filter((f) => !modified.has(f)).sort(), `${at}: read files`);
      assert.deepEqual(ours.modifiedFiles, [...modified].sort(), `${at}: modified files`);
      prepared++;
    }
  }
  return prepared;
}

describe("prepareCompaction port equals pi 1.6.0's", function () {
  this.timeout(600_000);

  it("at the branch ends and every 7th entry of every pi fixture, pi 0.30 to 1.6 (one fixture at a time)", () => {
    const v2plus = PI_FIXTURES.filter((f) => !f.includes("quirks") && parsed(f).version >= 2);
    const files = [...v2plus, ...listFiles(join(REAL, "pi-1.6", "sessions"), ".jsonl")];
    let prepared = 0;
    for (const f of files) prepared += compare([f], true);
    assert.ok(prepared > 300, `${prepared} preparations compared`);
  });

  it("at every entry of 60 random sessions written by pi 1.6.0's SessionManager", () => {
    withTempDir((dir) => {
      const sample = fc.sample(programs, { seed: 1616, numRuns: 60 });
      const written = askPi16({ op: "build", dir, programs: sample }).map((a) => a.file);
      assert.ok(compare(written) > 200);
    });
  });
});
