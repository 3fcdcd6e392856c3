// The daily-use walk (issue #40) in the real VS Code: what a user reads in one view must be what another says of the
// same thing. Expectations come from the raw session files.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { waitFor } from "../support/helpers.js";
import { stubUi } from "./stubs.js";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import type { Element, RowNode } from "../../src/extension/tree/index.js";
import { projSession, treeText } from "./fixtureHome.js";
import { activateExtension, closeEditors } from "./harness.js";

interface Raw {
  type: string;
  id: string;
  parentId: string | null;
  message?: { role?: string; content?: unknown };
}
const records = (file: string): Raw[] =>
  fs
    .readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .slice(1)
    .map((l) => JSON.parse(l) as Raw);

const promptOf = (r: Raw) =>
  typeof r.message?.content === "string"
    ? r.message.content
    : ((r.message?.content as { type: string; text?: string }[]).find((b) => b.type === "text")?.text ?? "");

suite("Pi Sessions daily use in a real VS Code", () => {
  let api: PiSessionsApi;
  const { label, kids } = treeText(() => api);
  const rows = async (el: Element) => (await kids(el)).filter((k): k is RowNode => k.kind === "row");

  suiteSetup(async () => {
    api = await activateExtension();
    await api.service.ensureStarted();
  });
  teardown(async () => {
    await vscode.commands.executeCommand("piSessions.setFilter", "default");
    await closeEditors();
  });

  test("one name per branch: the tree (under two filters), the transcript's switcher and compare agree", async () => {
    const file = projSession("d4f8"); // two branches at the label cba5122d
    const list = records(file);
    const kids0 = list.filter((r) => r.parentId === "cba5122d").map((r) => r.id);
    assert.equal(kids0.length, 2);
    // pi's /tree lists the branch that holds the leaf (the file's last entry) first.
    const below = (id: string) => {
      const out = new Set([id]);
      for (const r of list) if (r.parentId && out.has(r.parentId)) out.add(r.id);
      return list.filter((r) => out.has(r.id));
    };
    const leaf = list.at(-1)!.id;
    const ordered = [...kids0].sort(
      (a, b) => Number(below(b).some((r) => r.id === leaf)) - Number(below(a).some((r) => r.id === leaf)),
    );
    const want = ordered.map(
      (k, i) => `Branch ${i + 1}/2: ${promptOf(below(k).find((r) => r.message?.role === "user")!)}`,
    );

    const branchLabels = async () => {
      const session = await api.tree.sessionElementFor(file);
      assert.ok(session);
      return (await rows(session)).filter((r) => r.item.kind === "branch").map(label);
    };
    assert.deepEqual(await branchLabels(), want, "the tree, default filter");
    await vscode.commands.executeCommand("piSessions.setFilter", "user-only");
    assert.deepEqual(await branchLabels(), want, "the tree, user-only filter");

    await vscode.commands.executeCommand("piSessions.openTranscript", file);
    const t = await waitFor("the transcript", () => api.transcripts.open.find((x) => x.file === file && x.doc));
    const ui = stubUi({});
    try {
      await api.transcripts.chooseBranch(t, ordered[0]!);
    } finally {
      ui.restore();
    }
    assert.deepEqual(
      ui.picks[0]!.labels.map((l) => l.replace(/^\$\(check\) /, "")),
      want,
      "the transcript's switcher",
    );

    const other = below(ordered[1]!).at(-1)!.id;
    await vscode.commands.executeCommand("piSessions.compareWithActiveBranch", {
      kind: "row",
      file,
      item: { id: other },
    });
    const panel = await waitFor("the comparison rendered", () =>
      api.panels.find("compare", (p) => p.state.file === file && p.state.otherFile === undefined && p.facts),
    );
    assert.deepEqual([panel.facts!.aHeading, panel.facts!.bHeading], [`A · ${want[0]}`, `B · ${want[1]}`]);
    panel.panel.dispose();

    // A search hit on the other branch names it the same way.
    const word = "avg";
    await vscode.commands.executeCommand("piSessions.showSearchResults", word);
    const shown = await waitFor("the results panel", () =>
      api.searchResults.shown?.state.text === word && api.searchResults.shown.total
        ? api.searchResults.shown
        : undefined,
    );
    const offBranch = new Set(below(ordered[1]!).map((r) => r.id));
    const hits = shown.groups.filter((g) => g.file === file).flatMap((g) => g.hits);
    const off = hits.filter((h) => offBranch.has(h.entryId));
    assert.ok(off.length, "a hit on the other branch");
    for (const h of off) assert.equal(h.branch, want[1], h.entryId);
  });

  test("a first run: the view names the folders it read; nothing to choose is information, not an error", async () => {
    const config = vscode.workspace.getConfiguration("piSessions");
    const home = process.env.PI_SESSIONS_FIXTURE_HOME ?? "";
    const empty = fs.mkdtempSync(path.join(home, "first-run-"));
    const ui = stubUi({});
    try {
      await config.update("agentDirs", [empty], vscode.ConfigurationTarget.Global);
      await waitFor("the no-sessions state", async () => {
        await kids();
        return api.service.state === "noSessions" || undefined;
      });
      const read = api.view.message ?? "";
      assert.ok(read.startsWith("Read ") && read.endsWith(": no sessions there."), read);
      for (const r of api.service.roots) assert.ok(read.includes(path.basename(r.dir)), `${read} names ${r.dir}`);
      await vscode.commands.executeCommand("piSessions.openTranscript");
      await vscode.commands.executeCommand("piSessions.showSessionUsage");
      assert.deepEqual(
        ui.shown.map((x) => x.kind),
        ["information", "information"],
        ui.shown.map((x) => x.text).join(" | "),
      );
      assert.match(ui.shown[0]!.text, /^No session to choose from/);
    } finally {
      ui.restore();
      await config.update("agentDirs", undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(empty, { recursive: true, force: true });
    }
    await waitFor("the store to come back", () => (api.service.state === "ready" ? true : undefined));
    await api.service.lib.whenComplete(); // read in full again (costs, fork points), as the later suites expect
    assert.equal(api.view.message, undefined, "the default filter and a store with sessions need no message");
  });
});
