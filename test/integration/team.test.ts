// The team database in a real VS Code against a real PostgreSQL (started by scripts/vscode/run-integration.mjs): Set
// Team Database… stores what the user typed, Sync Now sends this window's store as one machine, the CLI sends a
// second machine's store, and Usage & Cost's Team scope shows both machines. Expectations come from the second
// machine's raw file (written here) and this window's own local scope over the same store; a database that refuses
// connections leaves the last good numbers on screen, with why, and no password anywhere.
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import type { DashboardModel } from "../../src/protocol/views.js";
import type { TeamConnection } from "../../src/node/team/index.js";
import { waitFor } from "../support/helpers.js";
import { activateExtension, closeEditors } from "./harness.js";
import { stubUi } from "./stubs.js";

const SERVER = process.env.PI_SESSIONS_TEST_POSTGRES ?? "";
const PASSWORD = "hunter2-team-secret";
/** The team database, with a password in the URL (the test server trusts loopback logins and never asks for it). */
const TEAM_URL = SERVER.replace("postgres://postgres@", `postgres://postgres:${PASSWORD}@`).replace(
  /\/postgres$/,
  "/team_it",
);

type Team = typeof import("../../src/node/team/index.js");
const extensionPath = () => vscode.extensions.getExtension("pi-session-explorer.pi-session-explorer")!.extensionPath;
/** The extension's own database module (dist/team.cjs, with the `pg` client). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const teamModule = (): Team => require(path.join(extensionPath(), "dist", "team.cjs")) as Team;

async function admin<T>(fn: (db: TeamConnection) => Promise<T>): Promise<T> {
  const db = await teamModule().connectTeam(SERVER, {});
  try {
    return await fn(db);
  } finally {
    await db.end();
  }
}

/** Machine B: one pi session written here, two replies with their usage as pi writes it. */
function machineB(): { home: string; cost: number; messages: number; input: number } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "pi-team-b-"));
  const dir = path.join(home, ".pi", "agent", "sessions", "--home-b-src-api--");
  fs.mkdirSync(dir, { recursive: true });
  const id = "01a2aaaa-0000-7000-8000-00000000b0b0";
  const usage = (input: number, output: number, total: number) => ({
    input,
    output,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: input + output,
    cost: { input: total / 2, output: total / 2, cacheRead: 0, cacheWrite: 0, total },
  });
  const reply = (n: number, parentId: string, u: ReturnType<typeof usage>) => ({
    type: "message",
    id: `b00${n}`,
    parentId,
    timestamp: `2026-12-01T10:0${n}:00.000Z`,
    message: {
      role: "assistant",
      content: [{ type: "text", text: `reply ${n}` }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-build-box",
      usage: u,
      stopReason: "stop",
      timestamp: Date.parse(`2026-12-01T10:0${n}:00.000Z`),
    },
  });
  const lines = [
    { type: "session", version: 3, id, timestamp: "2026-12-01T10:00:00.000Z", cwd: "/home/b/src/api" },
    {
      type: "message",
      id: "b000",
      parentId: null,
      timestamp: "2026-12-01T10:00:30.000Z",
      message: { role: "user", content: [{ type: "text", text: "hello from the build box" }], timestamp: 1 },
    },
    reply(1, "b000", usage(1200, 300, 0.75)),
    reply(2, "b001", usage(800, 100, 0.5)),
  ];
  fs.writeFileSync(
    path.join(dir, `2026-12-01T10-00-00-000Z_${id}.jsonl`),
    lines.map((l) => JSON.stringify(l)).join("\n") + "\n",
  );
  return { home, cost: 1.25, messages: 2, input: 2000 };
}

/** The CLI of the extension's own bundle, as machine B (its home). */
function cliAs(home: string, ...args: string[]) {
  return spawnSync(process.execPath, [path.join(extensionPath(), "dist", "cli.js"), ...args], {
    env: { ...process.env, HOME: home, PI_SESSIONS_CACHE_DIR: path.join(home, "cache"), ELECTRON_RUN_AS_NODE: "1" },
    encoding: "utf8",
  });
}

suite("Team database in a real VS Code (a real PostgreSQL)", () => {
  let api: PiSessionsApi;
  let bHome = "";

  /** The usage panel's model once its page rendered it in the Team scope. */
  async function teamPanel(after: number): Promise<{ model: DashboardModel; facts: Record<string, unknown> }> {
    api.panels.show({ panel: "usage", scope: "team", since: null, until: null });
    const p = await waitFor("the Team scope to render", () =>
      api.panels.find("usage", (x) => x.state.scope === "team" && x.facts !== null && x.seq > after),
    );
    return { model: p.model as DashboardModel, facts: p.facts! };
  }
  const seqNow = () => api.panels.find("usage")?.seq ?? 0;

  suiteSetup(async () => {
    assert.ok(SERVER, "run-integration.mjs gives the test server's URL");
    api = await activateExtension({ complete: true });
    await admin((db) => db.query("CREATE DATABASE team_it"));
    await vscode.workspace.getConfiguration("piSessions.team").update("machine", "editor-box", true);
  });

  suiteTeardown(async () => {
    await vscode.workspace.getConfiguration("piSessions.team").update("machine", undefined, true);
    await api.team.setUrl(undefined);
    await closeEditors();
  });

  test("with no database set, the Team scope says so and offers Set Team Database…", async () => {
    assert.equal(await api.team.url(), undefined);
    const { model, facts } = await teamPanel(seqNow());
    assert.equal(model.team?.unset, true);
    assert.equal(facts.teamUnset, true);
  });

  test("Sync Now and a second machine's CLI sync: the Team scope shows both machines, forks once", async () => {
    const ui = stubUi({ input: TEAM_URL });
    try {
      assert.equal(await vscode.commands.executeCommand("piSessions.setTeamDatabase"), true);
      assert.equal(await api.team.url(), TEAM_URL, "stored as typed");
      assert.equal(await vscode.commands.executeCommand("piSessions.syncTeam"), true);
    } finally {
      ui.restore();
    }
    const b = machineB();
    bHome = b.home;
    const r = cliAs(b.home, "sync", "--database", TEAM_URL, "--machine", "build-box");
    assert.equal(r.status, 0, r.stderr);
    // This window's own store, as its local All projects scope counts it (forks' copied turns once).
    const local = (await api.panels.model({ panel: "usage", scope: "all" })) as DashboardModel;
    assert.ok(local.totals.messages > 0, "the fixture store has usage");

    const { model, facts } = await teamPanel(seqNow());
    const machines = Object.fromEntries(model.team!.machines.map((m) => [m.label, m]));
    assert.deepEqual(Object.keys(machines).sort(), ["build-box", "editor-box"]);
    assert.equal(facts.teamMachines, model.team!.machines.map((m) => m.label).join(","), "the page shows the table");
    assert.equal(machines["build-box"]!.messages, b.messages);
    assert.ok(Math.abs(machines["build-box"]!.cost - b.cost) < 1e-9);
    assert.equal(machines["build-box"]!.input, b.input);
    assert.equal(machines["editor-box"]!.messages, local.totals.messages);
    assert.ok(Math.abs(machines["editor-box"]!.cost - local.totals.cost) < 1e-6);
    assert.equal(model.totals.messages, local.totals.messages + b.messages);
    assert.ok(Math.abs(model.totals.cost - (local.totals.cost + b.cost)) < 1e-6);
    assert.ok(model.models.some((m) => m.key === "anthropic/claude-build-box"));
    assert.equal(model.team!.error, undefined);
    assert.doesNotMatch(JSON.stringify(model), new RegExp(PASSWORD));
  });

  test("Open Team Session…: a session of a machine that sends its text, as a read-only transcript", async () => {
    const r = cliAs(bHome, "sync", "--database", TEAM_URL, "--machine", "build-box", "--content");
    assert.equal(r.status, 0, r.stderr);
    const ui = stubUi({ pick: "hello from the build box" });
    let uri: string | undefined;
    try {
      uri = await vscode.commands.executeCommand<string | undefined>("piSessions.openTeamSession");
    } finally {
      ui.restore();
    }
    // Only sessions with text are offered: this window synced without it.
    assert.deepEqual(
      ui.picks.map((p) => p.labels),
      [["hello from the build box"]],
    );
    assert.ok(uri, "a transcript was shown");
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
    const text = doc.getText();
    // As machine B's raw file says: its prompt, then its two replies, in the order written.
    assert.match(text, /on build-box, from the team database/);
    const at = (s: string) => text.indexOf(s);
    assert.ok(at("hello from the build box") > 0 && at("reply 1") > at("hello from the build box"));
    assert.ok(at("reply 2") > at("reply 1"));
    assert.equal([...text.matchAll(/^## /gm)].length, 3);
    assert.equal(doc.uri.scheme, "pi-sessions-team");
    assert.doesNotMatch(text, new RegExp(PASSWORD));
    // The preview closed: the next test's panel is the only view that reads the database.
    await closeEditors();
  });

  test("a database that refuses connections: the last good numbers stay, with why; no password anywhere", async () => {
    const before = (await teamPanel(seqNow())).model;
    await admin(async (db) => {
      await db.query("ALTER DATABASE team_it ALLOW_CONNECTIONS false");
      await db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'team_it'");
    });
    try {
      const { model, facts } = await teamPanel(seqNow());
      assert.ok(model.team?.error, "says why");
      assert.equal(model.totals.cost, before.totals.cost, "the last good totals");
      assert.equal(model.team!.asOf, before.team!.asOf, "with their time");
      assert.ok(String(facts.teamError).length > 0, "the page shows the error");
      const ui = stubUi({});
      try {
        assert.equal(await vscode.commands.executeCommand("piSessions.syncTeam"), undefined);
      } finally {
        ui.restore();
      }
      const error = ui.shown.find((s) => s.kind === "error");
      assert.ok(error, "Sync Now failed with a message");
      assert.match(error.text, /team_it/);
      assert.doesNotMatch(error.text + model.team!.error, new RegExp(PASSWORD));
      assert.ok(api.team.status.lastError, "the status bar's hover has it");
      // With no live session (none counts as live for now) the item shows the failed sync alone, and opens the
      // Team scope.
      api.liveStatus.liveMs = 0;
      api.liveStatus.update();
      await waitFor("the team item", () => api.liveStatus.shown && api.liveStatus.item.text.includes("π team"));
      // The hover's Markdown escapes the text (spaces as &nbsp;, marks with a backslash).
      const hover = (api.liveStatus.item.tooltip as vscode.MarkdownString).value
        .replace(/&nbsp;/g, " ")
        .replace(/\\(.)/g, "$1");
      assert.match(hover, /the last sync failed just now: cannot connect .*\/team_it/);
      assert.doesNotMatch(hover, new RegExp(PASSWORD));
      assert.equal((api.liveStatus.item.command as vscode.Command).command, "piSessions.showTeamUsage");
    } finally {
      await admin((db) => db.query("ALTER DATABASE team_it ALLOW_CONNECTIONS true"));
    }
    // A sync that succeeds again puts the item away (no session of this window is live).
    const ui = stubUi({});
    try {
      assert.equal(await vscode.commands.executeCommand("piSessions.syncTeam"), true);
    } finally {
      ui.restore();
    }
    try {
      await waitFor("the team item to hide", () => !api.liveStatus.shown);
    } finally {
      api.liveStatus.liveMs = 60_000;
    }
    // Nothing the extension keeps or logs holds the password (SecretStorage is the only place it lives).
    const logFiles = (d: string): string[] =>
      fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => {
        const p = path.join(d, e.name);
        return e.isDirectory() ? logFiles(p) : e.name.endsWith(".log") ? [p] : [];
      });
    const logs = await waitFor("the failure in the log", () => {
      const text = logFiles(api.logDir)
        .map((f) => fs.readFileSync(f, "utf8"))
        .join("\n");
      return text.includes("team database:") && text;
    });
    assert.doesNotMatch(logs, new RegExp(PASSWORD));
  });
});
