// The daily-use walk (issue #40) in the real VS Code: what a user reads in one view must be what another says of the
// same thing. Expectations come from the raw session files.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { jsonl, waitFor } from "../support/helpers.js";
import { header, message } from "../support/builders.js";
import { stubUi } from "./stubs.js";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import type { Element, RowNode } from "../../src/extension/tree/index.js";
import { projSession, type RawRecord, rawRecords, treeText } from "./fixtureHome.js";
import { activateExtension, closeEditors } from "./harness.js";

type Raw = RawRecord;
const records = rawRecords;

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
      // Labels drop Markdown's code marks (the prompts here hold no other marks).
      (k, i) => `Branch ${i + 1}/2: ${promptOf(below(k).find((r) => r.message?.role === "user")!).replace(/`/g, "")}`,
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
      // The folders in the view's title; no message, so that VS Code shows the welcome content and its buttons.
      assert.equal(api.view.message, undefined);
      const read = api.view.description ?? "";
      assert.ok(read.startsWith("read ") && read.endsWith(": no sessions"), read);
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
    await waitFor("the store to come back", async () => {
      await api.service.ensureStarted(); // a reconfigured store lists when it is next asked for
      return api.service.state === "ready" || undefined;
    });
    await api.service.lib.whenComplete(); // read in full again (costs, fork points), as the later suites expect
    assert.equal(api.view.message, undefined, "the default filter and a store with sessions need no message");
  });

  test("a folder that does not exist yet: Refresh finds the sessions an agent writes there later", async () => {
    const config = vscode.workspace.getConfiguration("piSessions");
    const home = process.env.PI_SESSIONS_FIXTURE_HOME ?? "";
    const later = path.join(home, `later-agent-${Date.now()}`);
    try {
      await config.update("agentDirs", [later], vscode.ConfigurationTarget.Global);
      await waitFor("the no-agent-folder state", async () => {
        await kids();
        return api.service.state === "noAgentDir" || undefined;
      });
      assert.equal(api.view.message, undefined, "the welcome content shows");
      assert.match(api.view.description ?? "", /does not exist$/);
      // The agent's first run: its sessions folder and a session in it.
      const dir = path.join(later, "sessions", "--work--");
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, "2026-11-30T10-00-00-000Z_later.jsonl");
      fs.writeFileSync(file, jsonl(header({ id: "later" }), message("l1", null, "user", "Hello from later")));
      await vscode.commands.executeCommand("piSessions.refresh");
      await waitFor("the session found", async () => {
        await api.service.ensureStarted();
        return api.service.lib.get(file);
      });
      assert.equal(api.service.state, "ready");
    } finally {
      await config.update("agentDirs", undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(later, { recursive: true, force: true });
    }
    await waitFor("the store to come back", async () => {
      await api.service.ensureStarted();
      return api.service.state === "ready" || undefined;
    });
    await api.service.lib.whenComplete();
  });

  test("search: a hit's first line names its session; a word's other form is found; a prefix is offered", async () => {
    const w = vscode.window as unknown as { createQuickPick: typeof vscode.window.createQuickPick };
    const real = w.createQuickPick;
    let pick: vscode.QuickPick<vscode.QuickPickItem & { suggestion?: string }> | undefined;
    w.createQuickPick = (() => (pick = real.call(vscode.window))) as typeof real;
    const file = path.join(path.dirname(projSession("d4f8")), "2026-11-30T09-00-00-000Z_stems.jsonl");
    fs.writeFileSync(
      file,
      jsonl(
        header({ id: "stems-session", cwd: path.join(process.env.PI_SESSIONS_FIXTURE_HOME ?? "", "src", "proj") }),
        message("st-u1", null, "user", "Why does the tokenizer stop early?", { time: "2026-11-30T09:00:01Z" }),
        message("st-a1", "st-u1", "assistant", "## Cause\nThe **parentheses** stop matching in `lex()`.", {
          time: "2026-11-30T09:00:02Z",
        }),
      ),
    );
    try {
      await waitFor("the new session listed", () => api.service.lib.get(file));
      void vscode.commands.executeCommand("piSessions.searchContent", "parenthesis");
      const items = () => (pick?.items ?? []).filter((i) => i.kind !== vscode.QuickPickItemKind.Separator);
      const offer = await waitFor("the prefix offered", () => items().find((i) => i.suggestion));
      assert.match(items()[0]!.label, /^No match for parenthesis$/);
      assert.equal(offer.suggestion, "parenthe*");
      // Enter on the offer, as a user takes it (repeated until the quick pick has focus and takes the key).
      await waitFor("the offer taken", async () => {
        pick!.show(); // focus back on the quick pick, should a panel have taken it
        // The items of now: a search run again while the index grows replaces them.
        const now = items().find((i) => i.suggestion);
        if (!now) return pick!.value === "parenthe*" || undefined;
        pick!.activeItems = [now];
        await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
        return pick!.value === "parenthe*" || undefined;
      });
      const hit = await waitFor("the hit", () => items().find((i) => i.detail?.includes("parentheses"))).catch(
        (err: Error) => {
          throw new Error(
            `${err.message}: ${pick?.value}; ${items()
              .map((i) => `${i.label} | ${i.detail}`)
              .join("; ")}`,
          );
        },
      );
      // The session first, as the tree names it; the snippet under it as plain text; no path inside the workspace.
      assert.equal(hit.label, "$(hubot) Why does the tokenizer stop early?");
      assert.match(hit.description ?? "", /^assistant · /);
      assert.equal(hit.detail, "Cause The parentheses stop matching in lex().");
      // A word's other form: "stopped" finds "stop".
      pick!.hide();
      void vscode.commands.executeCommand("piSessions.searchContent", "stopped tokenizer");
      await waitFor("the stemmed hit", () => items().find((i) => i.detail === "Why does the tokenizer stop early?"));
    } finally {
      pick?.hide();
      w.createQuickPick = real;
      fs.rmSync(file, { force: true });
      // Gone from the listing before the next suite watches the tree's refreshes.
      await waitFor("the session unlisted", () => !api.service.lib.get(file));
    }
  });

  test("hovers are short and read as text; the inspector names the session and its figures in words", async () => {
    const file = projSession("d565"); // two compactions
    const session = await api.tree.sessionElementFor(file);
    assert.ok(session);
    const compaction = (await rows(session)).find(
      (r) => api.tree.getTreeItem(r).contextValue === "piSessions:entry:compaction",
    )!;
    const raw = records(file).find((r) => r.id === compaction.item.id) as Raw & { summary: string };
    const tip = api.tree.getTreeItem(compaction).tooltip as vscode.MarkdownString;
    // As the hover shows it: VS Code's escapes of session text undone.
    const body = tip.value
      .slice(tip.value.indexOf("---"))
      .replace(/&nbsp;/g, " ")
      .replace(/\\(.)/g, "$1");
    const lines = raw.summary.split("\n").filter((l) => l.trim());
    const heading = lines.find((l) => l.startsWith("#"))!.replace(/^#+\s+/, "");
    assert.ok(body.includes(`**${heading}**`), body);
    assert.doesNotMatch(body, /^#{1,6} /m, "no heading mark shown as text");
    assert.ok(body.split("\n").filter((l) => l.trim()).length <= 8 + 4, "a few lines, not the whole summary");
    if (lines.length > 8) assert.match(body, /more lines: open the transcript/);

    await vscode.commands.executeCommand("piSessions.inspectCheckpoint", compaction);
    const p = await waitFor("the inspector", () =>
      api.panels.find("checkpoint", (x) => x.state.entryId === compaction.item.id && x.facts),
    );
    const prompt = records(file).find((r) => r.message?.role === "user")!;
    assert.equal(p.facts!.heading, `Compaction in “${promptOf(prompt)}”`);
    const fields = String(p.facts!.fields).split("|");
    assert.ok(fields.includes("Tokens before (recorded by the agent)"), fields.join(", "));
    assert.ok(!fields.some((f) => /^tokens(Before|After)$/.test(f)), "no raw field names");
    // The summary's task list ("- [x] …" in the file) shows boxes, not brackets.
    assert.match(raw.summary, /^- \[x\] /m);
    assert.match(String(p.facts!.summaryText), /☑ /);
    assert.doesNotMatch(String(p.facts!.summaryText), /\[x\]/);
    p.panel.dispose();
  });

  test("Session Usage charts every branch by default, each turn once, the active path marked", async () => {
    const file = projSession("d4f8"); // two branches
    const raw = records(file) as (Raw & { message?: { usage?: unknown } })[];
    const paid = raw.filter((r) => r.message?.role === "assistant" && r.message.usage).length;
    await vscode.commands.executeCommand("piSessions.showSessionUsage", file);
    const p = await waitFor("the session usage panel", () =>
      api.panels.find("sessionUsage", (x) => x.state.file === file && x.facts),
    );
    assert.equal(p.facts!.branches, 2);
    assert.equal(p.facts!.charted, "all");
    assert.equal(p.facts!.lines, 2, "one line per branch");
    assert.equal(p.facts!.bars, paid, "every paid turn once");
    p.panel.dispose();

    // A session no agent has answered yet: a sentence, not empty charts.
    const quiet = path.join(path.dirname(file), "2026-11-30T10-00-00-000Z_quiet.jsonl");
    fs.writeFileSync(quiet, jsonl(header({ id: "quiet" }), message("q-u1", null, "user", "hello?")));
    try {
      await waitFor("the quiet session listed", () => api.service.lib.get(quiet));
      await vscode.commands.executeCommand("piSessions.showSessionUsage", quiet);
      const q = await waitFor("its usage panel", () =>
        api.panels.find("sessionUsage", (x) => x.state.file === quiet && x.facts),
      );
      assert.equal(q.facts!.empty, true);
      q.panel.dispose();
    } finally {
      fs.rmSync(quiet, { force: true });
    }
  });

  test("Find in Transcript reaches an entry a compaction replaced, and opens it there", async () => {
    const file = projSession("d565"); // two compactions: the first prompt is behind them
    const first = records(file).find((r) => r.message?.role === "user")!;
    await vscode.commands.executeCommand("piSessions.openTranscript", file);
    const t = await waitFor("the transcript", () =>
      api.transcripts.open.find((x) => x.file === file && x.doc && x.facts),
    );
    assert.equal(t.doc!.plan.rowOf.has(first.id), false, "the first prompt has no row: a compaction replaced it");
    const w = vscode.window as unknown as { createQuickPick: typeof vscode.window.createQuickPick };
    const real = w.createQuickPick;
    let pick: vscode.QuickPick<vscode.QuickPickItem & { entryId?: string }> | undefined;
    w.createQuickPick = (() => (pick = real.call(vscode.window))) as typeof real;
    try {
      t.panel.reveal();
      void vscode.commands.executeCommand("piSessions.findInTranscript", promptOf(first).slice(0, 20));
      const hit = await waitFor("the hit", () => pick?.items.find((i) => i.entryId === first.id));
      assert.match(hit.description ?? "", /replaced by a compaction/);
      await waitFor("the hit taken", async () => {
        pick!.show();
        const now = pick!.items.find((i) => i.entryId === first.id);
        if (now) pick!.activeItems = [now];
        await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
        return t.facts?.highlighted === first.id || undefined;
      });
    } finally {
      pick?.hide();
      w.createQuickPick = real;
    }
    assert.ok(t.doc!.plan.rowOf.has(first.id), "the card opened: the entry has a row");
  });
});
