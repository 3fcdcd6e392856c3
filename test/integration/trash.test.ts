// Delete Session… and Restore Deleted Session… in the real VS Code (issue #36): the question names the file, its size
// and its forks; the file goes to the freedesktop.org trash (read from the raw trash dir) and comes back byte for byte.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import { restoreSession } from "../../src/node/manage/deleteSession.js";
import { waitFor } from "../support/helpers.js";
import { PROJ } from "./fixtureHome.js";
import { activateExtension } from "./harness.js";
import { stubUi } from "./stubs.js";

const trashFiles = () => path.join(process.env.XDG_DATA_HOME ?? "", "Trash", "files");

suite("Pi Sessions: delete to the trash and restore in a real VS Code", () => {
  let api: PiSessionsApi;
  let file = "";

  suiteSetup(async () => {
    api = await activateExtension();
    await api.service.ensureStarted();
    const lib = api.service.lib;
    const parent = lib.sessions.find((s) => s.file.startsWith(PROJ) && lib.families().forks(s).length > 0);
    assert.ok(parent, "a workspace session with forks");
    file = parent.file;
  });
  suiteTeardown(async () => {
    if (!fs.existsSync(file)) await restoreSession(file, [fs.realpathSync(path.dirname(PROJ))]);
  });

  test("Delete asks (file, size, forks), moves it to the trash, the row goes, its forks show as orphans", async () => {
    const bytes = fs.readFileSync(file);
    const forks = api.service.lib
      .families()
      .forks(api.service.lib.get(file)!)
      .map((f) => f.file);
    const cancel = stubUi({});
    try {
      await vscode.commands.executeCommand("piSessions.deleteSession", file);
    } finally {
      cancel.restore();
    }
    assert.ok(fs.existsSync(file), "cancelled: nothing moved");
    const ui = stubUi({ modal: "Move to Trash" });
    try {
      await vscode.commands.executeCommand("piSessions.deleteSession", file);
    } finally {
      ui.restore();
    }
    const asked = ui.shown.find((x) => x.modal)!;
    assert.match(asked.text, /^Delete “.+”\?$/);
    assert.ok(asked.detail?.includes(path.basename(file)), asked.detail);
    assert.match(asked.detail ?? "", /\d+(\.\d+)? (B|KB|kB|MB)/);
    assert.match(asked.detail ?? "", new RegExp(`Its ${forks.length} forks stay, shown as orphans`));
    assert.ok(!fs.existsSync(file));
    assert.deepEqual(fs.readFileSync(path.join(trashFiles(), path.basename(file))), bytes);
    await waitFor("the row gone, the forks orphans", () => {
      const lib = api.service.lib;
      return !lib.get(file) && forks.every((f) => lib.get(f)?.parentState === "orphan");
    });
  });

  test("Restore Deleted Session… lists it under Recently Deleted and puts it back byte for byte", async () => {
    const trashed = fs.readFileSync(path.join(trashFiles(), path.basename(file)));
    const ui = stubUi({ pick: path.basename(file) });
    try {
      await vscode.commands.executeCommand("piSessions.restoreSession");
    } finally {
      ui.restore();
    }
    assert.equal(ui.picks[0]?.title, "Recently Deleted");
    assert.deepEqual(fs.readFileSync(file), trashed);
    await waitFor("listed again, its forks resolved", () => {
      const lib = api.service.lib;
      const s = lib.get(file);
      return s && lib.families().forks(s).length > 0;
    });
  });
});
