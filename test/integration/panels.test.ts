// The webview panels in the real VS Code: each opens for the fixtures, its page says "ready", receives its model,
// renders it and reports back what it shows (a full host → webview → host round trip through the real webview).
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { message } from "../support/builders.js";
import { jsonl, waitFor } from "../support/helpers.js";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import type { Element, RowNode } from "../../src/extension/tree/index.js";
import type { OpenPanel } from "../../src/extension/webviews/panels.js";
import type {
  CheckpointModel,
  ContextModel,
  DashboardModel,
  LineageModel,
  SessionUsageModel,
} from "../../src/protocol/views.js";
import { piSlug } from "../../src/core/slug.js";
import { formatRowCost } from "../../src/protocol/format.js";
import { activateExtension, closeEditors } from "./harness.js";

const HOME = process.env.PI_SESSIONS_FIXTURE_HOME ?? "";
const PI = path.join(HOME, ".pi", "agent", "sessions");
const PROJ = path.join(PI, piSlug(path.join(HOME, "src", "proj")));
const file = (part: string) =>
  path.join(
    PROJ,
    fs.readdirSync(PROJ).find((f) => f.includes(part))!,
  );

suite("Pi Sessions panels in a real VS Code", () => {
  let api: PiSessionsApi;
  /** The panel of a kind once its page rendered the latest model. */
  const rendered = <K extends OpenPanel["kind"]>(kind: K, seqAtLeast = 1) =>
    waitFor(`the ${kind} panel to render`, () =>
      // `facts` is reset with each model posted, and set by the page's "rendered" for that model only.
      api.panels.find(kind, (p) => p.facts !== null && p.seq >= seqAtLeast),
    );

  suiteSetup(async () => {
    api = await activateExtension();
  });

  suiteTeardown(closeEditors);

  test("Usage & Cost opens from the palette, renders fork-aware totals, and re-renders for a new range", async () => {
    await vscode.commands.executeCommand("piSessions.showUsage");
    const p = await rendered("usage");
    const m = p.model as DashboardModel;
    assert.equal(m.scope, "workspace");
    assert.equal(p.facts!.cost, m.totals.cost.toFixed(6));
    assert.equal(p.facts!.sessions, m.sessions);
    assert.equal(p.facts!.models, m.models.length);
    // The one cost format (marked when some records carry no price: the in-host compactions wrote server ones).
    assert.equal(p.facts!.shownCost, formatRowCost(m.totals), "the one cost format");
    assert.ok(m.totals.cost > 0 && m.totals.inheritedCost > 0, "fixture forks inherit priced turns");
    // The strict CSP: nothing but nonce'd scripts and extension resources.
    const html = p.panel.webview.html;
    assert.match(html, /default-src 'none'/);
    assert.match(html, /script-src 'nonce-[^']+'/);
    assert.doesNotMatch(html, /<script(?![^>]*nonce)/);
    // Images from the extension only, as SECURITY.md says: no data: or remote images.
    const img = /img-src ([^;"]*)/.exec(html)?.[1] ?? "";
    assert.equal(img.trim(), p.panel.webview.cspSource, `img-src ${img}`);
    // A new range for the same panel: the page renders the next model.
    const seq = p.seq;
    api.panels.show({ panel: "usage", scope: "all", since: "2999-01-01", until: null });
    const again = await rendered("usage", seq + 1);
    assert.equal(again, p, "the same panel is reused");
    assert.equal((again.model as DashboardModel).totals.cost, 0);
    assert.equal(again.facts!.cost, (0).toFixed(6));
  });

  test("export writes the dashboard table as CSV and JSON", async () => {
    const p = await rendered("usage");
    api.panels.show({ panel: "usage", scope: "all", since: null, until: null });
    const q = await rendered("usage", p.seq + 1);
    assert.ok((q.model as DashboardModel).totals.cost > 0);
    const out = path.join(HOME, "export-models.csv");
    await api.panels.exportFromPanel(q, "csv", "models", vscode.Uri.file(out));
    const lines = fs.readFileSync(out, "utf8").trimEnd().split("\n");
    assert.equal(
      lines[0],
      "key,label,cost,activeCost,inheritedCost,input,output,cacheRead,cacheWrite,totalTokens,messages,unpriced",
    );
    assert.equal(lines.length, (q.model as DashboardModel).models.length + 1);
    const json = path.join(HOME, "export-sessions.json");
    await api.panels.exportFromPanel(q, "json", "sessions", vscode.Uri.file(json));
    assert.equal(JSON.parse(fs.readFileSync(json, "utf8")).rows.length, (q.model as DashboardModel).topSessions.length);
  });

  test("Session usage opens for a session node: branches, turns and compaction markers", async () => {
    const s3 = file("d565");
    const el = await api.tree.sessionElementFor(s3);
    await vscode.commands.executeCommand("piSessions.showSessionUsage", el);
    const p = await rendered("sessionUsage");
    const m = p.model as SessionUsageModel;
    assert.equal(p.state.file, s3);
    assert.equal(p.facts!.compactions, 2);
    assert.equal(p.facts!.turns, m.turns.length);
    assert.equal(p.facts!.segments, 1);
    assert.match(p.panel.title, /^Usage: Explain the layout/);
  });

  test("Checkpoint inspector opens for a compaction node and reports supersession", async () => {
    const s3 = file("d565");
    const el = await api.tree.sessionElementFor(s3);
    const rows = (await api.tree.getChildren(el)).filter((k): k is RowNode => k.kind === "row");
    const compaction = rows.find((r) => api.tree.getTreeItem(r).contextValue === "piSessions:entry:compaction")!;
    await vscode.commands.executeCommand("piSessions.inspectCheckpoint", compaction);
    const p = await rendered("checkpoint");
    const m = p.model as CheckpointModel;
    assert.equal(m.entryId, compaction.item.id);
    assert.equal(p.facts!.entryId, compaction.item.id);
    assert.ok(m.supersededBy, "the first of two compactions is superseded");
    assert.equal(p.facts!.superseded, m.supersededBy);
    assert.equal(p.facts!.blackmagic, false);
  });

  test("Fork lineage opens for a fork and draws its parent and siblings", async () => {
    const fork = file("d64a");
    await vscode.commands.executeCommand("piSessions.showLineage", fork);
    const p = await rendered("lineage");
    const m = p.model as LineageModel;
    assert.ok(
      m.nodes.some((n) => n.file === file("d4f8")),
      "the parent is drawn",
    );
    assert.equal(p.facts!.nodes, m.nodes.length);
    assert.equal(p.facts!.edges, m.edges.length);
    assert.deepEqual(
      m.edges.map((e) => [e.from, e.to]),
      [[file("d4f8"), fork]],
    );
    // The fork point is described from the parent's entry (the fork's last inherited entry), not by its raw id.
    const fp = api.service.lib.get(fork)!.forkPointId!;
    assert.match(m.edges[0]!.label, /^at \S/);
    assert.notEqual(m.edges[0]!.label, `at ${fp}`);
  });

  test("Effective context opens for an entry node: the compaction summary first", async () => {
    const s3 = file("d565");
    const el = await api.tree.sessionElementFor(s3);
    const rows = (await api.tree.getChildren(el)).filter((k): k is RowNode => k.kind === "row");
    const last = rows[rows.length - 1]! as Element;
    await vscode.commands.executeCommand("piSessions.showContext", last);
    const p = await rendered("context");
    const m = p.model as ContextModel;
    assert.equal(p.facts!.first, "compactionSummary");
    assert.equal(p.facts!.messages, m.rows.length);
    assert.equal(p.facts!.totalTokens, m.totalTokens);
    assert.equal(m.compactions.length, 2);
  });

  test("a panel of a session that changes re-renders with the new data", async () => {
    const s1 = file("d404");
    await vscode.commands.executeCommand("piSessions.showContext", s1);
    const p = await waitFor("the S1 context panel", () =>
      api.panels.find("context", (x) => x.state.file === s1 && x.facts),
    );
    const before = (p.model as ContextModel).rows.length;
    const lines = fs.readFileSync(s1, "utf8").trimEnd().split("\n");
    const leaf = JSON.parse(lines[lines.length - 1]!);
    fs.appendFileSync(s1, jsonl(message("ctx00001", leaf.id, "user", "one more", { time: new Date().toISOString() })));
    await waitFor(
      "the re-rendered context",
      () => (p.model as ContextModel).rows.length === before + 1 && p.facts?.messages === before + 1,
    );
  });
});
