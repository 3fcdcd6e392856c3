// Compact Branch on sessions written by the real pi 1.6.0: the request carries pi 1.6's context (context edits
// applied), the entry written stores the prompt and tools in effect (`systemMessage`, as pi 1.6's appendCompaction
// does), and the real pi 1.6.0 loads the file and builds from it the context we build.
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildContext } from "../../../src/core/context/index.js";
import { parseSession } from "../../../src/core/session/index.js";
import { currentSystemMessage } from "../../../src/core/systemMessage.js";
import { appendedCheckpoint, useCompactHarness } from "../../support/compactHarness.js";
import { REAL } from "../../support/fixtures.js";
import { listFiles, plain } from "../../support/helpers.js";
import { askPi16 } from "../../support/pi16.js";

const FILES = listFiles(join(REAL, "pi-1.6", "sessions"), ".jsonl");
const WITH_REPLACED_OUTPUT = FILES.find((f) => readFileSync(f, "utf8").includes("trimmed by tidy-context"))!;
const WITH_CHECKPOINTS = FILES.find((f) => /"type":"compaction".*"systemMessage"/.test(readFileSync(f, "utf8")))!;

describe("compact branch on pi 1.6 sessions", function () {
  this.timeout(120_000);
  const h = useCompactHarness();

  // keep: what pi's own prepareCompaction compacts on that branch (little follows the retain-none compaction).
  for (const [name, fixture, keep] of [
    ["tool output replaced by context edits", WITH_REPLACED_OUTPUT, "200"],
    ["two earlier compactions with checkpoints and a retain-none one", WITH_CHECKPOINTS, "1"],
  ] as const) {
    it(`${name}: pi 1.6.0 loads the result and builds our context from it`, async () => {
      const file = h.copy(fixture);
      const before = readFileSync(file);
      const parsedBefore = parseSession(file, before);
      assert.ok(parsedBefore.ok);
      const contextBefore = buildContext(parsedBefore.session);
      const edited = contextBefore.entries.filter((e) => e.edit && !e.edit.omitted);
      // The first case is there for its replaced outputs: the request checks below must have something to check.
      if (fixture === WITH_REPLACED_OUTPUT) assert.ok(edited.length > 0, "the fixture's replacements are in context");

      const r = await h.cli(file, ...h.surfaceArgs("openai"), "--keep-recent-tokens", keep, "--yes", "--json");
      assert.equal(r.code, 0, r.err);
      assert.equal(r.json.state, "remote_applied");
      const { entry } = appendedCheckpoint(before, readFileSync(file));

      // The compaction request carries what pi 1.6 sends: a replaced output's replacement, not the original.
      const request = JSON.stringify(h.mock.requests.at(-1)!.body);
      for (const e of edited) {
        const replacement = (e.messages[0]!.content as { text: string }[])[0]!.text;
        assert.ok(request.includes(JSON.stringify(replacement).slice(1, -1)), "the replacement is sent");
        assert.ok(!request.includes("step=59 h=1.511m"), "the original output is not");
      }
      // The entry stores the prompt and tools in effect, as pi 1.6's appendCompaction computes them.
      const want = currentSystemMessage(contextBefore.messages)!;
      assert.deepEqual(entry.systemMessage, { ...want, timestamp: Date.parse(entry.timestamp) });

      // The real pi 1.6.0: loads the file; its context opens with that system message, then our summary, and equals
      // ours at every entry.
      const [pi] = askPi16({ op: "read", files: [file] });
      assert.equal(pi!.leafId, JSON.parse(readFileSync(file, "utf8").trimEnd().split("\n").at(-1)!).id);
      const after = parseSession(file, readFileSync(file));
      assert.ok(after.ok);
      const head = pi!.at[entry.id]!.entries[0]!;
      assert.equal(head.id, entry.id);
      assert.deepEqual(
        (head.messages as { role: string }[]).map((m) => m.role),
        ["system", "compactionSummary"],
      );
      for (const [leaf, projection] of Object.entries(pi!.at))
        assert.deepEqual(
          plain(buildContext(after.session, leaf)).entries.map((e) => ({
            id: e.entryId,
            type: e.type,
            messages: e.messages,
          })),
          projection.entries,
          `context at ${leaf}`,
        );
    });
  }
});
