// In-host integration tests: they run inside the real VS Code extension host (code-server 4.100.3), against a HOME
// whose ~/.pi and ~/.omp session stores were built from fixtures/real (scripts/vscode/fixture-home.mjs).
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { fork, message } from "../support/builders.js";
import { jsonl, waitFor } from "../support/helpers.js";
import { messageViewer, permissiveViewer, plainText } from "../support/markdownView.js";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import type { Element, RowNode, SessionNode } from "../../src/extension/tree/index.js";
import { piSlug } from "../../src/core/slug.js";
import { type RawRecord, rawRecords, treeText } from "./fixtureHome.js";
import { activateExtension } from "./harness.js";

const HOME = process.env.PI_SESSIONS_FIXTURE_HOME ?? "";
const PI = path.join(HOME, ".pi", "agent", "sessions");
const OMP = path.join(HOME, ".omp", "agent", "sessions");
const PROJ = path.join(PI, piSlug(path.join(HOME, "src", "proj")));
const byId = (dir: string, idPart: string) => {
  const name = fs.readdirSync(dir).find((f) => f.includes(idPart));
  assert.ok(name, `fixture ${idPart} in ${dir}`);
  return path.join(dir, name);
};
const S1 = () => byId(PROJ, "d404"); // linear, tools
const S2 = () => byId(PROJ, "d4f8"); // 2 branches, labels, name
const S3 = () => byId(PROJ, "d565"); // 2 compactions
const S5A = () => byId(PROJ, "d64a"); // /fork of S2
const O1 = () => byId(path.join(OMP, "-src-proj"), "d97d"); // OMP, title slot

suite("Pi Sessions explorer in a real VS Code", () => {
  let api: PiSessionsApi;
  const { item, label, desc, kids } = treeText(() => api);
  const sessionEl = async (file: string) => {
    const el = await api.tree.sessionElementFor(file);
    assert.ok(el, `session ${path.basename(file)} is in the tree`);
    return el;
  };
  const rows = async (el: Element) => (await kids(el)).filter((k): k is RowNode => k.kind === "row");

  suiteSetup(async () => {
    assert.ok(HOME && fs.existsSync(PI), `fixture HOME at ${HOME}`);
    api = await activateExtension({ showView: true });
  });

  teardown(async () => {
    if (api.tree.filter !== "default") await vscode.commands.executeCommand("piSessions.setFilter", "default");
  });

  test("activates with every contributed command registered, in the Pi Sessions category", async () => {
    const ext = vscode.extensions.getExtension("pi-session-explorer.pi-session-explorer")!;
    assert.equal(ext.isActive, true);
    const contributed = ext.packageJSON.contributes.commands as { command: string; category: string }[];
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const c of contributed) {
      assert.ok(registered.has(c.command), `${c.command} is registered`);
      assert.equal(c.category, "Pi Sessions");
    }
    assert.equal(api.service.state, "ready");
  });

  test("top level: This Workspace, then All Projects grouped by project cwd", async () => {
    const roots = await kids();
    assert.deepEqual(roots.map(label), ["This Workspace", "All Projects"]);
    const ws = await kids(roots[0]);
    const files = ws.filter((e): e is SessionNode => e.kind === "session").map((e) => e.file);
    for (const f of [S1(), S2(), S3(), O1()]) assert.ok(files.includes(f), `${path.basename(f)} is in This Workspace`);
    // A fork is in its family, under its parent's "Forks (N)" (families.test.ts).
    assert.equal((await sessionEl(S5A())).parent?.kind, "forks");
    assert.ok(!files.some((f) => f.includes("other-project")), "other projects are not in This Workspace");
    const projects = await kids(roots[1]);
    assert.ok(projects.every((p) => p.kind === "project"));
    const cwds = projects.map((p) => (p.kind === "project" ? p.cwd : ""));
    assert.ok(cwds.includes(path.join(HOME, "src", "proj")));
    assert.ok(cwds.includes(path.join(HOME, "src", "other-project")));
    // Stable hierarchical ids.
    const s2 = ws.find((e) => e.kind === "session" && e.file === S2())!;
    assert.match(s2.id, /^ws\/session:01a228a4-d4f8-7759-87f6-e1f7077b112f$/);
    assert.equal(item(s2).id, s2.id);
  });

  test("a session node shows name, time · cost, a rich tooltip (model, times) and its state", async () => {
    const s2 = await sessionEl(S2());
    assert.equal(label(s2), "Stats helpers (sum/avg/median)");
    assert.match(desc(s2), /^(\d+ (min|h|d) ago|\d{4}-\d\d-\d\d) · (<)?\$\d/);
    assert.doesNotMatch(desc(s2), /live/);
    assert.equal(item(s2).tooltip, undefined, "the tooltip is resolved lazily");
    const tip = api.tree.resolveTreeItem(item(s2), s2).tooltip as vscode.MarkdownString;
    assert.equal(tip.isTrusted, false);
    const keys = ["Id", "File", "Cwd", "Created", "Last active", "Size", "Entries", "Branch points", "Forks", "Model"];
    for (const k of [...keys, "Compactions"]) assert.ok(tip.value.includes(`**${k}:**`), `tooltip has ${k}`);
    assert.match(String(item(s2).contextValue), /^piSessions:session:pi$/);
    assert.match(String(item(await sessionEl(S5A())).contextValue), /^piSessions:session:pi:fork$/);
    assert.match(String(item(await sessionEl(O1())).contextValue), /^piSessions:session:omp/);
    assert.equal(label(await sessionEl(O1())), "mathkit overview");
    const broken = await sessionEl(path.join(PROJ, "broken-empty.jsonl"));
    assert.match(String(item(broken).contextValue), /rejected/);
    const reason = await kids(broken);
    assert.match(label(reason[0]!), /^Not readable: file is empty/);
  });

  test("entry tree: turns fold replies and tools; branches active first; leaf and labels marked", async () => {
    const s2 = await sessionEl(S2());
    const top = await rows(s2);
    assert.deepEqual(
      top.map((r) => [r.item.kind, label(r)]),
      [
        ["turn", "Write a sum(xs: number[]) helper."],
        ["branch", "Branch 1/2: Actually, add median(xs) instead."],
        ["branch", "Branch 2/2: Also add avg(xs)."],
      ],
    );
    assert.match(desc(top[1]!), /^active · /);
    assert.doesNotMatch(desc(top[2]!), /active/);
    assert.equal(top[0]!.id, "ws/session:01a228a4-d4f8-7759-87f6-e1f7077b112f/entry:3a09a93f");
    assert.equal(item(top[1]!).collapsibleState, vscode.TreeItemCollapsibleState.Expanded);
    assert.equal(item(top[2]!).collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    const folded = (await kids(top[0]!)).filter((k) => k.kind === "entry");
    assert.deepEqual(folded.map(label), [
      "assistant: → edit",
      "tool result edit",
      'assistant: "Added sum() using reduce."',
    ]);
    assert.match(desc(folded[2]!), /\[sum-added \(v2\)\]/, "labels show on their entries");
    // The leaf is a label entry, hidden by the default filter: its nearest visible entry carries the marker.
    const active = await rows(top[1]!);
    assert.equal(active[0]!.item.kind, "turn");
    assert.match(desc(active[0]!), /● leaf inside/);
    const inside = (await kids(active[0]!)).filter((k) => k.kind === "entry");
    assert.match(desc(inside[inside.length - 1]!), /^● active leaf \(label hidden by the filter\)/);
    const abandoned = await rows(top[2]!);
    assert.match(desc(abandoned[0]!), /abandoned branch/);
  });

  test("compaction nodes show tokens before and kept-from; they expand to the summary and kept range", async () => {
    const s3 = await sessionEl(S3());
    const compactions = (await rows(s3)).filter((r) => label(r).startsWith("Compaction"));
    assert.equal(compactions.length, 2);
    assert.match(label(compactions[0]!), /^Compaction · 4k tokens before · kept from /);
    const details = await kids(compactions[0]!);
    const labels = details.map(label);
    assert.ok(labels[0]!.startsWith("Summary: "), labels[0]);
    assert.ok(
      labels.some((l) => l.startsWith("Kept: from ")),
      labels.join(" | "),
    );
    // From the raw file: the messages on the compaction's path before the entry it keeps from.
    const records = rawRecords(S3());
    const byId = new Map(records.map((r) => [r.id, r]));
    const first = records.find((r) => r.type === "compaction")!;
    const path: RawRecord[] = [];
    for (let r = byId.get(first.parentId as string); r; r = byId.get(r.parentId as string)) path.unshift(r);
    const kept = path.findIndex((r) => r.id === first.firstKeptEntryId);
    const messages = path.slice(0, kept).filter((r) => r.type === "message").length;
    assert.ok(messages > 1);
    assert.ok(labels.includes(`Replaced: ${messages} messages summarized`), labels.join(" | "));
  });

  test("fork nodes: the child under its fork point; 'forked from' on the fork reveals the parent", async () => {
    const s2 = await sessionEl(S2());
    const turn = (await rows(s2))[0]!;
    const forks = (await kids(turn)).filter((k) => k.kind === "fork");
    assert.ok(
      forks.some((f) => f.kind === "fork" && f.child === S5A()),
      "the /fork child hangs under the turn it forked at",
    );
    const fork = await sessionEl(S5A());
    const first = (await kids(fork))[0]!;
    assert.equal(first.kind, "forkedFrom");
    assert.match(label(first), /^Forked from: Stats helpers/);
    await vscode.commands.executeCommand("piSessions.revealParent", fork);
    const selected = await waitFor("a selection", () => api.view.selection[0]);
    assert.ok("file" in selected && selected.file === S2(), "the parent session's entry is selected");
  });

  test("filters: user-only, labeled-only, no-tools and all, as pi's /tree", async () => {
    const s2 = await sessionEl(S2());
    await vscode.commands.executeCommand("piSessions.setFilter", "user-only");
    assert.equal(api.view.description, "Filter: user-only");
    assert.match(String(api.view.message), /^Filter: user-only\./);
    let top = await rows(s2);
    assert.deepEqual(
      top.map((r) => r.item.kind),
      ["turn", "branch", "branch"],
    );
    assert.equal((await kids(top[0]!)).filter((k) => k.kind === "entry").length, 0);
    await vscode.commands.executeCommand("piSessions.setFilter", "labeled-only");
    top = await rows(s2);
    assert.deepEqual(
      top.map((r) => [r.item.kind, r.item.id]),
      [["entry", "c699fe70"]],
    );
    await vscode.commands.executeCommand("piSessions.setFilter", "no-tools");
    top = await rows(s2);
    assert.deepEqual((await kids(top[0]!)).filter((k) => k.kind === "entry").map(label), [
      'assistant: "Added sum() using reduce."',
    ]);
    await vscode.commands.executeCommand("piSessions.setFilter", "all");
    top = await rows(s2);
    assert.equal(label(top[0]!), "model → anthropic/claude-sonnet-4-5");
    await vscode.commands.executeCommand("piSessions.setFilter", "default");
    assert.equal(api.view.description, undefined);
    assert.equal(api.view.message, undefined);
  });

  test("commands: copy entry id, copy resume command, open the file at the entry's line", async () => {
    const s2 = await sessionEl(S2());
    const turn = (await rows(s2))[0]!;
    assert.equal(await vscode.commands.executeCommand("piSessions.copyEntryId", turn), "3a09a93f");
    assert.equal(await vscode.env.clipboard.readText(), "3a09a93f");
    await vscode.commands.executeCommand("piSessions.copyResumeCommand", s2);
    assert.equal(await vscode.env.clipboard.readText(), `pi --session ${S2()}`);
    await vscode.commands.executeCommand("piSessions.copyResumeCommand", await sessionEl(O1()));
    assert.equal(await vscode.env.clipboard.readText(), `omp --resume ${O1()}`);
    const line = await vscode.commands.executeCommand<number>("piSessions.openEntry", turn);
    const editor = await waitFor("an editor", () => vscode.window.activeTextEditor);
    assert.equal(editor.document.uri.fsPath, S2());
    assert.equal(editor.selection.active.line, line - 1);
    assert.match(editor.document.lineAt(line - 1).text, /"id":"3a09a93f"/);
    // The whole raw line selected, from the file's bytes.
    const raw = fs.readFileSync(S2(), "utf8").split("\n")[line - 1]!;
    assert.equal(editor.document.getText(editor.selection), raw);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  test("Export Branch writes the active branch as Markdown or HTML where it is told; never a .jsonl", async () => {
    const dir = fs.mkdtempSync(path.join(HOME, "export-"));
    // The raw file's first user prompt and its last line's entry, read here, not through the extension.
    const records = fs
      .readFileSync(S2(), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; id?: string; message?: { role?: string; content?: unknown } });
    const first = records.find((r) => r.type === "message" && r.message?.role === "user")!.message!.content;
    const prompt = typeof first === "string" ? first : (first as { text: string }[])[0]!.text;
    const md = path.join(dir, "s2.md");
    const written = await vscode.commands.executeCommand("piSessions.exportBranch", S2(), {
      format: "md",
      uri: vscode.Uri.file(md).toString(),
    });
    assert.equal(written, md);
    const text = fs.readFileSync(md, "utf8");
    // The prompt's Markdown is kept (#35): what a viewer shows of the export holds what the prompt shows.
    const shown = plainText(permissiveViewer.render(text));
    assert.ok(shown.includes(plainText(messageViewer.render(prompt))), "the first prompt is in the export");
    assert.ok(text.includes(`(entry ${records.at(-1)!.id}) · `), "the active branch, its leaf named");
    const html = path.join(dir, "s2.html");
    await vscode.commands.executeCommand("piSessions.exportBranch", S2(), {
      format: "html",
      uri: vscode.Uri.file(html).toString(),
    });
    assert.match(
      fs.readFileSync(html, "utf8"),
      /^<!DOCTYPE html>[\s\S]*Content-Security-Policy[\s\S]*<div class="markdown">[\s\S]*<\/html>\n$/,
    );
    const before = fs.readFileSync(S2(), "utf8");
    const refused = await vscode.commands.executeCommand("piSessions.exportBranch", S2(), {
      format: "md",
      uri: vscode.Uri.file(S2()).toString(),
    });
    assert.equal(refused, undefined);
    assert.equal(fs.readFileSync(S2(), "utf8"), before, "the session is untouched");
  });

  test("a command error is shown, not thrown: paths outside the session roots are refused", async () => {
    const r = await vscode.commands.executeCommand("piSessions.openEntry", "/etc/passwd", 1);
    assert.equal(r, undefined);
    assert.ok(!vscode.window.visibleTextEditors.some((e) => e.document.uri.fsPath === "/etc/passwd"));
  });

  test("live: an appended entry appears in its session only; a partial last line waits until complete", async () => {
    const file = S1();
    const s1 = await sessionEl(file);
    const before = await rows(s1);
    const lines = fs.readFileSync(file, "utf8").trimEnd().split("\n");
    const leaf = JSON.parse(lines[lines.length - 1]!);
    const entry = {
      type: "message",
      id: "live0001",
      parentId: leaf.id,
      timestamp: new Date().toISOString(),
      message: { role: "user", content: "Live prompt from the test", timestamp: Date.now() },
    };
    const line = `${JSON.stringify(entry)}\n`;
    const tracker = api.service.lib.tracker(file)!;
    assert.ok(tracker, "the expanded session is followed");
    const readBefore = tracker.totalBytesRead;
    const events: (Element | Element[] | undefined)[] = [];
    const sub = api.tree.onDidChangeTreeData((e) => events.push(e));
    try {
      fs.appendFileSync(file, line.slice(0, 40));
      await waitFor(
        "the partial line to be seen",
        () =>
          api.service.lib.get(file)?.summary.ok &&
          (api.service.lib.get(file)!.summary as { truncatedTail: boolean }).truncatedTail,
      );
      assert.equal((await rows(s1)).length, before.length, "nothing new while the line is partial");
      fs.appendFileSync(file, line.slice(40));
      const after = await waitFor("the new turn", async () => {
        const r = await rows(s1);
        return r.length === before.length + 1 ? r : undefined;
      });
      assert.equal(label(after[after.length - 1]!), "Live prompt from the test");
      assert.match(desc(after[after.length - 1]!), /^● active leaf/);
      assert.match(desc(s1), /● live/);
      // Only that session's nodes (and its forks', whose labels name it) were refreshed, never the whole tree.
      const forkOfFile = (f: string) => {
        const head = fs
          .readFileSync(f, "utf8")
          .split("\n")
          .map((l) => {
            try {
              return JSON.parse(l) as { type?: string; parentSession?: string };
            } catch {
              return {};
            }
          })
          .find((r) => r.type === "session");
        return path.basename(head?.parentSession ?? "") === path.basename(file);
      };
      assert.ok(events.length > 0);
      for (const e of events) {
        assert.ok(Array.isArray(e), "a targeted refresh");
        // A session another suite deleted just before may still be taken out of the tree meanwhile: that refresh is
        // of a file that is gone, not of this one's neighbours.
        assert.ok(
          e.every((x) => x.kind === "session" && (x.file === file || !fs.existsSync(x.file) || forkOfFile(x.file))),
        );
      }
      // Only the new bytes (plus the first line, compared to detect in-place rewrites) were read.
      const header = Buffer.byteLength(lines[0]!) + 1;
      assert.equal(tracker.totalBytesRead - readBefore, Buffer.byteLength(line) + 2 * header);
    } finally {
      sub.dispose();
    }
  });

  test("live: OMP's in-place title-slot rewrite and its rename-replace are picked up", async () => {
    const file = O1();
    const el = await sessionEl(file);
    await kids(el);
    const text = fs.readFileSync(file, "utf8");
    const size = fs.statSync(file).size;
    // T2: same size, new title, written at offset 0.
    const fd = fs.openSync(file, "r+");
    fs.writeSync(
      fd,
      Buffer.from('"title":"mathkit renamed!"'),
      0,
      undefined,
      text.indexOf('"title":"mathkit overview"'),
    );
    fs.closeSync(fd);
    assert.equal(fs.statSync(file).size, size);
    await waitFor("the renamed title", () => label(el) === "mathkit renamed!");
    // T15: a full rewrite to a temp file renamed over the session (a new inode), with one more entry.
    const current = fs.readFileSync(file, "utf8").trimEnd().split("\n");
    const last = JSON.parse(current[current.length - 1]!);
    const added = {
      type: "message",
      id: "omp00001",
      parentId: last.id,
      timestamp: new Date().toISOString(),
      message: { role: "user", content: "After rename-replace", timestamp: Date.now() },
    };
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.tmp`);
    fs.writeFileSync(tmp, `${current.join("\n")}\n${JSON.stringify(added)}\n`);
    fs.renameSync(tmp, file);
    await waitFor("the entry written by rename-replace", async () =>
      (await rows(el)).some((r) => label(r) === "After rename-replace"),
    );
  });

  test("live: new forks appear; orphan and external parents are shown as such and never opened", async () => {
    const header = (id: string, parentSession: string) =>
      jsonl(
        fork(parentSession, { id, time: "2026-11-29T18:55:00.000Z", cwd: path.join(HOME, "src", "proj") }),
        message("x1", null, "user", `prompt of ${id}`, { time: "2026-11-29T18:55:01.000Z" }),
      );
    const orphan = path.join(PROJ, "2026-11-29T18-55-00-000Z_orphan.jsonl");
    const external = path.join(PROJ, "2026-11-29T18-55-00-000Z_external.jsonl");
    fs.writeFileSync(orphan, header("orphan-fork", path.join(PROJ, "gone.jsonl")));
    fs.writeFileSync(external, header("external-fork", "/etc/passwd"));
    try {
      const orphanEl = await waitFor("the orphan fork", () => api.tree.sessionElementFor(orphan));
      const externalEl = await waitFor("the external fork", () => api.tree.sessionElementFor(external));
      assert.match(String(item(orphanEl).contextValue), /:fork:orphan/);
      assert.match(String(item(externalEl).contextValue), /:fork:external/);
      assert.equal(label((await kids(orphanEl))[0]!), "Forked from a session that is gone (orphan fork)");
      assert.equal(label((await kids(externalEl))[0]!), "Forked from a session outside the session roots");
      assert.equal(
        await vscode.commands.executeCommand("piSessions.revealParent", externalEl),
        undefined,
        "refused with an error message",
      );
    } finally {
      fs.rmSync(orphan, { force: true });
      fs.rmSync(external, { force: true });
    }
    await waitFor("the forks to disappear", async () => !(await api.tree.sessionElementFor(orphan)));
  });

  test("settings: includeOmp hides OMP sessions; an empty or missing agent dir gives its welcome state", async () => {
    const config = vscode.workspace.getConfiguration("piSessions");
    const stateAfter = async () => {
      await kids();
      return api.service.state;
    };
    try {
      await config.update("includeOmp", false, vscode.ConfigurationTarget.Global);
      await waitFor("OMP sessions to go", async () => (await stateAfter()) === "ready" && !api.service.lib.get(O1()));
      assert.ok(
        api.service.lib.get(S2()),
        `pi sessions stay (${api.service.state}, ` +
          `sessions: ${api.service.lib.sessions.map((x) => path.basename(x.file)).join(", ")})`,
      );
      const empty = fs.mkdtempSync(path.join(HOME, "empty-agent-"));
      await config.update("agentDirs", [empty], vscode.ConfigurationTarget.Global);
      await waitFor("the no-sessions state", async () => (await stateAfter()) === "noSessions");
      assert.deepEqual(await kids(), [], "the view is empty, so viewsWelcome explains");
      await config.update("agentDirs", [path.join(HOME, "no-such-agent-dir")], vscode.ConfigurationTarget.Global);
      await waitFor("the no-agent-dir state", async () => (await stateAfter()) === "noAgentDir");
    } finally {
      await config.update("agentDirs", undefined, vscode.ConfigurationTarget.Global);
      await config.update("includeOmp", undefined, vscode.ConfigurationTarget.Global);
    }
    await waitFor(
      "the store to come back",
      async () => (await stateAfter()) === "ready" && !!api.service.lib.get(O1()),
    );
    await vscode.commands.executeCommand("piSessions.refresh");
    assert.ok(await api.tree.sessionElementFor(S2()));
  });
});
