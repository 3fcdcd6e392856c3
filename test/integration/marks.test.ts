// Pin, archive and Show Archived in the real VS Code (issue #36): where each mark is written (read from the raw files:
// OMP's session-pins.json, our session-marks.json) and where the rows go.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import type { Element } from "../../src/extension/tree/index.js";
import { waitFor } from "../support/helpers.js";
import { HOME, projSession, storeFiles, treeText } from "./fixtureHome.js";
import { activateExtension } from "./harness.js";

const marksFile = () => path.join(process.env.XDG_CACHE_HOME ?? "", "pi-session-explorer", "session-marks.json");
const ompPins = path.join(HOME, ".omp", "agent", "session-pins.json");
const idOf = (file: string) => (JSON.parse(fs.readFileSync(file, "utf8").split("\n")[0]!) as { id: string }).id;
const ompIdOf = (file: string) => (JSON.parse(fs.readFileSync(file, "utf8").split("\n")[1]!) as { id: string }).id;

suite("Pi Sessions: pin and archive in a real VS Code", () => {
  let api: PiSessionsApi;
  const { item, label, kids } = treeText(() => api);
  const kind = (el: Element) => (el as { kind: string }).kind;
  const fileOf = (el: Element) => (el as { file?: string }).file;
  const group = async (which: "workspace" | "all") =>
    (await kids()).find((g) => (g as { group?: string }).group === which)!;

  suiteSetup(async () => {
    api = await activateExtension();
    await api.service.ensureStarted();
  });
  suiteTeardown(async () => {
    fs.rmSync(marksFile(), { force: true });
    fs.rmSync(ompPins, { force: true });
    await vscode.commands.executeCommand("piSessions.hideArchived");
  });

  test("Pin: a pi session's pin is ours, by id; its family row moves first; Unpin puts it back", async () => {
    const ws = await group("workspace");
    const rows = await kids(ws);
    const last = rows.filter((r) => kind(r) === "session").at(-1)!;
    const file = fileOf(last)!;
    await vscode.commands.executeCommand("piSessions.pinSession", last);
    assert.deepEqual((JSON.parse(fs.readFileSync(marksFile(), "utf8")) as { pinned: string[] }).pinned, [idOf(file)]);
    await waitFor("the pinned row first", async () => {
      const first = (await kids(await group("workspace")))[0]!;
      return fileOf(first) === file && /:pinned/.test(String(item(first).contextValue)) ? first : undefined;
    });
    await vscode.commands.executeCommand("piSessions.unpinSession", file);
    await waitFor("back in its place", async () => {
      const after = await kids(await group("workspace"));
      return fileOf(after.at(-1)!) === file ? after : undefined;
    });
  });

  test("Pin an Oh My Pi session: in OMP's session-pins.json; its project first under All Projects", async () => {
    const omp = storeFiles().find((f) => f.includes(`${path.sep}.omp${path.sep}`) && f.includes("01a228a4-d97d"))!;
    await vscode.commands.executeCommand("piSessions.pinSession", omp);
    assert.deepEqual(JSON.parse(fs.readFileSync(ompPins, "utf8")), [ompIdOf(omp)]);
    await waitFor("its project first", async () => {
      const first = (await kids(await group("all")))[0]!;
      const sessions = await kids(first);
      return sessions.some((s) => fileOf(s) === omp) ? first : undefined;
    });
    // A pin made by omp itself (its file rewritten) is followed: here, omp unpinning it.
    fs.writeFileSync(ompPins, "[]");
    await waitFor("the pin gone", async () => {
      const el = await api.tree.sessionElementFor(omp, "all");
      return el && !/:pinned/.test(String(item(el).contextValue)) ? el : undefined;
    });
  });

  test("Archive hides a session under Archived (N); Show Archived lists it in place; Unarchive undoes it", async () => {
    const file = projSession("d4f8");
    const bytes = fs.readFileSync(file);
    await vscode.commands.executeCommand("piSessions.archiveSession", file);
    const archivedNode = await waitFor("Archived (1)", async () => {
      const ws = await kids(await group("workspace"));
      if (ws.some((r) => fileOf(r) === file)) return undefined;
      return ws.find((r) => kind(r) === "archived");
    });
    assert.equal(label(archivedNode), "Archived (1)");
    assert.deepEqual(
      (await kids(archivedNode)).map((r) => fileOf(r)),
      [file],
    );
    await vscode.commands.executeCommand("piSessions.showArchived");
    await waitFor("listed in place, marked", async () => {
      const ws = await kids(await group("workspace"));
      const row = ws.find((r) => fileOf(r) === file);
      return row && !ws.some((r) => kind(r) === "archived") && /archived/.test(String(item(row).description))
        ? row
        : undefined;
    });
    await vscode.commands.executeCommand("piSessions.hideArchived");
    await vscode.commands.executeCommand("piSessions.unarchiveSession", file);
    await waitFor("back, no Archived node", async () => {
      const ws = await kids(await group("workspace"));
      return ws.some((r) => fileOf(r) === file) && !ws.some((r) => kind(r) === "archived") ? ws : undefined;
    });
    assert.deepEqual(fs.readFileSync(file), bytes, "the session file is never touched");
  });
});
