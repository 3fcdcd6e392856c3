// package.json is part of the product: its contributions must match the code (commands, views, menus, settings).
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FILTER_MODES } from "../../src/core/outline.js";
import {
  AgentHistoryViewId,
  CommandId,
  ContainerId,
  ContextKey,
  PanelViewType,
  SessionsViewId,
  TranscriptViewType,
} from "../../src/extension/ids.js";
import { PANEL_KINDS } from "../../src/protocol/messages.js";
import { ROOT } from "../support/fixtures.js";

/** package.json as VS Code shows it: every `%key%` replaced by its text in package.nls.json. */
const nls = JSON.parse(readFileSync(join(ROOT, "package.nls.json"), "utf8")) as Record<string, string>;
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"), (_key, value: unknown) =>
  typeof value === "string" ? value.replace(/^%([^%]+)%$/, (whole, k: string) => nls[k] ?? whole) : value,
);
const c = pkg.contributes;

describe("package.json contributions", () => {
  it("declares the Pi Sessions container and the Sessions view, and a CommonJS entry point", () => {
    assert.deepEqual(
      c.viewsContainers.activitybar.map((v: { id: string; title: string }) => [v.id, v.title]),
      [[ContainerId, "Pi Sessions"]],
    );
    assert.deepEqual(
      c.views[ContainerId].map((v: { id: string; name: string }) => [v.id, v.name]),
      [
        [SessionsViewId, "Sessions"],
        [AgentHistoryViewId, "Agent History"],
      ],
    );
    assert.equal(pkg.main, "./dist/extension.cjs");
    // The views and the commands activate implicitly; panels left open are revived by their serializers; the
    // CodeLens and the live status bar item need the extension once the window is up (nothing is read until then).
    assert.deepEqual(pkg.activationEvents, [
      ...PANEL_KINDS.map((k) => `onWebviewPanel:${PanelViewType[k]}`),
      `onWebviewPanel:${TranscriptViewType}`,
      "onStartupFinished",
    ]);
  });

  it("every command id in code is contributed with the Pi Sessions category, and vice versa", () => {
    const contributed = c.commands.map((x: { command: string }) => x.command).sort();
    assert.deepEqual(contributed, Object.values(CommandId).sort());
    for (const cmd of c.commands) assert.equal(cmd.category, "Pi Sessions", cmd.command);
  });

  it("view-only commands are hidden from the palette; palette commands are not", () => {
    const hidden = c.menus.commandPalette
      .filter((m: { when: string }) => m.when === "false")
      .map((m: { command: string }) => m.command)
      .sort();
    assert.deepEqual(hidden, [
      CommandId.CompareWithActiveBranch,
      CommandId.CompareWithCurrentFile,
      CommandId.CompareWithParent,
      CommandId.CopyEntryId,
      CommandId.CopyResumeCommand,
      CommandId.EntryActions,
      CommandId.LabelEntry,
      CommandId.OpenEntry,
      CommandId.OpenEntryEditable,
      CommandId.RepairTail,
      CommandId.RevealEntry,
      CommandId.RevealParent,
      CommandId.RevealSession,
      CommandId.ShowEditDiff,
    ]);
  });

  it("when clauses use only known context keys, and title-bar commands have icons", () => {
    // VS Code's own keys that the manifest uses: the view and item, and the webview panel that has focus.
    const known = new Set(["view", "viewItem", "activeWebviewPanelId", ...Object.values(ContextKey), "false"]);
    const whens = [...Object.values(c.menus).flat(), ...c.viewsWelcome].map((m) => (m as { when: string }).when);
    for (const when of whens) {
      for (const clause of when.split(/&&|\|\|/)) {
        const key = clause
          .trim()
          .replace(/^!/, "")
          .split(/\s*(?:==|=~|!=)\s*/)[0]!;
        assert.ok(known.has(key), `unknown context key ${key} in ${when}`);
      }
    }
    for (const m of c.menus["view/title"]) {
      if (m.group.startsWith("navigation"))
        assert.ok(c.commands.find((x: { command: string; icon?: string }) => x.command === m.command)?.icon, m.command);
    }
    // The three empty states the view explains.
    assert.deepEqual(
      c.viewsWelcome.map((w: { when: string }) => w.when),
      ["piSessions.state == noAgentDir", "piSessions.state == noSessions", "piSessions.state == loading"],
    );
  });

  it("settings: agentDirs, includePi, includeOmp and defaultFilter with the filter modes", () => {
    const props = c.configuration.properties;
    assert.deepEqual(Object.keys(props).sort(), [
      "piSessions.agentDirs",
      "piSessions.codeLens.enabled",
      "piSessions.compaction.azureDeployment",
      "piSessions.compaction.azureResource",
      "piSessions.compaction.baseUrl",
      "piSessions.compaction.keepRecentTokens",
      "piSessions.compaction.model",
      "piSessions.defaultFilter",
      "piSessions.forks.display",
      "piSessions.includeOmp",
      "piSessions.includePi",
      "piSessions.ompPath",
      "piSessions.piPath",
      "piSessions.statusBar.enabled",
      "piSessions.team.machine",
      "piSessions.team.redactPaths",
      "piSessions.team.sendContent",
      "piSessions.team.syncIntervalMinutes",
    ]);
    // The team database's settings are the machine's alone: a workspace cannot turn on sending text, or rename it.
    for (const k of Object.keys(props).filter((x) => x.startsWith("piSessions.team.")))
      assert.equal(props[k].scope, "machine", k);
    assert.equal(props["piSessions.team.syncIntervalMinutes"].default, 0, "background sync is off by default");
    assert.equal(props["piSessions.team.sendContent"].default, false, "no text is sent by default");
    assert.deepEqual(props["piSessions.defaultFilter"].enum, [...FILTER_MODES]);
    assert.deepEqual(props["piSessions.forks.display"].enum, ["nested", "flat"]);
    assert.equal(props["piSessions.forks.display"].default, "nested");
    assert.equal(props["piSessions.includePi"].default, true);
    assert.equal(props["piSessions.includeOmp"].default, true);
  });

  it("writing commands are disabled in untrusted workspaces; reading stays available", () => {
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, "limited");
    // Writers, and Resume in Terminal (it runs the program a setting names).
    const writers: string[] = [
      CommandId.CompactBranch,
      CommandId.RepairTail,
      CommandId.RenameSession,
      CommandId.LabelEntry,
      CommandId.PinSession,
      CommandId.UnpinSession,
      CommandId.ArchiveSession,
      CommandId.UnarchiveSession,
      CommandId.DeleteSession,
      CommandId.RestoreSession,
      CommandId.ResumeInTerminal,
    ];
    for (const id of writers)
      assert.equal(c.commands.find((x: { command: string }) => x.command === id).enablement, "isWorkspaceTrusted", id);
    // Every setting that chooses where a key goes (endpoint, resource, deployment, model) is the user's alone:
    // machine scope (a workspace cannot set it) and restricted in untrusted workspaces.
    const endpointSettings = ["baseUrl", "azureResource", "azureDeployment", "model"].map(
      (k) => `piSessions.compaction.${k}`,
    );
    for (const k of endpointSettings)
      assert.ok(["machine", "application"].includes(c.configuration.properties[k].scope), `${k} is machine-scoped`);
    // So is the agent's executable: a workspace must not choose what Resume in Terminal runs.
    const executables = ["piSessions.piPath", "piSessions.ompPath"];
    for (const k of executables) assert.equal(c.configuration.properties[k].scope, "machine", k);
    assert.deepEqual(
      [...pkg.capabilities.untrustedWorkspaces.restrictedConfigurations].sort(),
      [...endpointSettings, ...executables].sort(),
    );
    for (const cmd of c.commands)
      if (cmd.command === CommandId.CompareWithCurrentFile) assert.match(cmd.enablement, /^viewItem == /);
      else if (!writers.includes(cmd.command)) assert.equal(cmd.enablement, undefined, cmd.command);
  });
});
