// The one setup of the in-host suites: the extension activated from the working tree, its store listed, and
// (for the suites that look at it) the Sessions view shown. Suites reach the extension through `PiSessionsApi`.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { PiSessionsApi } from "../../src/extension/extension.js";

export interface Activation {
  /** Show the Sessions view first (the tree's nodes are created as it renders). */
  showView?: boolean;
  /** Wait until every session is read in full (probed listings are completed in the background). */
  complete?: boolean;
}

/** Activate the extension and wait for its store. */
export async function activateExtension(options: Activation = {}): Promise<PiSessionsApi> {
  const ext = vscode.extensions.getExtension<PiSessionsApi>("pi-session-explorer.pi-session-explorer");
  assert.ok(ext, "the extension is loaded from the working tree");
  const api = await ext.activate();
  if (options.showView) await vscode.commands.executeCommand("workbench.view.extension.piSessions");
  await api.service.ensureStarted();
  if (options.complete) await api.service.lib.whenComplete();
  return api;
}

/** Close every editor a suite opened (panels, transcripts, diffs). */
export async function closeEditors(): Promise<void> {
  await vscode.commands.executeCommand("workbench.action.closeAllEditors");
}
