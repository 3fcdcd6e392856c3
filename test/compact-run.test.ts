// Compact branch end to end against a loopback mock of the three surfaces, through the CLI: the written checkpoint
// loads in the real pi SessionManager, replays under the real Blackmagic rc.5 contract, and every failure leaves the
// file byte-identical. No credential appears in a file or in any output.
import * as assert from "node:assert/strict";
import {
  appendFileSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { getModel, streamSimple } from "@mariozechner/pi-ai";
import { convertToLlm, SessionManager } from "@mariozechner/pi-coding-agent";
import { run } from "../src/cli/main.js";
import { buildContext } from "../src/core/context.js";
import { parseSession } from "../src/core/session.js";
import { compactBranch } from "../src/node/compact/run.js";
import { fakeCodexToken, type MockProvider, startMockProvider } from "./mockProvider.js";
import { OMP_FIXTURES, PI_FIXTURES, ROOT } from "./fixtures.js";
import { message } from "./builders.js";
import { jsonl, sleep } from "./helpers.js";

const contract = await import(
  pathToFileURL(join(ROOT, "node_modules", "@hypercarrier", "pi-openai-blackmagic-compact", "src", "contract.mjs")).href
);

const API_KEY = "sk-test-SECRET-openai-0123456789";
const AZURE_KEY = "az-test-SECRET-azure-0123456789";
const ACCOUNT = "acct-SECRET-42";
const TOKEN = fakeCodexToken(ACCOUNT);
const DEPLOYMENT = "gpt51-deploy";

const S1 = PI_FIXTURES.find((f) => f.includes("d404"))!; // linear, tools, 19 entries
const S3 = PI_FIXTURES.find((f) => f.includes("d565"))!; // two native compactions
const V2 = PI_FIXTURES.find((f) => f.includes("legacy-v2") && f.includes("2b7d2294"))!;
const TRUNCATED = PI_FIXTURES.find((f) => f.includes("pi-truncated-last-line"))!;
const O1 = OMP_FIXTURES.find((f) => f.includes("d97d"))!;

describe("compact branch against the mock provider", function () {
  this.timeout(60_000);
  let mock: MockProvider;
  let dir: string;
  const outputs: string[] = [];
  const files: string[] = [];
  const savedEnv = { ...process.env };

  before(async () => {
    mock = await startMockProvider({
      apiKey: API_KEY,
      azureKey: AZURE_KEY,
      codexToken: TOKEN,
      accountId: ACCOUNT,
      deployment: DEPLOYMENT,
    });
    dir = mkdtempSync(join(tmpdir(), "pi-compact-"));
    const agent = join(dir, "agent");
    mkdirSync(agent, { recursive: true });
    writeFileSync(
      join(agent, "auth.json"),
      JSON.stringify({
        "openai-codex": { type: "oauth", access: TOKEN, refresh: "r", expires: Date.now() + 3_600_000 },
      }),
    );
    process.env.OPENAI_API_KEY = API_KEY;
    process.env.AZURE_OPENAI_API_KEY = AZURE_KEY;
    process.env.PI_CODING_AGENT_DIR = agent;
    process.env.CODEX_HOME = join(dir, "no-codex");
  });
  after(async () => {
    await mock.close();
    // Nothing secret in any output or any file written by any test.
    for (const text of [...outputs, ...files.map((f) => readFileSync(f, "utf8"))]) {
      for (const secret of [API_KEY, AZURE_KEY, TOKEN, ACCOUNT, "Bearer "])
        assert.ok(!text.includes(secret), `a secret (${secret.slice(0, 8)}…) leaked`);
    }
    rmSync(dir, { recursive: true, force: true });
    process.env = savedEnv;
  });
  beforeEach(() => {
    mock.mode = "ok";
  });

  /** A copy of a fixture, last written an hour ago (not "busy"). */
  let n = 0;
  const copy = (src: string) => {
    const file = join(dir, `s${++n}.jsonl`);
    copyFileSync(src, file);
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(file, past, past);
    files.push(file);
    return file;
  };
  const cli = async (...args: string[]) => {
    let out = "";
    let err = "";
    const code = await run(["compact", ...args], { out: (t) => (out += t + "\n"), err: (t) => (err += t + "\n") });
    outputs.push(out, err);
    return { code, out, err, json: out.trim().startsWith("{") ? JSON.parse(out) : undefined };
  };
  const base = {
    openai: () => `${mock.url}/v1`,
    azure: () => `${mock.url}/openai/v1`,
    codex: () => `${mock.url}/backend-api`,
  };
  const surfaceArgs = (p: "openai" | "azure" | "codex") => [
    "--provider",
    p,
    "--model",
    "gpt-5.1",
    "--base-url",
    base[p](),
    ...(p === "azure" ? ["--azure-resource", "myres", "--azure-deployment", DEPLOYMENT] : []),
  ];

  /** The next request pi would send on this branch, from the real pi-ai (the probe). */
  async function nextRequest(file: string, p: "openai" | "azure" | "codex") {
    const sm = SessionManager.open(file);
    const messages = [
      ...sm.buildSessionContext().messages,
      { role: "user", content: [{ type: "text", text: "And now?" }], timestamp: Date.now() },
    ];
    const provider = p === "openai" ? "openai" : p === "azure" ? "azure-openai-responses" : "openai-codex";
    const model = {
      ...(getModel(provider as never, "gpt-5.1" as never) as object),
      ...(p === "azure" ? { baseUrl: "https://myres.openai.azure.com/openai/v1" } : {}),
    } as any;
    let payload: any;
    process.env.AZURE_OPENAI_DEPLOYMENT_NAME_MAP = `gpt-5.1=${DEPLOYMENT}`;
    const stream = streamSimple(
      model,
      { systemPrompt: "You are pi, a coding agent.", messages: convertToLlm(messages as never) as never },
      {
        apiKey: p === "codex" ? TOKEN : "probe",
        sessionId: sm.getSessionId(),
        onPayload: (x: unknown) => {
          payload = structuredClone(x);
          throw new Error("probe");
        },
      } as never,
    );
    for await (const _ of stream) {
      // drain
    }
    const identity = contract.identifySurface({
      provider,
      baseUrl: model.baseUrl,
      api: model.api,
      model: "gpt-5.1",
      deployment: p === "azure" ? DEPLOYMENT : undefined,
    });
    return { sm, payload, identity };
  }

  for (const p of ["openai", "azure", "codex"] as const) {
    it(`${p}: writes one checkpoint line that pi loads and Blackmagic rc.5 replays`, async () => {
      const file = copy(S1);
      const before = readFileSync(file);
      const r = await cli(file, ...surfaceArgs(p), "--keep-recent-tokens", "120", "--yes", "--json");
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(mock.violations, []);
      assert.equal(r.json.state, "remote_applied");
      const after = readFileSync(file);
      assert.ok(after.subarray(0, before.length).equals(before), "the old bytes are untouched");
      const added = after.subarray(before.length).toString("utf8");
      assert.equal(added.split("\n").length, 2, "exactly one new line");
      const entry = JSON.parse(added);
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
      const before = mock.summaries;
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
      assert.deepEqual(mock.violations, []);
      // pi's split-turn rule: a second request summarizes the prefix of the turn that is cut.
      assert.equal(mock.summaries, before + (plan.json.plan.isSplitTurn ? 2 : 1));
      const entry = JSON.parse(readFileSync(file, "utf8").trimEnd().split("\n").at(-1)!);
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
    mock.requests.length = 0;
    const r = await cli(file, ...surfaceArgs("codex"), "--keep-recent-tokens", "120", "--yes", "--json");
    assert.equal(r.code, 0, r.err);
    const req = mock.requests.at(-1)!;
    assert.equal(req.body.instructions, "You are a helpful assistant.");
    assert.equal(req.body.tool_choice, "auto");
    const entry = JSON.parse(readFileSync(file, "utf8").trimEnd().split("\n").at(-1)!);
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
    assert.equal(after.session.leafId, r.json.entryId);
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
      mock.mode = mode;
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

  it("cancel during a slow call: timeout, nothing written", async () => {
    const file = copy(S1);
    const before = readFileSync(file);
    mock.mode = "slow";
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
    const writer = join(dir, "agent-writer.cjs");
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
    const busy = join(dir, "busy.jsonl");
    copyFileSync(S1, busy);
    let r = await cli(busy, ...surfaceArgs("openai"), "--yes", "--json");
    assert.equal(r.code, 3);
    assert.equal(r.json.failureClass, "session_busy");
    const omp = copy(O1);
    const lock = join(dir, `.${omp.split("/").pop()}.lock`);
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
    mock.mode = 500;
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
    const entry = JSON.parse(readFileSync(file, "utf8").trimEnd().split("\n").at(-1)!);
    assert.equal(entry.details.state, "local_fallback");
    assert.equal(entry.details.checkpoint, undefined);
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
