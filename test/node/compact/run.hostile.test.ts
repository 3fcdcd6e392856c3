// Hardening of Compact Branch (issue #14, items 1-4): no redirect is followed, one deadline covers the whole call and
// a cap bounds the answer, our writers exclude each other across processes, and the secret guard looks for the
// credentials in use, not for words. Every failure leaves the file byte-identical.
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { header, message } from "../../support/builders.js";
import { compactBranch } from "../../../src/node/compact/run.js";
import { API_KEY, appendedCheckpoint, O1, S1, type Surface, useCompactHarness } from "../../support/compactHarness.js";
import { ROOT } from "../../support/fixtures.js";
import { jsonl } from "../../support/helpers.js";

const SURFACES: Surface[] = ["openai", "azure", "codex"];

/** A server on another loopback address that records every request: where a followed redirect would land. */
async function trap(): Promise<{ url: string; requests: IncomingMessage[]; close: () => Promise<void> }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.2", () => r()));
  return {
    url: `http://127.0.0.2:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe("hardening: Compact Branch", function () {
  this.timeout(60_000);
  const h = useCompactHarness();
  const { copy, cli, surfaceArgs } = h;

  for (const status of [307, 302]) {
    for (const p of SURFACES) {
      it(`${p}: a ${status} redirect to another host fails naming the status; nothing reaches the target`, async () => {
        const target = await trap();
        try {
          h.mock.mode = "redirect";
          h.mock.redirectStatus = status;
          h.mock.redirectTo = `${target.url}/v1/responses/compact`;
          const file = copy(S1);
          const before = readFileSync(file);
          const r = await cli(file, ...surfaceArgs(p), "--keep-recent-tokens", "120", "--yes", "--json");
          assert.equal(r.code, 3, r.out + r.err);
          assert.equal(r.json.failureClass, "remote_error");
          assert.match(r.json.message, new RegExp(`HTTP ${status}`));
          assert.equal(target.requests.length, 0, "no request followed the redirect");
          assert.ok(readFileSync(file).equals(before), "the file is byte-identical");
        } finally {
          await target.close();
        }
      });
    }
  }

  for (const p of SURFACES) {
    it(`${p}: an answer that trickles forever ends at the deadline as timeout`, async function () {
      this.timeout(20_000);
      h.mock.mode = "trickle";
      const file = copy(S1);
      const before = readFileSync(file);
      const t0 = Date.now();
      const r = await cli(
        file,
        ...surfaceArgs(p),
        "--keep-recent-tokens",
        "120",
        "--timeout-ms",
        "1500",
        "--yes",
        "--json",
      );
      assert.equal(r.json.failureClass, "timeout", r.out + r.err);
      assert.ok(Date.now() - t0 < 15_000);
      assert.ok(readFileSync(file).equals(before));
    });

    it(`${p}: an answer over 64 MB is refused as remote_error, and reading stops there`, async () => {
      h.mock.mode = "huge";
      h.mock.hugeBytes = 200 * 1024 * 1024;
      const file = copy(S1);
      const before = readFileSync(file);
      const r = await cli(file, ...surfaceArgs(p), "--keep-recent-tokens", "120", "--yes", "--json");
      assert.equal(r.json.failureClass, "remote_error", r.out + r.err);
      assert.match(r.json.message, /64 MB/);
      // What was sent before the connection closed: the cap plus what socket buffers hold.
      assert.ok(h.mock.bytesSent <= 80 * 1024 * 1024, `${h.mock.bytesSent} bytes were sent`);
      assert.ok(readFileSync(file).equals(before));
    });
  }

  for (const p of SURFACES) {
    for (const mode of ["deep", "deepError"] as const) {
      const what = mode === "deep" ? "an answer" : "an error body";
      it(`${p}: ${what} nested 100,000 levels deep is a remote_error, no crash, file unchanged`, async () => {
        h.mock.mode = mode;
        const file = copy(S1);
        const before = readFileSync(file);
        const r = await cli(file, ...surfaceArgs(p), "--keep-recent-tokens", "120", "--yes", "--json");
        assert.equal(r.code, 3, r.out + r.err);
        assert.ok(!/Maximum call stack|RangeError|internal error/.test(r.out + r.err), (r.out + r.err).slice(0, 300));
        assert.equal(r.json.failureClass, "remote_error", r.out);
        assert.match(r.json.message, mode === "deep" ? /nested deeper than 1000 levels/ : /HTTP 400/);
        assert.ok(readFileSync(file).equals(before));
      });
    }
  }

  for (const fixture of ["pi", "omp"] as const) {
    it(`three compactions of one ${fixture} file at once: one checkpoint, the others busy or changed`, async () => {
      h.mock.delayMs = 300;
      try {
        for (let trial = 0; trial < 3; trial++) {
          const file = copy(fixture === "pi" ? S1 : O1);
          const before = readFileSync(file);
          const results = await Promise.all(
            [0, 1, 2].map(() =>
              compactBranch({
                file,
                provider: "openai",
                model: "gpt-5.1",
                baseUrl: h.base.openai(),
                keepRecentTokens: fixture === "pi" ? 120 : 60,
                credentials: { apiKey: API_KEY },
              }),
            ),
          );
          const written = results.filter((r) => r.state === "written");
          assert.equal(
            written.length,
            1,
            JSON.stringify(results.map((r) => [r.state, "failureClass" in r && r.failureClass])),
          );
          for (const r of results.filter((x) => x.state !== "written"))
            assert.ok(
              "failureClass" in r && ["session_busy", "session_changed"].includes(r.failureClass ?? ""),
              JSON.stringify(r),
            );
          appendedCheckpoint(before, readFileSync(file));
        }
      } finally {
        h.mock.delayMs = 0;
      }
    });
  }

  it("three CLI processes compact one pi file at once: one checkpoint, the others busy or changed", async function () {
    this.timeout(120_000);
    h.mock.delayMs = 1500;
    try {
      for (let trial = 0; trial < 3; trial++) {
        const file = copy(S1);
        const before = readFileSync(file);
        const args = [file, ...surfaceArgs("openai"), "--keep-recent-tokens", "120", "--yes", "--json"];
        const runs = await Promise.all(
          [0, 1, 2].map(
            () =>
              new Promise<{ code: number | null; out: string }>((resolve) => {
                const child = spawn(
                  process.execPath,
                  ["--import", "tsx", join(ROOT, "src", "cli", "bin.ts"), "compact", ...args],
                  { env: process.env, stdio: ["ignore", "pipe", "pipe"] },
                );
                let out = "";
                child.stdout.on("data", (d) => (out += d));
                child.on("exit", (code) => resolve({ code, out }));
              }),
          ),
        );
        const results = runs.map((r) => JSON.parse(r.out));
        const written = results.filter((r) => r.state === "remote_applied");
        assert.equal(written.length, 1, JSON.stringify(results));
        for (const r of results.filter((x) => x.state !== "remote_applied"))
          assert.ok(["session_busy", "session_changed"].includes(r.failureClass), JSON.stringify(r));
        appendedCheckpoint(before, readFileSync(file));
      }
    } finally {
      h.mock.delayMs = 0;
    }
  });

  it("a prompt about the Authorization: Bearer header compacts; words are not credentials", async () => {
    const file = h.write(
      jsonl(
        header({ id: "bearer", cwd: "/p" }),
        message("u1", null, "user", "Add the Authorization: Bearer header to every request"),
        message("a1", "u1", "assistant", 'Done: headers["Authorization"] = `Bearer ${token}` in client.ts.'),
        message("u2", "a1", "user", "Thanks. Now the tests."),
        message("a2", "u2", "assistant", "Tests added."),
      ),
    );
    const r = await cli(file, ...surfaceArgs("openai"), "--keep-recent-tokens", "1", "--yes", "--json");
    assert.equal(r.code, 0, r.out + r.err);
    assert.equal(r.json.state, "remote_applied");
  });

  it("a credential in the conversation is refused before any request is sent", async () => {
    const file = h.write(
      jsonl(
        header({ id: "leak", cwd: "/p" }),
        message("u1", null, "user", `my key is ${API_KEY}, use it`),
        message("a1", "u1", "assistant", "I will not store it."),
        message("u2", "a1", "user", "ok"),
        message("a2", "u2", "assistant", "ok"),
      ),
      true,
    );
    const before = readFileSync(file);
    const requests = h.mock.requests.length;
    const r = await cli(file, ...surfaceArgs("openai"), "--keep-recent-tokens", "1", "--yes", "--json");
    assert.equal(r.code, 3);
    assert.equal(h.mock.requests.length, requests, "nothing was sent");
    assert.match(r.json.reason ?? r.json.message, /credential/);
    assert.ok(readFileSync(file).equals(before));
  });

  for (const p of SURFACES) {
    it(`${p}: a credential-shaped value the answer introduced is refused, file unchanged`, async () => {
      // OpenAI and Azure echo it in an answer item; Codex's answer is the compaction item only, so it comes back in
      // the LLM summary (which is written into the file too).
      h.mock.echo =
        p === "codex"
          ? "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlc2lnbmF0dXJl"
          : "sk-proj-abcdefghijklmnopqrstuvwxyz0123";
      try {
        const file = copy(S1);
        const before = readFileSync(file);
        const summary = p === "codex" ? ["--summary", "llm"] : [];
        const r = await cli(file, ...surfaceArgs(p), "--keep-recent-tokens", "120", ...summary, "--yes", "--json");
        assert.equal(r.code, 3, r.out);
        assert.match(r.json.message, /credential/);
        assert.ok(!r.out.includes(h.mock.echo), "the value itself is not printed");
        assert.ok(readFileSync(file).equals(before));
      } finally {
        h.mock.echo = "";
      }
    });
  }
});
