// The transcript editor in the real VS Code: opened by command and by a click in the tree, a branch switched, a fork's
// copies folded, a compaction's replaced entries toggled, and a live append followed. What the page reports showing
// (its rendered rows) is checked against expectations computed here from the raw session files.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { sleep, waitFor } from "../support/helpers.js";
import { stubUi } from "./stubs.js";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import type { Element, RowNode } from "../../src/extension/tree/index.js";
import type { OpenTranscript } from "../../src/extension/webviews/transcriptPanel.js";
import { piSlug } from "../../src/core/slug.js";
import { projSession, type RawRecord, rawRecords } from "./fixtureHome.js";
import { activateExtension, closeEditors } from "./harness.js";

const HOME = process.env.PI_SESSIONS_FIXTURE_HOME ?? "";
const PROJ = path.join(HOME, ".pi", "agent", "sessions", piSlug(path.join(HOME, "src", "proj")));
const byId = projSession;
const S2 = () => byId("d4f8"); // 2 branches, labels, name
const S3 = () => byId("d565"); // 2 compactions
const S5A = () => byId("d64a"); // /fork of S2

type Raw = RawRecord;
const records = rawRecords;

/** The path from the root to `leaf`, from the raw records' parent links. */
function rawPath(list: Raw[], leaf: string): Raw[] {
  const byId = new Map(list.map((r) => [r.id, r]));
  const out: Raw[] = [];
  for (let r = byId.get(leaf); r; r = r.parentId ? byId.get(r.parentId) : undefined) out.unshift(r);
  return out;
}

/** Rows of a path: `custom` records show nothing; tool results share their assistant's row. */
function rawRows(path: Raw[]): Raw[] {
  const rows: Raw[] = [];
  let last: Raw | undefined;
  for (const r of path) {
    if (r.type === "custom") continue;
    if (r.message?.role === "toolResult" && last?.message?.role === "assistant") continue;
    if (r.message?.role !== "toolResult") last = r;
    rows.push(r);
  }
  return rows;
}

suite("Pi Sessions transcript in a real VS Code", () => {
  let api: PiSessionsApi;
  const open = (file: string) => api.transcripts.open.find((t) => t.file === file);
  /** The transcript of `file` once its page reports `ok(facts)`. */
  const shown = (file: string, what: string, ok: (f: Record<string, unknown>) => boolean) =>
    waitFor(`the transcript of ${path.basename(file)} to show ${what}`, () => {
      const t = open(file);
      return t?.facts && ok(t.facts) ? (t as OpenTranscript & { facts: Record<string, unknown> }) : undefined;
    });

  suiteSetup(async () => {
    api = await activateExtension();
  });

  suiteTeardown(closeEditors);

  test("Open Transcript shows the active branch to its last entry, titled with the session's name", async () => {
    const file = S2();
    const list = records(file);
    const leaf = list[list.length - 1]!.id;
    const rows = rawRows(rawPath(list, leaf));
    await vscode.commands.executeCommand("piSessions.openTranscript", file);
    const t = await shown(file, "its end", (f) => f.last === leaf);
    assert.equal(t.facts.rows, rows.length, "one row per entry shown; results with their call");
    assert.equal(t.facts.activeLeaf, true);
    assert.equal(t.panel.title, "Stats helpers (sum/avg/median)");
    assert.equal(t.panel.viewType, "piSessions.transcript");
    // Strict CSP: scripts by nonce; images from the extension and data: URIs the host made, nothing remote.
    const html = t.panel.webview.html;
    assert.match(html, /default-src 'none'/);
    assert.match(html, /img-src [^;]* data:;/);
    assert.doesNotMatch(html, /https?:\/\/(?!.*vscode)/);
    assert.equal(t.panel.options.enableFindWidget, true);
  });

  test("a click on a turn in the tree opens the transcript there, highlighted", async () => {
    const file = S2();
    const s2 = await api.tree.sessionElementFor(file);
    const turns = (await api.tree.getChildren(s2!)).filter((k): k is RowNode => k.kind === "row");
    const first = turns.find((r) => r.item.id === "3a09a93f")!;
    const cmd = api.tree.getTreeItem(first as Element).command!;
    assert.equal(cmd.command, "piSessions.openTranscript");
    await vscode.commands.executeCommand(cmd.command, ...(cmd.arguments ?? []));
    const t = await shown(file, "the turn highlighted", (f) => f.highlighted === "3a09a93f");
    assert.ok((t.facts.rendered as number) > 0);
    // The raw line stays one menu item away.
    const menus = vscode.extensions.getExtension("pi-session-explorer.pi-session-explorer")!.packageJSON.contributes
      .menus["view/item/context"] as { command: string; when: string }[];
    assert.ok(menus.some((m) => m.command === "piSessions.openEntry" && /entry/.test(m.when)));
  });

  test("switching a branch shows the other branch to its newest entry; the tree follows", async () => {
    const file = S2();
    const list = records(file);
    const t = open(file)!;
    // The branch point: the label cba5122d has two children; the active branch goes through the later one.
    const kids = list.filter((r) => r.parentId === "cba5122d").map((r) => r.id);
    assert.equal(kids.length, 2);
    const other = kids[0]!;
    const below = new Set([other]);
    for (const r of list) if (r.parentId && below.has(r.parentId)) below.add(r.id);
    const newest = list.filter((r) => below.has(r.id)).pop()!.id;
    await api.transcripts.chooseBranch(t, kids[1]!, newest);
    const after = await shown(file, "the other branch", (f) => f.leafId === newest && f.highlighted === other);
    assert.equal(after.facts.activeLeaf, false);
    const sel = await waitFor("the tree to select the branch", () => api.view.selection[0]);
    assert.equal(sel.kind === "row" ? sel.item.id : "", other);
  });

  test("Open as Diff shows an agent's edit as a diff of its two texts, as written in the file", async () => {
    const file = S2();
    const t = open(file)!;
    const list = records(file) as (Raw & { message?: { content?: unknown } })[];
    const call = list
      .flatMap((r) => (Array.isArray(r.message?.content) ? r.message.content.map((b) => ({ r, b })) : []))
      .find(({ b }) => (b as { type?: string; name?: string }).name === "edit")!;
    const args = (
      call.b as { arguments: { oldText?: string; newText?: string; edits?: { oldText: string; newText: string }[] } }
    ).arguments;
    const edit = args.edits?.[0] ?? { oldText: args.oldText!, newText: args.newText! };
    await (api.transcripts as unknown as { receive(t: OpenTranscript, m: unknown): Promise<void> }).receive(t, {
      type: "openDiff",
      entryId: call.r.id,
      call: 0,
      edit: 0,
    });
    const tab = await waitFor("a diff editor", () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputTextDiff ? input : undefined;
    });
    assert.equal(tab.original.scheme, "pi-sessions-diff");
    assert.equal((await vscode.workspace.openTextDocument(tab.original)).getText(), edit.oldText);
    assert.equal((await vscode.workspace.openTextDocument(tab.modified)).getText(), edit.newText);
    await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  });

  test("links: only http(s) open, after a modal confirmation; messages that are not valid are ignored", async () => {
    const t = open(S2())!;
    const receive = (m: unknown) =>
      (api.transcripts as unknown as { receive(t: OpenTranscript, m: unknown): Promise<void> }).receive(t, m);
    const ui = stubUi({});
    try {
      await receive({ type: "openLink", url: "command:workbench.action.quit" });
      await receive({ type: "openLink", url: "https://example.com/a" });
      await receive({ type: "fetch", seq: 0, start: -5, end: 10 });
      await receive({ type: "openDiff", entryId: "x", call: 0, edit: 0, extra: "<script>" });
    } finally {
      ui.restore();
    }
    assert.deepEqual(
      ui.shown.map((s) => [s.kind, s.modal]),
      [
        ["information", false],
        ["warning", true],
      ],
    );
    assert.match(ui.shown[1]!.text, /example\.com/);
  });

  test("the ⋯ button opens the entry's menu; its raw line opens read-only", async () => {
    const file = S2();
    await vscode.commands.executeCommand("piSessions.openTranscript", file);
    const t = await shown(file, "rows", (f) => (f.rendered as number) > 0);
    const before = fs.readFileSync(file, "utf8");
    const lines = before.split("\n");
    const at = lines.findIndex((l) => l.includes('"id":"d3453f8f"'));
    assert.ok(at > 0);
    // The "⋯" button's message opens the menu; its first choice (Enter, as a user accepts it) copies the entry's id.
    await vscode.env.clipboard.writeText("");
    const menu = (api.transcripts as unknown as { receive(t: OpenTranscript, m: unknown): Promise<void> }).receive(t, {
      type: "entryActions",
      entryId: "d3453f8f",
    });
    await waitFor("the menu's first choice taken", async () => {
      await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
      return (await vscode.env.clipboard.readText()) === "d3453f8f" || undefined;
    });
    await menu;
    // Its raw line: the session file at the entry, read-only: a typed key changes nothing.
    await vscode.commands.executeCommand("piSessions.openEntry", { file, entryId: "d3453f8f" });
    const editor = await waitFor("the session file in an editor", () =>
      vscode.window.activeTextEditor?.document.uri.fsPath === file ? vscode.window.activeTextEditor : undefined,
    );
    assert.equal(editor.selection.active.line, at);
    await vscode.commands.executeCommand("type", { text: "x" });
    await sleep(300);
    assert.equal(editor.document.isDirty, false, "the read-only editor took no key");
    assert.equal(editor.document.getText(), before);
    assert.equal(fs.readFileSync(file, "utf8"), before);
    await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  });

  test("a fork folds its copied entries into one row, and unfolds them on request", async () => {
    const file = S5A();
    await vscode.commands.executeCommand("piSessions.openTranscript", file);
    const stored = api.service.lib.get(file)!;
    assert.ok(stored.parent && stored.inherited.size > 0, "the fixture is a fork with copies");
    const t = await shown(file, "its end", (f) => f.atBottom === true && (f.rendered as number) > 0);
    const folded = t.doc!.plan.rows[0]!;
    assert.equal(folded.kind, "inherited");
    await api.transcripts.reveal(t, stored.forkPointId!);
    await shown(file, "the fork point", (f) => f.highlighted === stored.forkPointId);
    assert.equal(t.doc!.showInherited, true, "revealing a copied entry unfolds the copies");
  });

  test("a compaction hides what it replaced until its card is opened; replaced entries show dimmed", async () => {
    const file = S3();
    const list = records(file);
    const compaction = list.filter((r) => r.type === "compaction").pop()!;
    const leaf = list[list.length - 1]!.id;
    const p = rawPath(list, leaf);
    const kept = p.findIndex((r) => r.id === compaction.firstKeptEntryId);
    await vscode.commands.executeCommand("piSessions.openTranscript", file);
    const t = await shown(file, "its end", (f) => f.last === leaf || f.atBottom === true);
    // Nothing before the last compaction's kept entry is a row.
    const hidden = rawRows(p.slice(0, kept)).map((r) => r.id);
    for (const id of hidden) assert.equal(t.doc!.plan.rowOf.get(id), undefined, `${id} is hidden`);
    await vscode.commands.executeCommand("piSessions.openTranscript", file, hidden[1]);
    const revealed = await shown(file, "a replaced entry", (f) => f.highlighted === hidden[1]);
    assert.ok(revealed.doc!.expanded.has(compaction.id), "revealing a replaced entry opens its compaction");
    assert.equal(revealed.doc!.row(revealed.doc!.plan.rowOf.get(hidden[1]!)!)!.kind === "item", true);
  });

  test("live: entries an agent appends appear at the bottom, followed because the view was there", async () => {
    const file = path.join(PROJ, "2026-11-30T10-00-00-000Z_0000live-tran-4000-8000-000000000001.jsonl");
    const t0 = new Date().toISOString();
    const lines = [
      {
        type: "session",
        version: 3,
        id: "0000live-tran-4000-8000-000000000001",
        timestamp: t0,
        cwd: path.join(HOME, "src", "proj"),
      },
      {
        type: "message",
        id: "lt000001",
        parentId: null,
        timestamp: t0,
        message: { role: "user", content: "First live prompt", timestamp: Date.now() },
      },
    ];
    fs.writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    try {
      await waitFor("the new session to be listed", () => api.service.lib.get(file));
      await vscode.commands.executeCommand("piSessions.openTranscript", file);
      await shown(file, "its one entry", (f) => f.last === "lt000001");
      for (let i = 2; i <= 4; i++) {
        const e = {
          type: "message",
          id: `lt00000${i}`,
          parentId: `lt00000${i - 1}`,
          timestamp: new Date().toISOString(),
          message: {
            role: i % 2 ? "user" : "assistant",
            content: [{ type: "text", text: `live ${i}` }],
            timestamp: Date.now(),
          },
        };
        fs.appendFileSync(file, `${JSON.stringify(e)}\n`);
      }
      const t = await shown(file, "the appended entries", (f) => f.last === "lt000004" && f.rows === 4);
      assert.equal(t.facts.atBottom, true);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  test("pi 1.6 sessions: system-prompt cards, a context edit on its target, nested calls listed", async () => {
    // Two sessions the real pi 1.6.0 wrote, copied into the store (bundled tests run from dist/test/integration).
    const real = path.join(__dirname, "..", "..", "..", "fixtures", "real", "pi-1.6", "sessions");
    const slug = path.join(HOME, ".pi", "agent", "sessions", "--home-ana-src-tidepool--");
    fs.mkdirSync(slug, { recursive: true });
    const copy = (idPart: string) => {
      const dir = fs.readdirSync(real).map((d) => path.join(real, d));
      const src = dir
        .flatMap((d) => fs.readdirSync(d).map((f) => path.join(d, f)))
        .find((f) => f.includes(idPart) && f.endsWith(".jsonl"))!;
      const dest = path.join(slug, path.basename(src));
      fs.copyFileSync(src, dest);
      return { src, dest };
    };
    const edited = copy("01a20c9c"); // S1: a retried request left out of context
    const nested = copy("01a20caf"); // S4: a codemode result with nested calls
    const replaced = copy("01a20ca7"); // S2: a tool output replaced twice by an extension
    try {
      for (const { src, dest } of [edited, nested, replaced]) {
        await waitFor(`${path.basename(dest)} to be listed`, () => api.service.lib.get(dest));
        type Pi16Raw = Raw & { targetId?: string; message?: { role?: string; nestedCalls?: { calls?: unknown[] } } };
        const list = records(src) as Pi16Raw[];
        const onPath = rawPath(list, list[list.length - 1]!.id) as Pi16Raw[];
        await vscode.commands.executeCommand("piSessions.openTranscript", dest);
        const want = {
          systemCards: onPath.filter((e) => e.type === "message" && e.message?.role === "system").length,
          contextEdits: new Set(onPath.filter((e) => e.type === "context_edit").map((e) => e.targetId)).size,
          nestedCalls: onPath.reduce((n, e) => n + (e.message?.nestedCalls?.calls?.length ?? 0), 0),
        };
        // The page's rows hold them, and every row it built shows them (pi16Mismatches: rows that do not).
        const t = await shown(dest, "pi 1.6's entries", (f) => f.systemCards === want.systemCards);
        assert.deepEqual(
          { systemCards: t.facts.systemCards, contextEdits: t.facts.contextEdits, nestedCalls: t.facts.nestedCalls },
          want,
        );
        assert.equal(t.facts.pi16Mismatches, 0);
        assert.ok((t.facts.rendered as number) > 0);
      }
    } finally {
      fs.rmSync(slug, { recursive: true, force: true });
    }
    await waitFor("the copies to leave the store", () =>
      [edited, nested, replaced].every((c) => !api.service.lib.get(c.dest)),
    );
  });
});
