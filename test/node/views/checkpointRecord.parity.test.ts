// Our writer (Compact Branch) against Blackmagic itself: the same conversation, cut at the same entry and compacted
// on the same surface, reads back through `pi-sessions checkpoints --json` with the same facts, but for ids, times
// and hashes. The session is a Blackmagic fixture cut just before its compaction; the mock answers as the one the
// fixture was written against did (every user message of the input, the usage it returned then).
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../src/cli/main.js";
import { useCompactHarness } from "../../support/compactHarness.js";
import { REAL } from "../../support/fixtures.js";

const BLACKMAGIC = join(REAL, "blackmagic");
const MANIFEST = JSON.parse(readFileSync(join(BLACKMAGIC, "MANIFEST.json"), "utf8"));

/** Facts that differ by nature between two runs: ids, times, hashes (and what is hashed), and who wrote it. */
const IGNORED = [
  "entryId",
  "compactionItemId",
  "timelineEntryId",
  "latencyMs",
  "line",
  "timestamp",
  "writer",
  // Blackmagic hashes the request pi sends, system prompt included; we hash the conversation (docs/checkpoints.md).
  "replacedItemHashCount",
];

async function records(file: string): Promise<Record<string, any>[]> {
  let out = "";
  const code = await run(["checkpoints", file, "--json"], { out: (t) => (out += t), err: () => {} });
  assert.equal(code, 0);
  return JSON.parse(out).checkpoints;
}

function comparable(r: Record<string, any>) {
  const out = Object.fromEntries(Object.entries(r).filter(([k]) => !IGNORED.includes(k)));
  out.integrity = r.integrity && { algorithm: r.integrity.algorithm, valid: r.integrity.valid };
  out.hasTimeline = r.timelineEntryId !== null;
  return out;
}

describe("our checkpoints read back exactly as Blackmagic's", function () {
  this.timeout(120_000);
  const h = useCompactHarness();

  const cases = [
    { scenario: "openai-remote-replay", surface: "openai" },
    { scenario: "azure-remote-replay", surface: "azure" },
    { scenario: "codex-remote-replay", surface: "codex" },
    { scenario: "openai-local-fallback-500", surface: "openai" },
  ] as const;

  for (const c of cases) {
    it(`${c.scenario}: every fact but ids, times and hashes is the same`, async () => {
      const f = MANIFEST.files.find((x: { scenario: string }) => x.scenario === c.scenario);
      const m = f.compactions[0];
      const source = readFileSync(join(BLACKMAGIC, f.file), "utf8").trimEnd().split("\n");
      const at = source.findIndex((l) => JSON.parse(l).id === m.entryId);
      assert.equal(JSON.parse(source[at - 1]!).id, m.parentId, "the compaction follows the leaf it compacted");
      const file = h.write(source.slice(0, at).join("\n") + "\n");

      const model = m.model ?? f.model;
      const args = [
        "--provider",
        c.surface,
        "--model",
        model,
        "--base-url",
        h.base[c.surface](),
        ...(c.surface === "azure"
          ? ["--azure-resource", "northwind-swedencentral", "--azure-deployment", m.deployment]
          : []),
      ];
      // The cut Blackmagic's run made (pi's own rule with the scenario's keepRecentTokens): found by planning.
      let keep: string | undefined;
      for (let k = 20; k <= 4000 && !keep; k += 20) {
        const plan = await h.cli(file, ...args, "--keep-recent-tokens", String(k), "--dry-run", "--json");
        if (plan.json?.plan?.firstKeptEntryId === m.firstKeptEntryId) keep = String(k);
      }
      assert.ok(keep, "a keepRecentTokens that cuts where Blackmagic's run cut");

      h.mock.echoAllUsers = true;
      h.mock.deployment = m.deployment ?? "";
      if (m.state === "local_fallback") h.mock.mode = 500;
      else h.mock.answerUsage = m.mock.returnedUsage;
      const r = await h.cli(file, ...args, "--keep-recent-tokens", keep!, "--yes", "--json", "--write-fallback");
      assert.equal(r.code, 0, r.out + r.err);
      assert.deepEqual(h.mock.violations, []);

      const ours = (await records(file)).at(-1)!;
      const theirs = (await records(join(BLACKMAGIC, f.file))).find((x) => x.entryId === m.entryId)!;
      assert.equal(ours.writer, "pi-session-explorer");
      assert.equal(theirs.writer, null);
      assert.deepEqual(comparable(ours), comparable(theirs));
    });
  }
});
