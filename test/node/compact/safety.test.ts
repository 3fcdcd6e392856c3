// Compact branch fails safe: cancellation, concurrent writers, refusals, the readable-only fallback, the dry run and
// the transport rules. Every failure leaves the file byte-identical.
import * as assert from "node:assert/strict";
import { appendFileSync, copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { parseSession } from "../../../src/core/session/index.js";
import { compactBranch } from "../../../src/node/compact/run.js";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { message } from "../../support/builders.js";
import { jsonl, sleep } from "../../support/helpers.js";
import {
  API_KEY,
  appendedCheckpoint,
  O1,
  S1,
  S3,
  TOKEN,
  TRUNCATED,
  useCompactHarness,
  V2,
} from "../../support/compactHarness.js";

describe("compact branch: failures leave the file as it was", function () {
  this.timeout(60_000);
  const h = useCompactHarness();
  const { copy, cli, surfaceArgs, base } = h;

  it("cancel during a slow call: timeout, nothing written", async () => {
    const file = copy(S1);
    const before = readFileSync(file);
    h.mock.mode = "slow";
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const r = await compactBranch({
      file,
      provider: "codex",
      model: "gpt-5.1",
      baseUrl: base.codex(),
      keepRecentTokens: 120,
      credentials: { codexToken: TOKEN },
      signal: controller.signal,
    });
    assert.equal(r.state, "failed");
    assert.equal(r.state === "failed" && r.failureClass, "timeout");
    assert.ok(readFileSync(file).equals(before));
  });

  it("a concurrent append during the provider call → session_changed, never an interleaved line", async () => {
    const file = copy(S1);
    const line = jsonl(message("agent001", "x", "user", "typed meanwhile", { time: new Date().toISOString() }));
    const before = readFileSync(file);
    const r = await compactBranch({
      file,
      provider: "openai",
      model: "gpt-5.1",
      baseUrl: base.openai(),
      keepRecentTokens: 120,
      credentials: { apiKey: API_KEY },
      beforeRecheck: () => appendFileSync(file, line),
    });
    assert.equal(r.state, "failed");
    assert.equal(r.state === "failed" && r.failureClass, "session_changed");
    assert.equal(readFileSync(file, "utf8"), before.toString("utf8") + line);
  });

  it("an agent appends while we compact: session_changed or a correct append, never interleaved", async () => {
    const writer = join(h.dir, "agent-writer.cjs");
    // Like pi and OMP: one appendFileSync per line.
    writeFileSync(
      writer,
      `const fs = require("node:fs");
const [f, leaf] = process.argv.slice(2);
let p = leaf, n = 0;
for (;;) {
  const id = (0x20000000 + n++).toString(16);
  const message = { role: "user", content: "x".repeat(200 + (n % 900)) };
  const timestamp = new Date().toISOString();
  fs.appendFileSync(f, JSON.stringify({ type: "message", id, parentId: p, timestamp, message }) + "\\n");
  p = id;
}`,
    );
    const outcomes: Record<string, number> = {};
    for (let t = 0; t < 25; t++) {
      const file = copy(S1);
      const leaf = parseSession(file, readFileSync(file));
      assert.ok(leaf.ok);
      const child = (await import("node:child_process")).spawn(process.execPath, [writer, file, leaf.session.leafId!], {
        stdio: "ignore",
      });
      // Start once the agent is writing (or, one time in five, just before it starts).
      const size = readFileSync(file).length;
      if (t % 5 !== 0) for (let i = 0; i < 200 && readFileSync(file).length === size; i++) await sleep(5);
      const r = await compactBranch({
        file,
        provider: "openai",
        model: "gpt-5.1",
        baseUrl: base.openai(),
        keepRecentTokens: 120,
        credentials: { apiKey: API_KEY },
        busyWindowMs: 0,
      });
      child.kill("SIGKILL");
      await new Promise((res) => child.once("exit", res));
      const key = r.state === "written" ? "written" : `${r.state}:${"failureClass" in r ? r.failureClass : ""}`;
      outcomes[key] = (outcomes[key] ?? 0) + 1;
      assert.ok(
        r.state === "written" ||
          (r.state === "failed" && r.failureClass === "session_changed") ||
          r.state === "refused",
        JSON.stringify(r),
      );
      const lines = readFileSync(file, "utf8").split("\n");
      lines.pop(); // the writer may have been killed mid-line
      for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), "every complete line is one whole record");
      const ours = lines.filter(
        (l) => l.includes('"type":"compaction"') && l.includes("pi-openai-blackmagic-compact/1"),
      );
      assert.equal(ours.length, r.state === "written" ? 1 : 0);
    }
    assert.ok((outcomes["failed:session_changed"] ?? 0) > 0, `outcomes: ${JSON.stringify(outcomes)}`);
  });

  it("refuses, file unchanged: busy, OMP lock, version 2, truncated tail, branch ending in compaction", async () => {
    const busy = join(h.dir, "busy.jsonl");
    copyFileSync(S1, busy);
    let r = await cli(busy, ...surfaceArgs("openai"), "--yes", "--json");
    assert.equal(r.code, 3);
    assert.equal(r.json.failureClass, "session_busy");
    const omp = copy(O1);
    const lock = join(h.dir, `.${omp.split("/").pop()}.lock`);
    writeFileSync(lock, "1:1\n");
    r = await cli(omp, ...surfaceArgs("openai"), "--yes", "--json");
    assert.equal(r.json.failureClass, "session_busy");
    rmSync(lock);
    for (const [src, reason] of [
      [V2, /version 2/],
      [TRUNCATED, /last line is incomplete/],
    ] as const) {
      const f = copy(src);
      const b = readFileSync(f);
      r = await cli(f, ...surfaceArgs("openai"), "--yes", "--json");
      assert.equal(r.code, 3);
      assert.match(r.json.reason, reason);
      assert.ok(readFileSync(f).equals(b));
    }
    const s3 = copy(S3);
    const leaf = parseSession(s3, readFileSync(s3));
    assert.ok(leaf.ok);
    r = await cli(s3, ...surfaceArgs("openai"), "--leaf", leaf.session.compactions[1]!.id, "--yes", "--json");
    assert.match(r.json.reason, /already ends in a compaction/);
  });

  it("--write-fallback after a failure writes a readable-only compaction (local_fallback) that pi loads", async () => {
    const file = copy(S1);
    const before = readFileSync(file);
    h.mock.mode = 500;
    const r = await cli(
      file,
      ...surfaceArgs("openai"),
      "--keep-recent-tokens",
      "120",
      "--yes",
      "--json",
      "--write-fallback",
    );
    assert.equal(r.code, 0, r.err);
    assert.equal(r.json.state, "local_fallback");
    assert.equal(r.json.failureClass, "remote_error");
    const { entry, timeline } = appendedCheckpoint(before, readFileSync(file));
    assert.equal(entry.details.state, "local_fallback");
    assert.equal(entry.details.checkpoint, undefined);
    // Blackmagic's fallback shape: pi's file lists at the top of details; the timeline names the failure.
    assert.ok(Array.isArray(entry.details.readFiles) && Array.isArray(entry.details.modifiedFiles));
    assert.equal(entry.details.local, undefined);
    assert.deepEqual(timeline.data, { method: "local_fallback", failureClass: "remote_error" });
    assert.equal(SessionManager.open(file).buildSessionContext().messages[0]!.role, "compactionSummary");
  });

  it("--dry-run (and no --yes) prints the plan and the request body without secrets, and writes nothing", async () => {
    const file = copy(S1);
    const before = readFileSync(file);
    const r = await cli(file, ...surfaceArgs("codex"), "--keep-recent-tokens", "120", "--dry-run");
    assert.equal(r.code, 0);
    assert.match(r.out, /kept from/);
    assert.match(r.out, /"compaction_trigger"/);
    const noYes = await cli(file, ...surfaceArgs("openai"), "--keep-recent-tokens", "120", "--json");
    assert.equal(noYes.code, 3);
    assert.equal(noYes.json.state, "planned");
    assert.ok(readFileSync(file).equals(before));
  });

  it("transport: https to the official host or http on loopback only; no credentials → auth_unavailable", async () => {
    const file = copy(S1);
    for (const url of [
      "https://evil.example/v1",
      "http://10.0.0.1/v1",
      "http://api.openai.com/v1",
      "https://user:pw@api.openai.com/v1",
    ]) {
      const r = await cli(file, "--provider", "openai", "--model", "gpt-5.1", "--base-url", url, "--yes", "--json");
      assert.equal(r.code, 3, url);
      assert.match(r.json.reason, /refused|credentials/);
    }
    delete process.env.OPENAI_API_KEY;
    try {
      const r = await cli(file, ...surfaceArgs("openai"), "--keep-recent-tokens", "120", "--yes", "--json");
      assert.equal(r.json.failureClass, "auth_unavailable");
    } finally {
      process.env.OPENAI_API_KEY = API_KEY;
    }
  });
});
