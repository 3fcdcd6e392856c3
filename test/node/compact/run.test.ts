// Compact branch end to end against a loopback mock of the three surfaces, through the CLI: the written checkpoint
// loads in the real pi SessionManager and replays under the real Blackmagic rc.5 contract. No credential appears
// in a file or in any output (checked by the harness).
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { buildContext } from "../../../src/core/context/index.js";
import { parseSession } from "../../../src/core/session/index.js";

import type { MockProvider } from "../../support/mockProvider.js";

import {
  appendedCheckpoint,
  contract,
  lastCompaction,
  O1,
  S1,
  useCompactHarness,
} from "../../support/compactHarness.js";

describe("compact branch against the mock provider", function () {
  this.timeout(60_000);
  const h = useCompactHarness();
  const { copy, cli, surfaceArgs, nextRequest } = h;

  for (const p of ["openai", "azure", "codex"] as const) {
    it(`${p}: writes one checkpoint and its timeline entry that pi loads and Blackmagic rc.5 replays`, async () => {
      const file = copy(S1);
      const before = readFileSync(file);
      const r = await cli(file, ...surfaceArgs(p), "--keep-recent-tokens", "120", "--yes", "--json");
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(h.mock.violations, []);
      assert.equal(r.json.state, "remote_applied");
      const after = readFileSync(file);
      const { entry, timeline } = appendedCheckpoint(before, after);
      assert.deepEqual(timeline.data, { method: p === "codex" ? "remote_codex_v2" : "remote_responses_v1" });
      assert.equal(entry.id, r.json.entryId);
      assert.match(entry.id, /^[0-9a-f]{8}$/);
      assert.equal(entry.fromHook, true);
      assert.equal(
        entry.details.identity.endpoint,
        {
          openai: "https://api.openai.com/v1",
          azure: "https://myres.openai.azure.com/openai/v1",
          codex: "https://chatgpt.com/backend-api",
        }[p],
      );
      assert.equal(entry.details.replay.namespace, "pi-openai-blackmagic-compact/1");
      assert.ok(entry.summary.length > 100);

      // Real pi: loads, and its context opens with our summary followed by exactly the kept messages.
      const { sm, payload, identity } = await nextRequest(file, p);
      const ctx = sm.buildSessionContext();
      assert.equal(ctx.messages[0]!.role, "compactionSummary");
      assert.equal((ctx.messages[0] as any).summary, entry.summary);
      const ours = parseSession(file, after);
      assert.ok(ours.ok);
      const kept = buildContext(ours.session).messages.slice(1);
      assert.deepEqual(JSON.parse(JSON.stringify(ctx.messages.slice(1))), JSON.parse(JSON.stringify(kept)));

      // Blackmagic rc.5: the latest compaction on the branch is a valid checkpoint, the identity matches, and the
      // hashed segment occurs exactly once in the next request.
      const branch = sm.getBranch();
      assert.equal(contract.latestActiveCompaction(branch)?.id, entry.id);
      assert.equal(contract.identityMatches(entry.details, identity), true);
      const replaced = contract.replaceOneHashSegment(
        payload.input,
        entry.details.replay.replacedItemHashes,
        entry.details.checkpoint.artifact,
      );
      assert.ok(replaced, "exactly one contiguous match");
      const tail = replaced.slice(-1)[0];
      assert.equal(tail.role, "user", "the new turn follows the artifact");
      if (p !== "codex")
        assert.equal(replaced[0].role, "developer", "the system item stays in place (conversation scope)");
      assert.ok(JSON.stringify(replaced).includes(entry.details.checkpoint.artifact.at(-1).encrypted_content));

      // A branch taken before the checkpoint does not replay it.
      sm.branch(entry.details.lineage.firstKeptEntryId);
      assert.equal(contract.latestActiveCompaction(sm.getBranch()), undefined);
    });
  }

  for (const p of ["openai", "codex"] as const) {
    it(`${p}: --summary llm: pi's prompt via the same provider; the plan shows the cost; replay matches`, async () => {
      const file = copy(S1);
      const plan = await cli(
        file,
        ...surfaceArgs(p),
        "--keep-recent-tokens",
        "120",
        "--summary",
        "llm",
        "--dry-run",
        "--json",
      );
      assert.equal(plan.json.plan.summaryKind, "llm");
      assert.ok(plan.json.plan.summaryCost.inputTokens > 100);
      assert.ok(plan.json.plan.summaryCost.maxCost > 0, "gpt-5.1 is priced in pi-ai's table");
      const text = await cli(file, ...surfaceArgs(p), "--keep-recent-tokens", "120", "--summary", "llm", "--dry-run");
      assert.match(
        text.out,
        /readable summary {2}LLM with pi's prompt: ~\d+ input tokens, up to \d+ output tokens, at most \$\d/,
      );
      const before = h.mock.summaries;
      const r = await cli(
        file,
        ...surfaceArgs(p),
        "--keep-recent-tokens",
        "120",
        "--summary",
        "llm",
        "--yes",
        "--json",
      );
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(h.mock.violations, []);
      // pi's split-turn rule: a second request summarizes the prefix of the turn that is cut.
      assert.equal(h.mock.summaries, before + (plan.json.plan.isSplitTurn ? 2 : 1));
      const entry = lastCompaction(file);
      assert.match(
        entry.summary,
        /^## Goal\nMOCK LLM SUMMARY \d+(\n\n---\n\n\*\*Turn Context \(split turn\):\*\*\n\n## Goal\nMOCK LLM SUMMARY \d+)?\n\n<read-files>/,
      );
      assert.equal(entry.details.producer.summary, "llm");
      const { sm, payload } = await nextRequest(file, p);
      assert.equal((sm.buildSessionContext().messages[0] as any).summary, entry.summary);
      assert.ok(
        contract.replaceOneHashSegment(
          payload.input,
          entry.details.replay.replacedItemHashes,
          entry.details.checkpoint.artifact,
        ),
      );
    });
  }

  it("codex: pi-ai's Codex body with compaction_trigger last; the artifact keeps recent user messages", async () => {
    const file = copy(S1);
    h.mock.requests.length = 0;
    const r = await cli(file, ...surfaceArgs("codex"), "--keep-recent-tokens", "120", "--yes", "--json");
    assert.equal(r.code, 0, r.err);
    const req = h.mock.requests.at(-1)!;
    assert.equal(req.body.instructions, "You are a helpful assistant.");
    assert.equal(req.body.tool_choice, "auto");
    const entry = lastCompaction(file);
    assert.equal(entry.details.checkpoint.retention, "recent_real_user_messages_64000_plus_canonical_provider_window");
    assert.ok(entry.details.checkpoint.artifact.slice(0, -1).every((i: any) => i.role === "user"));
  });

  it("OMP: fromExtension, and the file reads under OMP's rules with our summary first", async () => {
    const file = copy(O1);
    const r = await cli(file, ...surfaceArgs("openai"), "--keep-recent-tokens", "60", "--yes", "--json");
    assert.equal(r.code, 0, r.err);
    const after = parseSession(file, readFileSync(file));
    assert.ok(after.ok);
    assert.equal(after.session.flavor, "omp");
    const entry = after.session.byId.get(r.json.entryId)!;
    assert.equal(entry.data.fromExtension, true);
    assert.equal(after.session.byId.get(after.session.leafId!)!.parentId, r.json.entryId, "the timeline entry follows");
    assert.equal(buildContext(after.session).messages[0]!.role, "compactionSummary");
    assert.equal(after.session.name, "mathkit overview", "the title slot is untouched");
  });

  const failures: [string, MockProvider["mode"], string, ("openai" | "azure" | "codex")?][] = [
    ["401", 401, "auth"],
    ["403", 403, "auth"],
    ["404", 404, "model_or_protocol"],
    ["422", 422, "model_or_protocol"],
    ["500", 500, "remote_error"],
    ["malformed JSON", "malformed", "remote_error"],
    ["empty output", "empty", "remote_error"],
    ["two compaction items", "two", "remote_error"],
    ["compaction not last", "notLast", "remote_error"],
    ["slow (timeout)", "slow", "timeout"],
    ["codex: truncated SSE stream", "truncated", "remote_error", "codex"],
    ["codex: 401", 401, "auth", "codex"],
    ["codex: two compaction items", "two", "remote_error", "codex"],
    ["azure: 422", 422, "model_or_protocol", "azure"],
  ];
  for (const [name, mode, failureClass, p = "openai"] of failures) {
    it(`failure ${name} → ${failureClass}, file byte-identical`, async () => {
      const file = copy(S1);
      const before = readFileSync(file);
      h.mock.mode = mode;
      const r = await cli(
        file,
        ...surfaceArgs(p),
        "--keep-recent-tokens",
        "120",
        "--yes",
        "--json",
        "--timeout-ms",
        "400",
      );
      assert.equal(r.code, 3);
      assert.equal(r.json.state, "failed");
      assert.equal(r.json.failureClass, failureClass);
      assert.ok(readFileSync(file).equals(before));
    });
  }
});
