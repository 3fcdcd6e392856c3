// package.json's tree menus match the contextValue strings the tree's nodes carry
// (src/extension/tree/contextValues.ts).
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AgentHistoryViewId, CommandId, SessionsViewId, TouchContextValue } from "../../../src/extension/ids.js";
import { allContextValues, ContextValue } from "../../../src/extension/tree/contextValues.js";
import { ROOT } from "../../support/fixtures.js";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const allMenus: { command: string; when: string; group: string }[] = pkg.contributes.menus["view/item/context"];
const menus = allMenus.filter((m) => !m.when.includes(`view == ${AgentHistoryViewId}`));
const historyMenus = allMenus.filter((m) => m.when.includes(`view == ${AgentHistoryViewId}`));
const values = allContextValues();

/** The context values a menu entry's `when` clause accepts (it must also name the Sessions view). */
function matching(when: string): string[] {
  assert.ok(when.includes(`view == ${SessionsViewId}`), `${when} names the Sessions view`);
  const regex = /viewItem =~ \/(.+?)\/(?:\s|$)/.exec(when);
  const equal = /viewItem == (\S+)/.exec(when);
  if (regex) return values.filter((v) => new RegExp(regex[1]!).test(v));
  if (equal) return values.filter((v) => v === equal[1]);
  assert.fail(`${when} does not test viewItem`);
}

/** Every command's menu entries, and the values they accept together. */
function shownOn(command: string): Set<string> {
  const entries = menus.filter((m) => m.command === command);
  assert.ok(entries.length, `${command} is in a tree menu`);
  return new Set(entries.flatMap((m) => matching(m.when)));
}

const sessions = values.filter((v) => v.startsWith(`${ContextValue.Session}:`));
const readable = sessions.filter((v) => !v.includes(":rejected"));

describe("tree context values and package.json menus", () => {
  it("Agent History: the diff actions on edits and writes only, Open Turn on every turn", () => {
    const values = Object.values(TouchContextValue);
    const on = (command: string) =>
      new Set(
        historyMenus
          .filter((m) => m.command === command)
          .flatMap((m) => values.filter((v) => new RegExp(/viewItem =~ \/(.+?)\//.exec(m.when)![1]!).test(v))),
      );
    assert.deepEqual([...on(CommandId.ShowEditDiff)].sort(), [TouchContextValue.edit, TouchContextValue.write].sort());
    assert.deepEqual(
      [...on(CommandId.OpenTranscript)].sort(),
      [TouchContextValue.read, TouchContextValue.edit, TouchContextValue.write].sort(),
    );
    // Shown on edits too, but enabled on writes only (the tooltip says why).
    const compare = pkg.contributes.commands.find(
      (c: { command: string }) => c.command === CommandId.CompareWithCurrentFile,
    );
    assert.equal(compare.enablement, `viewItem == ${TouchContextValue.write}`);
  });

  it("every menu entry matches at least one value a node can carry", () => {
    for (const m of menus) assert.ok(matching(m.when).length > 0, `${m.command}: ${m.when}`);
  });

  it("session commands appear on every readable session, never on an unreadable one", () => {
    for (const id of [CommandId.CopyResumeCommand, CommandId.ShowSessionUsage, CommandId.ShowLineage]) {
      assert.deepEqual([...shownOn(id)].sort(), [...readable].sort(), id);
    }
  });

  it("Repair only on sessions whose last line is incomplete", () => {
    assert.deepEqual(
      [...shownOn(CommandId.RepairTail)].sort(),
      sessions.filter((v) => v.includes(":truncated")).sort(),
    );
  });

  it("Pin on unpinned sessions, Unpin on pinned ones, Archive and Unarchive likewise; none on unreadable files", () => {
    const readable = sessions.filter((v) => !v.includes(":rejected"));
    const pinned = readable.filter((v) => v.split(":").includes("pinned"));
    const archived = readable.filter((v) => v.split(":").includes("archived"));
    assert.deepEqual([...shownOn(CommandId.UnpinSession)].sort(), pinned.sort());
    assert.deepEqual([...shownOn(CommandId.PinSession)].sort(), readable.filter((v) => !pinned.includes(v)).sort());
    assert.deepEqual([...shownOn(CommandId.UnarchiveSession)].sort(), archived.sort());
    assert.deepEqual(
      [...shownOn(CommandId.ArchiveSession)].sort(),
      readable.filter((v) => !archived.includes(v)).sort(),
    );
  });

  it("Inspect Checkpoint only on compactions; Reveal Parent on forks and on a resolved Forked-from", () => {
    assert.deepEqual(
      [...shownOn(CommandId.InspectCheckpoint)].sort(),
      [ContextValue.Compaction, `${ContextValue.Compaction}:leaf`].sort(),
    );
    const reveal = shownOn(CommandId.RevealParent);
    assert.ok(reveal.has(ContextValue.ForkedFromResolved));
    assert.ok(!reveal.has(ContextValue.ForkedFromOrphan) && !reveal.has(ContextValue.ForkedFromExternal));
    assert.deepEqual(
      [...reveal].filter((v) => v.startsWith(ContextValue.Session)).sort(),
      sessions.filter((v) => v.includes(":fork")).sort(),
    );
  });

  it("entry commands on entry rows, folded entries, branches, details; Compact on sessions, entries, branches", () => {
    const entryLike = values.filter((v) =>
      [ContextValue.EntryRow, ContextValue.Branch, ContextValue.Detail].some((p) => v.startsWith(p)),
    );
    assert.deepEqual([...shownOn(CommandId.CopyEntryId)].sort(), entryLike.sort());
    const compact = shownOn(CommandId.CompactBranch);
    for (const v of [...readable, ContextValue.Compaction, ContextValue.FoldedEntry, ContextValue.BranchActive]) {
      assert.ok(compact.has(v), `Compact Branch on ${v}`);
    }
    assert.ok(!compact.has(ContextValue.Info) && !compact.has(ContextValue.Project));
  });
});
