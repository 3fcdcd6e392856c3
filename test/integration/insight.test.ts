// IDE insight in a real VS Code: the CodeLens on a file the fixture sessions edited and its quick pick, the Agent
// History view following the editor, Show Edit Diff, a live session in the status bar (context fill and cost) whose
// write the history takes in and Compare with Current File diffs, and Resume in Terminal running the agent. Every
// expectation comes from the raw session files and pi-ai's model data.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { piSlug } from "../../src/core/slug.js";
import { CONTEXT_WINDOWS } from "../../src/core/contextWindows.generated.js";
import { formatCost } from "../../src/protocol/format.js";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import { SessionTouches, TouchItem } from "../../src/extension/insight/agentHistoryView.js";
import { execFileSync } from "node:child_process";
import type { CompareModel } from "../../src/protocol/views.js";
import { header, message, usage } from "../support/builders.js";
import { jsonl, waitFor } from "../support/helpers.js";
import { storeFiles } from "./fixtureHome.js";
import { activateExtension, closeEditors } from "./harness.js";
import { stubUi } from "./stubs.js";

const HOME = process.env.PI_SESSIONS_FIXTURE_HOME ?? "";
const WORKSPACE = path.join(HOME, "src", "proj");
const PROJ = path.join(HOME, ".pi", "agent", "sessions", piSlug(WORKSPACE));
const MATH = path.join(WORKSPACE, "src", "math.ts");
const README = path.join(WORKSPACE, "README.md");
/** The CLI as built next to the extension (dist/cli.js). */
const CLI = path.join(__dirname, "..", "..", "cli.js");

interface RawTouch {
  file: string;
  entryId: string;
  toolCallId: string;
  kind: string;
  timestamp: string;
  args: Record<string, unknown>;
}

/** From the raw files: the read/edit/write calls naming `target`, each credited to the oldest file holding it. */
function rawTouches(target: string): RawTouch[] {
  const byCall = new Map<string, RawTouch & { created: string }>();
  for (const file of storeFiles()) {
    let head: { cwd?: string; timestamp?: string } | undefined;
    for (const line of fs.readFileSync(file, "utf8").split("\n")) {
      let r: any;
      try {
        r = JSON.parse(line);
      } catch {
        continue;
      }
      if (r?.type === "session") head = r;
      if (r?.type !== "message" || r.message?.role !== "assistant" || !Array.isArray(r.message.content)) continue;
      for (const b of r.message.content) {
        if (b?.type !== "toolCall" || !["read", "edit", "write"].includes(b.name)) continue;
        const p = String(b.arguments?.path ?? "");
        if ((path.isAbsolute(p) ? p : path.join(head?.cwd ?? "", p)) !== target) continue;
        const key = `${r.id}\n${b.id}`;
        const created = head?.timestamp ?? "";
        const prev = byCall.get(key);
        if (prev && prev.created <= created) continue;
        byCall.set(key, {
          file,
          entryId: r.id,
          toolCallId: b.id,
          kind: b.name,
          timestamp: r.timestamp,
          args: b.arguments,
          created,
        });
      }
    }
  }
  return [...byCall.values()];
}

/** The lens title as documented: "$(edit) 3 agent edits · $(eye) 5 reads · 2 sessions" (codicons). */
function lensTitle(touches: RawTouch[]): string {
  const edits = touches.filter((t) => t.kind !== "read").length;
  const reads = touches.length - edits;
  const sessions = new Set(touches.map((t) => t.file)).size;
  const parts = [];
  if (edits) parts.push(`$(edit) ${edits} agent edit${edits === 1 ? "" : "s"}`);
  if (reads) parts.push(`$(eye) ${reads} ${edits ? "" : "agent "}read${reads === 1 ? "" : "s"}`);
  parts.push(`${sessions} session${sessions === 1 ? "" : "s"}`);
  return parts.join(" · ");
}

suite("IDE insight in a real VS Code", () => {
  let api: PiSessionsApi;
  const lensesOf = async (uri: vscode.Uri) => {
    try {
      // The provider runs on an open document's model only.
      await vscode.workspace.openTextDocument(uri);
      return await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri);
    } catch (err) {
      throw new Error(`executeCodeLensProvider ${uri.toString()}: ${String(err)}`);
    }
  };
  const activeDiff = () =>
    waitFor("a diff editor", () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputTextDiff ? input : undefined;
    });
  const historyItems = async () => {
    const groups = (await api.fileHistory.agentHistory.getChildren()) as SessionTouches[];
    const items = (await Promise.all(groups.map((g) => api.fileHistory.agentHistory.getChildren(g)))).flat();
    return { groups, items: items as TouchItem[] };
  };

  suiteSetup(async () => {
    api = await activateExtension({ complete: true });
  });

  suiteTeardown(closeEditors);

  test("the CodeLens counts the agent turns that touched a file; its quick pick opens the newest turn", async () => {
    const want = rawTouches(MATH);
    assert.ok(
      want.some((t) => t.kind === "edit"),
      "the fixtures edit src/math.ts",
    );
    const uri = vscode.Uri.file(MATH);
    await vscode.window.showTextDocument(uri);
    const lens = await waitFor("the CodeLens", async () =>
      (await lensesOf(uri)).find((l) => l.command?.command === "piSessions.showFileHistory"),
    );
    assert.equal(lens.command!.title, lensTitle(want));
    assert.equal(lens.range.start.line, 0);
    // A file no agent touched has no lens.
    const untouched = path.join(WORKSPACE, "src", "untouched.ts");
    fs.writeFileSync(untouched, "export {};\n");
    assert.deepEqual(rawTouches(untouched), []);
    const none = await lensesOf(vscode.Uri.file(untouched));
    assert.ok(!none.some((l) => l.command?.command === "piSessions.showFileHistory"));
    fs.rmSync(untouched);

    const picked = vscode.commands.executeCommand<{ file: string; entryId: string }>("piSessions.showFileHistory", uri);
    const pick = await waitFor("the turns listed", () => {
      const p = api.fileHistory.history.activePick;
      return p && !p.busy && p.items.length ? p : undefined;
    });
    assert.equal(pick.items.length, want.length);
    await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
    const chosen = await picked;
    const newest = want.reduce((a, b) => (b.timestamp > a.timestamp ? b : a));
    assert.equal(want.find((t) => t.file === chosen.file && t.entryId === chosen.entryId)?.timestamp, newest.timestamp);
    await waitFor("the transcript at the turn", () => {
      const t = api.transcripts.open.find((o) => o.file === chosen.file);
      return t?.facts?.highlighted === chosen.entryId ? t : undefined;
    });
  });

  test("the Agent History view follows the editor, grouped by session", async () => {
    const history = api.fileHistory.agentHistory;
    await vscode.window.showTextDocument(vscode.Uri.file(MATH));
    await waitFor("the view on math.ts", () => history.file?.fsPath === MATH);
    const { groups, items } = await historyItems();
    const want = rawTouches(MATH);
    assert.deepEqual(new Set(groups.map((g) => g.session.file)), new Set(want.map((t) => t.file)));
    assert.deepEqual(
      items.map((i) => `${i.touch.session.file}\n${i.touch.entryId}\n${i.touch.toolCallId}`).sort(),
      want.map((t) => `${t.file}\n${t.entryId}\n${t.toolCallId}`).sort(),
    );
    assert.equal(api.fileHistory.agentHistoryView.description, "src/math.ts");

    await vscode.window.showTextDocument(vscode.Uri.file(README));
    await waitFor("the view on README.md", () => history.file?.fsPath === README);
    const readme = await historyItems();
    assert.deepEqual(
      readme.items.map((i) => i.touch.entryId).sort(),
      rawTouches(README)
        .map((t) => t.entryId)
        .sort(),
    );
  });

  test("Show Edit Diff: the edit in the file as it is now, or its fragments as plain text", async () => {
    await vscode.window.showTextDocument(vscode.Uri.file(MATH));
    await waitFor("the view on math.ts", () => api.fileHistory.agentHistory.file?.fsPath === MATH);
    const item = (await historyItems()).items.find((i) => i.touch.kind === "edit")!;
    const raw = rawTouches(MATH).find(
      (t) => t.entryId === item.touch.entryId && t.toolCallId === item.touch.toolCallId,
    )!;
    const edits = (Array.isArray(raw.args.edits) ? raw.args.edits : [raw.args]) as Record<string, string>[];
    const texts = (k: "old" | "new", gap = "\n⋯\n") =>
      edits.map((e) => e[`${k}Text`] ?? e[`${k}_string`] ?? e[k] ?? "").join(gap);
    const saved = fs.readFileSync(MATH, "utf8");
    const diffOf = async () => {
      await vscode.commands.executeCommand("piSessions.showEditDiff", item);
      const tab = await activeDiff();
      assert.equal(tab.original.scheme, "pi-sessions-diff");
      const [before, after] = await Promise.all(
        [tab.original, tab.modified].map((u) => vscode.workspace.openTextDocument(u)),
      );
      await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
      return { before: before!, after: after! };
    };
    try {
      // The file holds each new text once: the diff is the whole file, before the edit and now, checked as code.
      fs.writeFileSync(MATH, `// head\n${texts("new", "\n// between\n")}\n// tail\n`);
      const whole = await diffOf();
      assert.equal(whole.after.getText(), fs.readFileSync(MATH, "utf8"));
      assert.equal(whole.before.getText(), `// head\n${texts("old", "\n// between\n")}\n// tail\n`);
      assert.equal(whole.after.languageId, "typescript");
      // The file no longer holds them: the texts the agent sent, as plain text (no language server reads a piece
      // of a function as a whole file).
      fs.writeFileSync(MATH, "export {};\n");
      const parts = await diffOf();
      assert.equal(parts.before.getText(), texts("old"));
      assert.equal(parts.after.getText(), texts("new"));
      assert.equal(parts.before.languageId, "plaintext");
    } finally {
      fs.writeFileSync(MATH, saved);
    }
  });

  test("a live session: the status bar shows its context fill and cost; its write reaches the history", async () => {
    const file = path.join(PROJ, "2026-11-30T12-00-00-000Z_live-insight.jsonl");
    const written = "export const answer = 42;\n";
    const u = usage(1200, 300, 0.4321, { read: 60_000, write: 4_000 });
    const now = (s: number) => new Date(Date.now() + s * 1000).toISOString();
    const call = {
      type: "toolCall",
      id: "call-live-1",
      name: "write",
      arguments: { path: "src/math.ts", content: written },
    };
    fs.writeFileSync(
      file,
      jsonl(
        header({ id: "live-insight", cwd: WORKSPACE, time: now(0) }),
        message("u1", null, "user", "Rewrite math.ts", { time: now(0) }),
        message("a1", "u1", "assistant", [call], {
          time: now(1),
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage: u,
          stopReason: "toolUse",
        }),
      ),
    );
    try {
      const window = CONTEXT_WINDOWS.anthropic!["claude-sonnet-4-5"]!;
      const percent = Math.round(((1200 + 60_000 + 4_000) / window) * 100);
      const text = await waitFor("the live status bar item", () => {
        api.service.flushWatcher();
        return api.liveStatus.shown && api.liveStatus.file === file ? api.liveStatus.item.text : undefined;
      });
      assert.equal(text, `π ${percent}% · ${formatCost(0.4321)}`);
      assert.equal(api.liveStatus.item.command && (api.liveStatus.item.command as vscode.Command).arguments?.[0], file);

      // The appended write is in the history; Compare with Current File diffs its text with the file as it is.
      await vscode.window.showTextDocument(vscode.Uri.file(MATH));
      const item = await waitFor("the write in the Agent History view", async () =>
        (await historyItems()).items.find((i) => i.touch.session.file === file && i.touch.kind === "write"),
      );
      await vscode.commands.executeCommand("piSessions.compareWithCurrentFile", item);
      const tab = await activeDiff();
      assert.equal((await vscode.workspace.openTextDocument(tab.original)).getText(), written);
      assert.equal(tab.modified.fsPath, MATH);
      await vscode.commands.executeCommand("workbench.action.closeActiveEditor");

      // Quiet for longer than the live window: the item hides.
      api.liveStatus.liveMs = 1_000;
      await waitFor("the item to hide", () => !api.liveStatus.shown);
    } finally {
      api.liveStatus.liveMs = 60_000;
      fs.rmSync(file, { force: true });
      api.service.flushWatcher();
    }
  });

  test("Resume in Terminal runs the agent from the settings in the session's cwd with --session <file>", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-resume-"));
    const out = path.join(dir, "argv.txt");
    const fake = path.join(dir, "fake pi");
    fs.writeFileSync(fake, `#!/bin/sh\nprintf '%s\\n' "$PWD" "$@" > '${out}'\n`, { mode: 0o755 });
    const config = vscode.workspace.getConfiguration("piSessions");
    await config.update("piPath", fake, vscode.ConfigurationTarget.Global);
    const session = fs.readdirSync(PROJ).find((f) => f.endsWith(".jsonl") && !f.startsWith("broken"))!;
    const file = path.join(PROJ, session);
    const cwd = JSON.parse(
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .find((l) => l.includes('"type":"session"'))!,
    ).cwd;
    try {
      const terminal = await vscode.commands.executeCommand<vscode.Terminal>("piSessions.resumeInTerminal", file);
      assert.ok(terminal);
      assert.match(terminal.name, /^pi: /);
      assert.ok(vscode.window.terminals.includes(terminal));
      const lines = await waitFor(
        "the agent to run",
        () => fs.existsSync(out) && fs.readFileSync(out, "utf8").split("\n"),
        30_000,
      );
      assert.deepEqual(lines.slice(0, 3), [fs.realpathSync(cwd), "--session", file]);
      terminal.dispose();
    } finally {
      await config.update("piPath", undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("Resume in Terminal with no agent at the setting or on PATH: a warning offers to set it", async () => {
    const config = vscode.workspace.getConfiguration("piSessions");
    const file = path.join(
      PROJ,
      fs.readdirSync(PROJ).find((f) => f.endsWith(".jsonl") && !f.startsWith("broken"))!,
    );
    const terminals = vscode.window.terminals.length;
    for (const missing of ["pi-not-installed-anywhere", path.join(os.tmpdir(), "no-such-dir", "pi")]) {
      await config.update("piPath", missing, vscode.ConfigurationTarget.Global);
      const ui = stubUi({});
      try {
        const r = await vscode.commands.executeCommand("piSessions.resumeInTerminal", file);
        assert.equal(r, undefined, "dismissed: nothing runs");
        const warning = ui.shown.find((d) => d.kind === "warning");
        assert.ok(warning, `a warning for ${missing}`);
        assert.ok(warning.text.includes(JSON.stringify(missing)) && warning.text.includes("piSessions.piPath"));
        assert.equal(vscode.window.terminals.length, terminals, "no terminal was opened");
      } finally {
        ui.restore();
        await config.update("piPath", undefined, vscode.ConfigurationTarget.Global);
      }
    }
  });

  test("Compare with Parent and Compare with Active Branch open both sides, with the CLI's numbers", async () => {
    const parent = path.join(PROJ, "2026-11-29T18-50-20-792Z_01a228a4-d4f8-7759-87f6-e1f7077b112f.jsonl");
    const fork = path.join(PROJ, "2026-11-29T18-50-21-130Z_01a228a4-d64a-7145-888a-572546d95234.jsonl");
    const cli = (...args: string[]) =>
      JSON.parse(execFileSync(process.execPath, [CLI, "compare", ...args, "--json"], { encoding: "utf8" }));
    const sameAsCli = (model: CompareModel, json: { forkPoint: string | null; sides: Record<string, unknown>[] }) => {
      assert.equal(model.forkPointId, json.forkPoint);
      for (const [i, side] of model.sides.entries()) {
        const want = json.sides[i]!;
        assert.equal(side.leafId, want.leaf);
        assert.equal(side.entries, want.entries);
        assert.equal(side.cost, want.cost);
        assert.deepEqual(side.tokens, want.tokens);
        assert.deepEqual(
          side.filesModified.map((f) => f.path),
          want.filesModified,
        );
        assert.deepEqual(
          side.filesRead.map((f) => f.path),
          want.filesRead,
        );
      }
    };
    const panelOf = (file: string, other: string | undefined) =>
      waitFor("the comparison rendered", () =>
        api.panels.find("compare", (p) => p.state.file === file && p.state.otherFile === other && p.facts),
      );

    await vscode.commands.executeCommand("piSessions.compareWithParent", fork);
    const withParent = await panelOf(parent, fork);
    sameAsCli(withParent.model as CompareModel, cli(parent, "--leaf", "active", "--leaf", fork));
    assert.equal(withParent.facts!.aEntries, (withParent.model as CompareModel).sides[0].entries);
    assert.equal((withParent.model as CompareModel).sides[1].role, "fork");

    // A branch node of the parent: its newest leaf against the active one.
    const raw = fs
      .readFileSync(parent, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { id?: string; parentId?: string | null; type: string });
    const parents = new Set(raw.map((r) => r.parentId));
    const leaves = raw.filter((r) => r.id && r.type !== "session" && !parents.has(r.id)).map((r) => r.id!);
    const active = raw.at(-1)!.id!;
    const other = leaves.find((l) => l !== active)!;
    await vscode.commands.executeCommand("piSessions.compareWithActiveBranch", {
      kind: "row",
      file: parent,
      item: { id: other },
    });
    const branches = await panelOf(parent, undefined);
    sameAsCli(branches.model as CompareModel, cli(parent, "--leaf", active, "--leaf", other));
    assert.ok((branches.facts!.aTurns as number) > 0 && (branches.facts!.bTurns as number) > 0);
    branches.panel.dispose();
    withParent.panel.dispose();
  });

  test("a large pair is compared in the worker thread, with the CLI's numbers and both final texts", async () => {
    // Over 4 MB: one message with 20,000 writes (each file its own), their results, then two branches writing a.txt.
    const dir = path.join(HOME, ".pi", "agent", "sessions", "--tmp-large-compare--");
    const file = path.join(dir, "large.jsonl");
    const calls = Array.from({ length: 20_000 }, (_, i) => ({
      type: "toolCall",
      id: `c${i}`,
      name: "write",
      arguments: { path: `/w/f${i}.txt`, content: `text ${i} `.repeat(20) },
    }));
    const done = (id: string, parentId: string, callId: string) =>
      message(id, parentId, "toolResult", [{ type: "text", text: "ok" }], {
        extra: { toolCallId: callId, toolName: "write", isError: false },
      });
    const records: unknown[] = [header({ id: "large-compare", cwd: "/w" }), message("u1", null, "user", "write them")];
    records.push(message("m1", "u1", "assistant", calls));
    let parent = "m1";
    for (let i = 0; i < calls.length; i++) {
      records.push(done(`r${i}`, parent, `c${i}`));
      parent = `r${i}`;
    }
    for (const side of ["x", "y"]) {
      const call = { type: "toolCall", id: `c${side}`, name: "write", arguments: { path: "/w/a.txt", content: side } };
      records.push(message(side, parent, "assistant", [call]), done(`${side}r`, side, `c${side}`));
    }
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(file, jsonl(...records));
    assert.ok(fs.statSync(file).size > 4 * 1024 * 1024);
    try {
      await waitFor("the large session listed", () => api.service.lib.get(file)?.summary.ok);
      await vscode.commands.executeCommand("piSessions.compareWithActiveBranch", {
        kind: "row",
        file,
        item: { id: "xr" },
      });
      const panel = await waitFor("the comparison rendered", () =>
        api.panels.find("compare", (p) => p.state.file === file && p.facts),
      );
      const model = panel.model as CompareModel;
      const json = JSON.parse(
        execFileSync(process.execPath, [CLI, "compare", file, "--leaf", "yr", "--leaf", "xr", "--json"], {
          encoding: "utf8",
          maxBuffer: 64 * 1024 * 1024,
        }),
      ) as { sides: { leaf: string; filesModified: string[] }[] };
      assert.deepEqual(
        model.sides.map((s) => s.leafId),
        json.sides.map((s) => s.leaf),
      );
      assert.deepEqual(
        model.sides.map((s) => s.filesModified.map((f) => f.path)),
        json.sides.map((s) => s.filesModified),
      );
      // Both sides wrote a.txt after results that name their calls: its final texts are known, so it can be diffed.
      assert.deepEqual(model.bothEdited, [{ path: "/w/a.txt", diffable: true }]);
      panel.panel.dispose();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await waitFor("the large session gone", () => !api.service.lib.get(file));
    }
  });
});
