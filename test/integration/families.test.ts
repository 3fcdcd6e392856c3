// Fork families in the real VS Code (issue #22): This Workspace lists one row per family, a root's "Forks (N)" lists
// its forks named by their own prompts, a nested fork is revealed from search, and `flat` restores one row per
// session. Expectations come from the raw fixture files and the records written here.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { fork, message } from "../support/builders.js";
import { jsonl, waitFor } from "../support/helpers.js";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import type { Element, SessionNode } from "../../src/extension/tree/index.js";
import { HOME, PROJ, projSession, storeFiles, treeText } from "./fixtureHome.js";
import { activateExtension } from "./harness.js";

/** The cwd of a session file's header, read from its raw lines (undefined when it has no readable header). */
function headerCwd(file: string): string | undefined {
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    try {
      const r = JSON.parse(line) as { type?: string; cwd?: string };
      if (r.type === "session") return r.cwd;
    } catch {
      // not a record: a blank or damaged line
    }
  }
  return undefined;
}

const S2 = () => projSession("d4f8"); // named "Stats helpers (sum/avg/median)"
const S5A = () => projSession("d64a"); // its /fork

/** The raw records of a file (damaged lines skipped). */
function records(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** The texts of the user prompts of a raw file, in file order. */
function userPrompts(file: string): string[] {
  return records(file).flatMap((r) => {
    const m = r.message as { role?: string; content?: unknown } | undefined;
    if (r.type !== "message" || m?.role !== "user") return [];
    const c = m.content;
    const text =
      typeof c === "string"
        ? c
        : Array.isArray(c)
          ? c.map((b: { type?: string; text?: string }) => (b.type === "text" ? (b.text ?? "") : "")).join("")
          : "";
    return text.trim() ? [text] : [];
  });
}

suite("Pi Sessions fork families in a real VS Code", () => {
  let api: PiSessionsApi;
  const { item, label, desc, kids } = treeText(() => api);
  const workspaceRows = async () => {
    const ws = (await kids())[0]!;
    return (await kids(ws)).filter((e): e is SessionNode => e.kind === "session");
  };

  suiteSetup(async () => {
    api = await activateExtension({ showView: true, complete: true });
  });

  test("This Workspace shows one row per family: no fork whose parent is listed there too", async () => {
    // The raw header of S5A names S2's file as its parent.
    const s5aHeader = records(S5A()).find((r) => r.type === "session")!;
    assert.equal(path.basename(String(s5aHeader.parentSession)), path.basename(S2()));
    const rows = await workspaceRows();
    const files = new Set(rows.map((r) => r.file));
    assert.ok(files.has(S2()), "the root is a row");
    assert.ok(!files.has(S5A()), "its fork is not");
    // From the raw files alone: each session's parent (its header's parentSession: a file path, or an OMP id) and its
    // modification time; a family's latest activity is its newest member's.
    const all = storeFiles();
    const header = (f: string) => records(f).find((r) => r.type === "session");
    const byId = new Map<string, string[]>();
    for (const f of all) {
      const id = header(f)?.id;
      if (typeof id === "string") byId.set(id, [...(byId.get(id) ?? []), f]);
    }
    const parentOf = (f: string): string | undefined => {
      const raw = header(f)?.parentSession;
      if (typeof raw !== "string") return undefined;
      const byPath = all.find((g) => path.basename(g) === path.basename(raw));
      const ids = byId.get(raw) ?? [];
      return byPath ?? (ids.length === 1 ? ids[0] : undefined);
    };
    const shown = new Set(rows.map((r) => r.file));
    for (const r of rows) {
      const p = parentOf(r.file);
      assert.ok(!p || !shown.has(p), `${path.basename(r.file)} is a row though its parent ${p} is one too`);
    }
    // A session's time: its newest entry's (or header's) timestamp from the raw lines, the mtime only without one.
    const time = (f: string) => {
      let last = 0;
      for (const line of fs.readFileSync(f, "utf8").split("\n")) {
        try {
          const t = Date.parse((JSON.parse(line) as { timestamp?: string }).timestamp ?? "");
          if (t > last) last = t;
        } catch {
          /* a broken line holds no time */
        }
      }
      return last || fs.statSync(f).mtimeMs;
    };
    const latest = (f: string): number =>
      Math.max(time(f), ...all.filter((g) => g !== f && parentOf(g) === f).map(latest));
    const order = rows.map((r) => latest(r.file));
    assert.deepEqual(
      order,
      [...order].sort((a, b) => b - a),
      "families newest first",
    );
    // Down every family: no fork carries its parent's label.
    const walk = async (node: SessionNode, depth: number): Promise<void> => {
      assert.ok(depth < 50);
      for (const group of (await kids(node)).filter((k) => k.kind === "forks")) {
        for (const f of (await kids(group)) as SessionNode[]) {
          assert.notEqual(label(f), label(node), `${path.basename(f.file)} is labelled like its parent`);
          await walk(f, depth + 1);
        }
      }
    };
    for (const r of rows) await walk(r, 0);
  });

  test("a root shows Forks (N) first: each fork named by its own first prompt, newest first", async () => {
    const own = "Rewrite sum() with reduce, as a fork";
    const newFork = path.join(PROJ, "2026-11-29T19-10-00-000Z_family-fork.jsonl");
    const grandchild = path.join(PROJ, "2026-11-29T19-20-00-000Z_family-grandchild.jsonl");
    fs.writeFileSync(
      newFork,
      jsonl(
        fork(S2(), { id: "family-fork", time: "2026-11-29T19:10:00.000Z", cwd: path.join(HOME, "src", "proj") }),
        message("ff-u1", null, "user", own, { time: "2026-11-29T19:10:01.000Z" }),
      ),
    );
    try {
      const root = await waitFor("the new fork in S2's family", async () => {
        const el = (await workspaceRows()).find((r) => r.file === S2());
        const first = el && (await kids(el))[0];
        return first?.kind === "forks" && label(first) === "Forks (2)" ? el : undefined;
      });
      assert.match(desc(root), /· 2 forks$/);
      const forksNode = (await kids(root))[0]!;
      const forks = (await kids(forksNode)) as SessionNode[];
      assert.deepEqual(
        forks.map((f) => f.file),
        [newFork, S5A()],
        "the fork written last first",
      );
      assert.equal(label(forks[0]!), own);
      // Under its parent, the row says when and what it cost; the tooltip says whose fork it is.
      assert.match(desc(forks[0]!), /^(● live · )?(just now|\d+ (min|h|d) ago|\d{4}-\d\d-\d\d) · /);
      const tip = api.tree.resolveTreeItem(item(forks[0]!), forks[0]!).tooltip as vscode.MarkdownString;
      // The tooltip's session text is escaped Markdown: read it as the hover shows it.
      const shownTip = tip.value.replace(/&nbsp;/g, " ").replace(/\\(.)/g, "$1");
      assert.match(shownTip, /\*\*Lineage:\*\* fork of Stats helpers \(sum\/avg\/median\)/);
      // S5A wrote no prompt of its own (it ends at a copied one): named by the last prompt it copied.
      const copied = userPrompts(S5A()).at(-1)!;
      // Cut at a word to keep the row short: "after “Write a `sum(xs:…”".
      const named = /^after “(.+)…”$/.exec(label(forks[1]!));
      assert.ok(named && copied.length > 28, label(forks[1]!));
      assert.ok(copied.startsWith(named[1]!) && named[1]!.length <= 28 && copied[named[1]!.length] === " ", named[1]);
      assert.match(desc(forks[1]!), /^(● live · )?no new prompt · /);
      assert.notEqual(label(forks[1]!), label(root));

      // Revealed from search: the fork's own prompt is found and its row selected, under Forks (2) of S2.
      const hit = await waitFor("the fork's prompt in the search index", async () => {
        const r = await api.search.query({ text: own, limit: 5, files: null, roles: null });
        return r.ok ? r.hits.find((h) => h.file === newFork) : undefined;
      });
      await vscode.commands.executeCommand("piSessions.revealEntry", hit.file, hit.entryId);
      const selected = await waitFor("a selection", () => api.view.selection[0]);
      const chain: string[] = [];
      for (let n: Element | undefined = selected; n; n = api.tree.getParent(n)) chain.push(n.kind);
      assert.deepEqual(chain.slice(-4), ["session", "forks", "session", "group"], chain.join(" < "));
      const sessionOf = (n: Element | undefined): Element | undefined =>
        n && n.kind === "session" ? n : sessionOf(n && api.tree.getParent(n));
      assert.equal((sessionOf(selected) as SessionNode).file, newFork);
      // Reveal Parent Session from a fork of a nested fork (written here, naming S5A's file) selects S5A where it
      // is nested: under Forks of S2.
      fs.writeFileSync(
        grandchild,
        jsonl(
          fork(S5A(), {
            id: "family-grandchild",
            time: "2026-11-29T19:20:00.000Z",
            cwd: path.join(HOME, "src", "proj"),
          }),
          message("fg-u1", null, "user", "A fork of the fork", { time: "2026-11-29T19:20:01.000Z" }),
        ),
      );
      await waitFor("the fork of the fork", () => api.service.lib.get(grandchild)?.parent?.file === S5A());
      // Forks of forks count in the family, and the row says how many are its own.
      await waitFor("the family's count", () => (/· 3 forks \(2 direct\)$/.test(desc(root)) ? true : undefined));
      await vscode.commands.executeCommand("piSessions.revealParent", grandchild);
      const parentRow = await waitFor("S5A selected", () => {
        const sel = api.view.selection[0];
        return sel?.kind === "session" && sel.file === S5A() ? sel : undefined;
      });
      const forksRow = api.tree.getParent(parentRow);
      assert.equal(forksRow?.kind, "forks");
      const holder = forksRow && api.tree.getParent(forksRow);
      assert.ok(holder?.kind === "session" && holder.file === S2());
    } finally {
      fs.rmSync(newFork, { force: true });
      fs.rmSync(grandchild, { force: true });
    }
    await waitFor(
      "the forks to disappear",
      async () => !api.service.lib.get(newFork) && !api.service.lib.get(grandchild),
    );
  });

  test("flat: one row per session again, forks with their new labels", async () => {
    const nested = (await workspaceRows()).length;
    const nestedCount = desc((await kids())[0]!);
    const config = vscode.workspace.getConfiguration("piSessions");
    await config.update("forks.display", "flat", vscode.ConfigurationTarget.Global);
    try {
      const rows = await waitFor("S5A as a row of its own", async () => {
        const r = await workspaceRows();
        return r.some((x) => x.file === S5A()) ? r : undefined;
      });
      // Every session of the workspace is a row: as many rows as the group counts sessions.
      const group = (await kids())[0]!;
      // The folders the sessions ran in, from their headers: a subfolder's sessions are a project of their own
      // under All Projects, so the group says how many folders its count spans.
      // A file without a readable header is listed with the sessions of its folder.
      const cwds = new Set(rows.map((r) => headerCwd(r.file)).filter((c) => c !== undefined));
      const inFolders = cwds.size > 1 ? ` · in ${cwds.size} folders` : "";
      assert.equal(desc(group), `${rows.length} sessions${inFolders}`);
      assert.ok(rows.length > nested);
      // Nested, the group counted its rows (families) and the sessions in them.
      assert.equal(nestedCount, `${nested} families · ${rows.length} sessions${inFolders}`);
      // Each folder is a project under All Projects, and their counts add up to the group's.
      const projects = new Set(
        rows.map((r) => api.service.lib.projects().find((p) => p.sessions.some((x) => x.file === r.file))!),
      );
      assert.equal(projects.size, cwds.size);
      assert.equal(
        [...projects].reduce((n, p) => n + p.sessions.length, 0),
        rows.length,
      );
      const s5a = rows.find((r) => r.file === S5A())!;
      assert.match(label(s5a), /^after “/);
      assert.match(desc(s5a), /no new prompt · fork of /);
      assert.ok(!(await kids(rows.find((r) => r.file === S2())!)).some((k) => k.kind === "forks"));
    } finally {
      await config.update("forks.display", undefined, vscode.ConfigurationTarget.Global);
    }
    await waitFor("nested again", async () => !(await workspaceRows()).some((x) => x.file === S5A()));
  });
});
