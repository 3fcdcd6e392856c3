// "Compact Branch…" in the real VS Code, against the loopback mock provider started inside the extension host.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import type { RowNode } from "../../src/extension/tree/index.js";
import { fakeCodexToken, type MockProvider, startMockProvider } from "../support/mockProvider.js";
import { waitFor } from "../support/helpers.js";
import { stubUi } from "./stubs.js";
import { piSlug } from "../../src/core/slug.js";
import { activateExtension } from "./harness.js";

const HOME = process.env.PI_SESSIONS_FIXTURE_HOME ?? "";
const PI = path.join(HOME, ".pi", "agent", "sessions");
const PROJ = path.join(PI, piSlug(path.join(HOME, "src", "proj")));
const file = (part: string) =>
  path.join(
    PROJ,
    fs.readdirSync(PROJ).find((f) => f.includes(part))!,
  );
const KEY = "sk-it-SECRET-0123456789abcdef";
const AZURE_KEY = "az-it-SECRET-0123456789abcdef";
const ACCOUNT = "acct-it-SECRET";
const TOKEN = fakeCodexToken(ACCOUNT);

suite("Compact Branch in a real VS Code", () => {
  let api: PiSessionsApi;
  let mock: MockProvider;
  const config = () => vscode.workspace.getConfiguration("piSessions.compaction");
  /** The user types the key into the input box (the only way a key gets in). */
  const setKey = async (provider: "openai" | "azure", key: string) => {
    const ui = stubUi({ input: key });
    try {
      assert.equal(await vscode.commands.executeCommand("piSessions.setApiKey", provider), true);
    } finally {
      ui.restore();
    }
  };
  /** Compact Branch with the user answering the confirmation with `modal` ("Compact", or dismissing it). */
  const compactCommand = async (target: unknown, args: Record<string, unknown>, modal: string | undefined) => {
    const ui = stubUi({ modal });
    try {
      const result = await vscode.commands.executeCommand<{ state: string; entryId: string } | undefined>(
        "piSessions.compactBranch",
        target,
        args,
      );
      return { result, shown: ui.shown };
    } finally {
      ui.restore();
    }
  };

  suiteSetup(async () => {
    api = await activateExtension();
    mock = await startMockProvider({
      apiKey: KEY,
      azureKey: AZURE_KEY,
      codexToken: TOKEN,
      accountId: ACCOUNT,
      deployment: "gpt51-deploy",
    });
    await config().update("azureResource", "myres", vscode.ConfigurationTarget.Global);
    await config().update("azureDeployment", "gpt51-deploy", vscode.ConfigurationTarget.Global);
    await setKey("azure", AZURE_KEY);
    await config().update("keepRecentTokens", 30, vscode.ConfigurationTarget.Global);
    await setKey("openai", KEY);
    fs.writeFileSync(
      path.join(HOME, ".pi", "agent", "auth.json"),
      JSON.stringify({
        "openai-codex": { type: "oauth", access: TOKEN, refresh: "r", expires: Date.now() + 3_600_000 },
      }),
    );
  });

  suiteTeardown(async () => {
    for (const k of ["keepRecentTokens", "azureResource", "azureDeployment"])
      await config().update(k, undefined, vscode.ConfigurationTarget.Global);
    await config().update("baseUrl", undefined, vscode.ConfigurationTarget.Global);
    await mock.close();
  });

  const compact = async (target: string, provider: "openai" | "azure" | "codex", baseUrl: string) => {
    const past = new Date(Date.now() - 3_600_000);
    fs.utimesSync(target, past, past);
    await config().update("baseUrl", baseUrl, vscode.ConfigurationTarget.Global);
    const el = await api.tree.sessionElementFor(target);
    const before = fs.readFileSync(target);
    const { result, shown } = await compactCommand(
      el,
      { provider, model: "gpt-5.1", summary: provider === "codex" ? "llm" : "extractive" },
      "Compact",
    );
    assert.ok(
      shown.some((d) => d.modal && d.text.startsWith("Compact ")),
      "the confirmation was shown",
    );
    assert.deepEqual(mock.violations, []);
    assert.equal(result?.state, "written");
    const after = fs.readFileSync(target);
    assert.ok(after.subarray(0, before.length).equals(before), "appended only");
    const added = after.subarray(before.length).toString("utf8").trimEnd().split("\n");
    assert.equal(added.length, 2, "the compaction and its timeline entry");
    const entry = JSON.parse(added[0]!);
    assert.equal(entry.id, result!.entryId);
    assert.equal(JSON.parse(added[1]!).parentId, entry.id);
    for (const secret of [KEY, AZURE_KEY, TOKEN, ACCOUNT, "Bearer "])
      assert.ok(!after.includes(secret), "no credential in the file");
    // The tree shows the new compaction node, and the checkpoint inspector reads it as the active checkpoint.
    const row = await waitFor("the new compaction row", async () => {
      const found = el && el.kind === "session" ? await api.tree.entryElementFor(el, entry.id) : undefined;
      return found && found.kind === "row" && found.item.id === entry.id ? (found as RowNode) : undefined;
    });
    const item = api.tree.getTreeItem(row);
    assert.match(String(item.label), /^Compaction · /);
    const surface = { openai_api: "OpenAI", azure_openai: "Azure", chatgpt_codex: "Codex" }[
      entry.details.identity.surface as string
    ];
    assert.match(String(item.description), new RegExp(`server · ${surface}`), "the method in the description");
    const model = await api.panels.model({ panel: "checkpoint", file: target, entryId: entry.id });
    assert.equal(model.kind === "checkpoint" && model.activeCheckpoint, true);
    return entry;
  };

  test("OpenAI: key from secret storage, transport from the setting, checkpoint in file and tree", async () => {
    const entry = await compact(file("d404"), "openai", `${mock.url}/v1`);
    assert.equal(entry.details.identity.endpoint, "https://api.openai.com/v1");
    assert.equal(mock.requests.at(-1)!.headers.authorization, `Bearer ${KEY}`);
  });

  test("ChatGPT Codex: the login read from pi's auth.json", async () => {
    const entry = await compact(file("b851"), "codex", `${mock.url}/backend-api`);
    assert.equal(entry.details.identity.surface, "chatgpt_codex");
    assert.match(entry.summary, /^## Goal\nMOCK LLM SUMMARY/, "the LLM summary, as asked");
  });

  test("Azure OpenAI: resource and deployment from the settings, api-key auth", async () => {
    const ompDir = path.join(HOME, ".omp", "agent", "sessions", "-src-proj");
    const omp = path.join(
      ompDir,
      // Not d9d1: after its /clear its context is two turns, which leave nothing to compact at this keep.
      fs.readdirSync(ompDir).find((f) => f.includes("d9d6"))!,
    );
    const entry = await compact(omp, "azure", `${mock.url}/openai/v1`);
    assert.equal(entry.fromExtension, true, "an OMP session: fromExtension");
    assert.equal(entry.details.identity.endpoint, "https://myres.openai.azure.com/openai/v1");
    assert.equal(entry.details.identity.deployment, "gpt51-deploy");
    assert.equal(mock.requests.at(-1)!.headers["api-key"], AZURE_KEY);
  });

  test("no key, token or account id in the log channel", async () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith(".log")) files.push(p);
      }
    };
    const log = await waitFor("the Pi Sessions log file with the compactions", () => {
      files.length = 0;
      walk(api.logDir);
      return files
        .map((f) => fs.readFileSync(f, "utf8"))
        .find((t) => t.includes("compact ") && t.includes("via chatgpt_codex"));
    });
    for (const secret of [KEY, AZURE_KEY, TOKEN, ACCOUNT, "Bearer "])
      assert.ok(!log.includes(secret), "no credential in the log");
  });

  test("a refused compaction reports why and leaves the file alone", async () => {
    const target = file("d404");
    const before = fs.readFileSync(target);
    // The branch now ends in our compaction.
    const { result: r } = await compactCommand(target, { provider: "openai", model: "gpt-5.1" }, "Compact");
    assert.equal(r, undefined, "the error is shown, not thrown");
    assert.ok(fs.readFileSync(target).equals(before));
  });

  test("the confirmation cannot be skipped: confirm false still asks, and a No writes nothing", async () => {
    const target = file("d4f8");
    const past = new Date(Date.now() - 3_600_000);
    fs.utimesSync(target, past, past);
    await config().update("baseUrl", `${mock.url}/v1`, vscode.ConfigurationTarget.Global);
    const before = fs.readFileSync(target);
    const requests = mock.requests.length;
    const args = { provider: "openai", model: "gpt-5.1", summary: "extractive", confirm: false };
    const { result, shown } = await compactCommand(target, args, undefined);
    assert.equal(result, undefined);
    assert.ok(
      shown.some((d) => d.modal && d.text.startsWith("Compact ")),
      "the confirmation was shown",
    );
    assert.equal(mock.requests.length, requests, "no request was sent");
    assert.ok(fs.readFileSync(target).equals(before));
  });

  test("Set API Key takes no key from an argument: only what is typed into the input box", async () => {
    const ui = stubUi({ input: undefined });
    try {
      const r = await vscode.commands.executeCommand("piSessions.setApiKey", "openai", "sk-injected-by-a-caller");
      assert.equal(r, undefined, "cancelled: nothing stored");
      assert.deepEqual(
        ui.shown.map((d) => d.kind),
        ["input"],
        "the input box was shown",
      );
    } finally {
      ui.restore();
    }
  });

  test("a workspace cannot choose where the key goes: endpoint settings are machine-scoped", async () => {
    for (const key of ["azureResource", "azureDeployment", "model", "baseUrl"]) {
      await assert.rejects(
        Promise.resolve(config().update(key, "evil.example", vscode.ConfigurationTarget.Workspace)),
        `${key} cannot be set by the workspace`,
      );
      assert.notEqual(config().get(key), "evil.example");
    }
  });
});
