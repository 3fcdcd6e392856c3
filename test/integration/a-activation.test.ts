// Runs first (file order): activation reads no session file; the first read happens when something asks for the
// sessions: the view's first level, or the CodeLens of an opened file (issue #7, goal 7). The extension activates once
// the window is up (`onStartupFinished`, for the CodeLens and the live status bar item), so it may be active already.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import { CommandId } from "../../src/extension/ids.js";
import { waitFor } from "../support/helpers.js";

suite("Activation cost", () => {
  test("activating reads no session file; showing the view lists them", async () => {
    const ext = vscode.extensions.getExtension<PiSessionsApi>("pi-session-explorer.pi-session-explorer")!;
    const api = await ext.activate();
    assert.equal(api.service.state, "idle");
    assert.equal(api.service.lib.sessions.length, 0, "no listing yet");
    assert.equal(api.service.lib.filesRead, 0);
    await vscode.commands.executeCommand("workbench.view.extension.piSessions");
    await waitFor("the view's first level", () => api.service.state === "ready");
    assert.ok(api.service.lib.sessions.length > 0);
  });

  test("every command id the manifest contributes is registered", async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const id of Object.values(CommandId)) assert.ok(registered.has(id), `${id} is registered`);
  });
});
