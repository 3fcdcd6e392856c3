// In Restricted Mode (an untrusted workspace; run by scripts/vscode/run-integration.mjs as a second pass, with
// workspace trust on): the writing commands refuse in their own handlers, whoever calls them, even when the user
// would confirm. Reading stays available.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { piSlug } from "../../src/core/slug.js";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import { header, message } from "../support/builders.js";
import { jsonl, waitFor } from "../support/helpers.js";
import { stubUi } from "./stubs.js";
import { activateExtension } from "./harness.js";

const HOME = process.env.PI_SESSIONS_FIXTURE_HOME ?? "";
const PROJ = path.join(HOME, ".pi", "agent", "sessions", piSlug(path.join(HOME, "src", "proj")));

suite("Restricted Mode: the writers refuse in their handlers", () => {
  let api: PiSessionsApi;
  let truncated: string;

  suiteSetup(async () => {
    assert.equal(vscode.workspace.isTrusted, false, "this pass runs in an untrusted workspace");
    api = await activateExtension();
    truncated = path.join(PROJ, "2026-11-30T09-00-00-000Z_untrusted.jsonl");
    fs.writeFileSync(
      truncated,
      jsonl(header({ id: "untrusted", cwd: path.join(HOME, "src", "proj") }), message("u0000001", null, "user", "hi")) +
        '{"type":"message","id":"a000',
    );
    const past = new Date(Date.now() - 3_600_000);
    fs.utimesSync(truncated, past, past);
    await waitFor("the new session listed", () => {
      api.service.flushWatcher();
      return api.service.lib.get(truncated);
    });
  });

  suiteTeardown(() => fs.rmSync(truncated, { force: true }));

  test("reading works: the tree lists sessions", async () => {
    const el = await api.tree.sessionElementFor(truncated);
    assert.ok(el);
  });

  for (const [name, command, args] of [
    ["Compact Branch", "piSessions.compactBranch", [{ provider: "openai", model: "gpt-5.1", summary: "extractive" }]],
    ["Repair", "piSessions.repairTail", []],
  ] as const) {
    test(`${name} through executeCommand refuses: a trusted workspace is needed; the file is unchanged`, async () => {
      const before = fs.readFileSync(truncated);
      const ui = stubUi({ modal: name === "Repair" ? "Back Up and Remove" : "Compact" });
      try {
        const r = await vscode.commands.executeCommand(command, truncated, ...args);
        assert.equal(r, undefined);
        assert.ok(
          ui.shown.some((d) => d.kind === "error" && /trusted workspace/.test(d.text)),
          JSON.stringify(ui.shown),
        );
        assert.ok(!ui.shown.some((d) => d.modal), "refused before any confirmation");
      } finally {
        ui.restore();
      }
      assert.ok(fs.readFileSync(truncated).equals(before));
      assert.deepEqual(
        fs.readdirSync(PROJ).filter((f) => f.startsWith(path.basename(truncated)) && f.includes(".bak")),
        [],
        "no backup was written",
      );
    });
  }

  for (const [command, ...args] of [
    ["piSessions.renameSession", "new name"],
    ["piSessions.labelEntry", "a label"],
    ["piSessions.pinSession"],
    ["piSessions.archiveSession"],
    ["piSessions.deleteSession", true],
    ["piSessions.restoreSession"],
  ] as const) {
    test(`${command} refuses in its handler: nothing is written, asked or moved`, async () => {
      const before = fs.readFileSync(truncated);
      const ui = stubUi({ modal: "Move to Trash", input: "typed" });
      try {
        const target = command === "piSessions.labelEntry" ? { file: truncated, entryId: "u0000001" } : truncated;
        const r = await vscode.commands.executeCommand(command, target, ...args);
        assert.equal(r, undefined);
        assert.ok(
          ui.shown.some((d) => d.kind === "error" && /trusted workspace/.test(d.text)),
          JSON.stringify(ui.shown),
        );
        assert.ok(!ui.shown.some((d) => d.modal || d.kind === "input"), "refused before any question");
      } finally {
        ui.restore();
      }
      assert.ok(fs.readFileSync(truncated).equals(before));
      const cache = path.join(process.env.XDG_CACHE_HOME ?? "", "pi-session-explorer", "session-marks.json");
      assert.ok(!fs.existsSync(cache) || !fs.readFileSync(cache, "utf8").includes('"untrusted"'), "no mark written");
      const trash = path.join(process.env.XDG_DATA_HOME ?? "", "Trash", "files", path.basename(truncated));
      assert.equal(fs.existsSync(trash), false, "nothing moved to the trash");
    });
  }

  test("Resume in Terminal refuses: running the agent needs a trusted workspace; no terminal opens", async () => {
    const terminals = vscode.window.terminals.length;
    const ui = stubUi({});
    try {
      const r = await vscode.commands.executeCommand("piSessions.resumeInTerminal", truncated);
      assert.equal(r, undefined);
      assert.ok(
        ui.shown.some((d) => d.kind === "error" && /trusted workspace/.test(d.text)),
        JSON.stringify(ui.shown),
      );
    } finally {
      ui.restore();
    }
    assert.equal(vscode.window.terminals.length, terminals);
  });
});
