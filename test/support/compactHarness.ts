/**
 * The shared setup of the Compact Branch tests: a loopback mock of the three provider surfaces, credentials in the
 * environment (and a ChatGPT login in a temporary pi agent dir), fixture copies, the CLI, and the next request the
 * real pi would send (the probe Blackmagic's contract is checked against). `useCompactHarness()` registers the hooks
 * in the calling `describe` and checks, when the suite ends, that no secret reached any output or file.
 */
import * as assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { getModel, streamSimple } from "@mariozechner/pi-ai";
import { convertToLlm, SessionManager } from "@mariozechner/pi-coding-agent";
import { run } from "../../src/cli/main.js";
import { OMP_FIXTURES, PI_FIXTURES, ROOT } from "./fixtures.js";
import { fakeCodexToken, type MockProvider, startMockProvider } from "./mockProvider.js";

/** The real Blackmagic rc.5 contract module (identity, active checkpoint, replay). */
export const contract = await import(
  pathToFileURL(join(ROOT, "node_modules", "@hypercarrier", "pi-openai-blackmagic-compact", "src", "contract.mjs")).href
);

export const API_KEY = "sk-test-SECRET-openai-0123456789";
const AZURE_KEY = "az-test-SECRET-azure-0123456789";
const ACCOUNT = "acct-SECRET-42";
export const TOKEN = fakeCodexToken(ACCOUNT);
const DEPLOYMENT = "gpt51-deploy";

export const S1 = PI_FIXTURES.find((f) => f.includes("d404"))!; // linear, tools, 19 entries
export const S3 = PI_FIXTURES.find((f) => f.includes("d565"))!; // two native compactions
export const V2 = PI_FIXTURES.find((f) => f.includes("legacy-v2") && f.includes("2b7d2294"))!;
export const TRUNCATED = PI_FIXTURES.find((f) => f.includes("pi-truncated-last-line"))!;
export const O1 = OMP_FIXTURES.find((f) => f.includes("d97d"))!;

export type Surface = "openai" | "azure" | "codex";

/**
 * What one compaction appended: exactly two lines, the compaction entry and Blackmagic's timeline entry (its child,
 * naming the method). Returns both records.
 */
export function appendedCheckpoint(before: Buffer, after: Buffer): { entry: any; timeline: any } {
  assert.ok(after.subarray(0, before.length).equals(before), "the old bytes are untouched");
  const lines = after.subarray(before.length).toString("utf8").split("\n");
  assert.equal(lines.length, 3, "exactly two new lines");
  const [entry, timeline] = [JSON.parse(lines[0]!), JSON.parse(lines[1]!)];
  assert.equal(entry.type, "compaction");
  assert.equal(timeline.type, "custom");
  assert.equal(timeline.customType, "pi-openai-blackmagic-compact/compaction-timeline/1");
  assert.equal(timeline.parentId, entry.id);
  assert.match(timeline.id, /^[0-9a-f]{8}$/);
  return { entry, timeline };
}

/** The last compaction entry of a file (the line before its timeline entry). */
export function lastCompaction(file: string): any {
  const lines = readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  return lines.filter((e) => e.type === "compaction").at(-1);
}

export function useCompactHarness() {
  let mock!: MockProvider;
  let dir!: string;
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
      for (const secret of [API_KEY, AZURE_KEY, TOKEN, ACCOUNT])
        assert.ok(!text.includes(secret), `a secret (${secret.slice(0, 8)}…) leaked`);
    }
    rmSync(dir, { recursive: true, force: true });
    process.env = savedEnv;
  });
  beforeEach(() => {
    mock.mode = "ok";
    mock.echoAllUsers = false;
    mock.answerUsage = null;
    mock.deployment = DEPLOYMENT;
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
  /** A new session file with `text`, last written an hour ago (not "busy"); `holdsSecret`: left out of the check. */
  const write = (text: string, holdsSecret = false) => {
    const file = join(dir, `s${++n}.jsonl`);
    writeFileSync(file, text);
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(file, past, past);
    if (!holdsSecret) files.push(file);
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
  const surfaceArgs = (p: Surface) => [
    "--provider",
    p,
    "--model",
    "gpt-5.1",
    "--base-url",
    base[p](),
    ...(p === "azure" ? ["--azure-resource", "myres", "--azure-deployment", DEPLOYMENT] : []),
  ];

  /** The next request pi would send on this branch, from the real pi-ai (the probe). */
  async function nextRequest(file: string, p: Surface) {
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

  return {
    get mock() {
      return mock;
    },
    get dir() {
      return dir;
    },
    copy,
    write,
    cli,
    base,
    surfaceArgs,
    nextRequest,
  };
}
