// Rename Session… and Label Entry… in the real VS Code (issue #36): written as pi writes them, and the tree follows.
// Expectations come from the raw file written.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { jsonl, waitFor } from "../support/helpers.js";
import { header, message } from "../support/builders.js";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import { PROJ, rawRecords, treeText } from "./fixtureHome.js";
import { activateExtension } from "./harness.js";
import { stubUi } from "./stubs.js";

suite("Pi Sessions: rename and label in a real VS Code", () => {
  let api: PiSessionsApi;
  const { label, desc } = treeText(() => api);
  const file = path.join(PROJ, "2026-11-30T08-00-00-000Z_manage.jsonl");

  suiteSetup(async () => {
    api = await activateExtension();
    await api.service.ensureStarted();
    const cwd = path.join(process.env.PI_SESSIONS_FIXTURE_HOME ?? "", "src", "proj");
    fs.writeFileSync(
      file,
      jsonl(
        header({ id: "manage-session", cwd, time: "2026-11-30T08:00:00.000Z" }),
        message("m1", null, "user", "Sketch the importer", { time: "2026-11-30T08:00:01.000Z" }),
        message("m2", "m1", "assistant", "Here is a sketch.", { time: "2026-11-30T08:00:02.000Z" }),
      ),
    );
    // Idle: a file written in the last seconds is in an agent's hands, and is refused.
    const hourAgo = new Date(Date.now() - 3_600_000);
    fs.utimesSync(file, hourAgo, hourAgo);
    await waitFor("the session listed", () => api.service.lib.get(file));
  });
  suiteTeardown(async () => {
    fs.rmSync(file, { force: true });
    await waitFor("the session unlisted", () => !api.service.lib.get(file));
  });

  test("Rename Session… appends pi's session_info; the row takes the new name", async () => {
    const before = fs.readFileSync(file);
    await vscode.commands.executeCommand("piSessions.renameSession", file, "Importer sketch");
    const after = fs.readFileSync(file);
    assert.deepEqual(after.subarray(0, before.length), before, "nothing before the new line changed");
    const added = rawRecords(file).at(-1)! as unknown as Record<string, unknown>;
    assert.equal(added.type, "session_info");
    assert.equal(added.name, "Importer sketch");
    assert.equal(added.parentId, "m2", "after the active leaf, as pi appends");
    await waitFor("the row renamed", async () => {
      const el = await api.tree.sessionElementFor(file);
      return el && label(el) === "Importer sketch" ? el : undefined;
    });
  });

  test("Label Entry… appends pi's label entry; the entry's row shows it; an empty label removes it", async () => {
    await vscode.commands.executeCommand("piSessions.labelEntry", { file, entryId: "m1" }, "first idea");
    const added = rawRecords(file).at(-1)! as unknown as Record<string, unknown>;
    assert.deepEqual([added.type, added.targetId, added.label], ["label", "m1", "first idea"]);
    const row = async () => {
      const el = await api.tree.sessionElementFor(file);
      return el ? api.tree.entryElementFor(el, "m1") : undefined;
    };
    await waitFor("the label on its row", async () => {
      const r = await row();
      return r && /\[first idea\]/.test(desc(r)) ? r : undefined;
    });
    await vscode.commands.executeCommand("piSessions.labelEntry", { file, entryId: "m1" }, "");
    const removal = rawRecords(file).at(-1)! as unknown as Record<string, unknown>;
    assert.equal(removal.type, "label");
    assert.equal("label" in removal, false);
    await waitFor("the label gone", async () => {
      const r = await row();
      return r && !/\[first idea\]/.test(desc(r)) ? r : undefined;
    });
  });

  test("asked in an input box titled by the session: its answer is written; cancelling writes nothing", async () => {
    const ui = stubUi({ input: "  Named in the box  " });
    try {
      await vscode.commands.executeCommand("piSessions.renameSession", file);
    } finally {
      ui.restore();
    }
    assert.deepEqual(
      ui.shown.map((x) => [x.kind, x.text]),
      [["input", "Rename “Importer sketch”"]],
    );
    assert.equal((rawRecords(file).at(-1)! as unknown as { name: string }).name, "Named in the box");
    const bytes = fs.readFileSync(file);
    const cancel = stubUi({});
    try {
      await vscode.commands.executeCommand("piSessions.renameSession", file);
    } finally {
      cancel.restore();
    }
    assert.deepEqual(fs.readFileSync(file), bytes);
  });

  test("a file an agent is writing is refused with a message, and nothing is written", async () => {
    fs.utimesSync(file, new Date(), new Date());
    const bytes = fs.readFileSync(file);
    const shown: string[] = [];
    const real = vscode.window.showErrorMessage;
    (vscode.window as { showErrorMessage: unknown }).showErrorMessage = (m: string) => {
      shown.push(m);
      return Promise.resolve(undefined);
    };
    try {
      await vscode.commands.executeCommand("piSessions.renameSession", file, "Too soon");
    } finally {
      (vscode.window as { showErrorMessage: unknown }).showErrorMessage = real;
    }
    assert.deepEqual(fs.readFileSync(file), bytes);
    assert.match(shown.join(" | "), /written in the last few seconds/);
  });
});
