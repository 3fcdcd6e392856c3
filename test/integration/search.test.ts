// Search in the real VS Code: the index is built in the extension's worker thread over every listed session; the
// quick pick finds a phrase taken from a tool's output in the raw files and opens the transcript at that entry; an
// entry appended while the window is open is found, and a deleted session's text is gone; the results panel groups
// the hits by session. Expectations come from the raw session files.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { sleep, waitFor } from "../support/helpers.js";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import { piSlug } from "../../src/core/slug.js";
import { storeFiles } from "./fixtureHome.js";
import { activateExtension, closeEditors } from "./harness.js";

const HOME = process.env.PI_SESSIONS_FIXTURE_HOME ?? "";
const PROJ = path.join(HOME, ".pi", "agent", "sessions", piSlug(path.join(HOME, "src", "proj")));

interface Raw {
  type: string;
  id: string;
  parentId: string | null;
  message?: { role?: string; content?: unknown };
}

/** Words as the index's tokenizer sees them (near enough for ASCII text): lower case, letters and digits. */
const words = (text: string) => (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).join(" ");

/** The string leaves of a raw record, joined (what a phrase in it could span). */
function leaves(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) leaves(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) leaves(x, out);
  return out;
}

/** The raw records of every session by file, and the tool results of pi's sessions of the workspace. */
function rawStore() {
  const records = new Map<string, Map<string, Raw>>();
  const outputs: { file: string; id: string; text: string }[] = [];
  for (const file of storeFiles()) {
    const byId = new Map<string, Raw>();
    records.set(file, byId);
    for (const line of fs.readFileSync(file, "utf8").split("\n")) {
      let r: Raw;
      try {
        r = JSON.parse(line) as Raw;
      } catch {
        continue; // a blank or damaged line (the fixtures have both)
      }
      if (typeof r?.id !== "string") continue;
      byId.set(r.id, r);
      if (path.dirname(file) !== PROJ || r.message?.role !== "toolResult" || !Array.isArray(r.message.content))
        continue;
      const text = (r.message.content as { type?: string; text?: string }[])
        .filter((b) => b.type === "text")
        .map((b) => b.text ?? "")
        .join("\n");
      outputs.push({ file, id: r.id, text });
    }
  }
  return { records, outputs };
}

suite("Pi Sessions search in a real VS Code", () => {
  let api: PiSessionsApi;
  const search = (text: string) => api.search.query({ text, limit: 50, files: null, roles: null });

  suiteSetup(async () => {
    api = await activateExtension();
  });

  suiteTeardown(closeEditors);

  /** Start the index (a search does) and wait until it holds every listed session. */
  const indexed = async () => {
    await search("anything");
    await api.service.lib.whenComplete();
    const listed = api.service.lib.sessions.length;
    return waitFor("the index to hold every session", () =>
      !api.search.building && api.search.state?.sessions === listed ? api.search.state : undefined,
    );
  };

  test("the first search builds the index in a worker, over every listed session", async () => {
    const listed = api.service.lib.sessions.length;
    const state = await indexed();
    assert.equal(state.pending, 0);
    assert.ok(state.entries > listed, `${state.entries} entries`);
  });

  test("the quick pick finds a phrase from a tool's output and opens the transcript at its entry", async () => {
    await indexed();
    // Three words from the output of a tool in this workspace's sessions.
    const { records, outputs } = rawStore();
    const target = outputs.find((o) => words(o.text).split(" ").length >= 3)!;
    assert.ok(target, "a tool output of three words or more");
    const phrase = words(target.text).split(" ").slice(0, 3).join(" ");
    api.search.lastAnswer = null;
    const picked = vscode.commands.executeCommand<{ file: string; entryId: string }>(
      "piSessions.searchContent",
      `"${phrase}"`,
    );
    const answer = await waitFor("the quick pick's results", () =>
      api.search.lastAnswer?.ok && api.search.lastAnswer.hits.length ? api.search.lastAnswer : undefined,
    );
    assert.ok(answer.ok);
    // The tool output is among the hits (in the session that wrote it: a fork's copy is the parent's), and every
    // hit holds the phrase in its raw record.
    assert.ok(
      answer.hits.some((h) => h.entryId === target.id && h.role === "tool"),
      JSON.stringify(answer.hits),
    );
    for (const h of answer.hits) {
      const raw = records.get(h.file)?.get(h.entryId);
      assert.ok(raw, `${h.entryId} is an entry of ${h.file}`);
      assert.ok(words(leaves(raw).join(" ")).includes(phrase), `${h.entryId} holds "${phrase}"`);
      assert.match(h.snippet, /«/);
    }
    const top = answer.hits[0]!;
    // The answer reaches the quick pick a moment before its rows are active (a slow machine): accept until it closes.
    let chosen: { file: string; entryId: string } | undefined;
    for (let i = 0; i < 40 && !chosen; i++) {
      await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
      chosen = await Promise.race([picked, sleep(250).then(() => undefined)]);
    }
    assert.deepEqual(chosen, { file: top.file, entryId: top.entryId });
    const t = await waitFor(`the transcript at ${top.entryId} (${top.role}) of ${path.basename(top.file)}`, () => {
      const open = api.transcripts.open.find((o) => o.file === top.file);
      const highlighted = open?.facts?.highlighted;
      // A tool result is shown in its call's row.
      const raw = records.get(top.file)?.get(top.entryId);
      return highlighted === top.entryId || highlighted === raw?.parentId ? open : undefined;
    });
    assert.equal(t.panel.viewType, "piSessions.transcript");
  });

  test("an entry appended while the window is open is found; a deleted session's text is gone", async () => {
    const file = path.join(PROJ, "2026-11-30T11-00-00-000Z_0000srch-live-4000-8000-000000000001.jsonl");
    const t0 = new Date().toISOString();
    const entry = (id: string, parentId: string | null, text: string) => ({
      type: "message",
      id,
      parentId,
      timestamp: new Date().toISOString(),
      message: { role: "user", content: text, timestamp: Date.now() },
    });
    const header = {
      type: "session",
      version: 3,
      id: "0000srch-live-4000-8000-000000000001",
      timestamp: t0,
      cwd: path.join(HOME, "src", "proj"),
    };
    fs.writeFileSync(
      file,
      [header, entry("sl000001", null, "first words")].map((l) => `${JSON.stringify(l)}\n`).join(""),
    );
    try {
      await waitFor("the new session to be indexed", async () =>
        (await search("first words")).ok &&
        api.search.lastAnswer?.ok &&
        api.search.lastAnswer.hits.some((h) => h.file === file)
          ? true
          : undefined,
      );
      fs.appendFileSync(file, `${JSON.stringify(entry("sl000002", "sl000001", "zanzibarquux appended now"))}\n`);
      const hit = await waitFor("the appended entry to be found", async () => {
        const a = await search("zanzibarquux");
        return a.ok ? a.hits.find((h) => h.entryId === "sl000002") : undefined;
      });
      assert.equal(hit.file, file);
      assert.equal(hit.active, true);
    } finally {
      fs.rmSync(file, { force: true });
    }
    await waitFor("the deleted session's text to be gone", async () => {
      const a = await search("zanzibarquux");
      return a.ok && a.hits.length === 0 ? true : undefined;
    });
  });

  test("Show All Results groups the hits by session with the roles as filters", async () => {
    await vscode.commands.executeCommand("piSessions.showSearchResults", "the");
    const shown = await waitFor("the results panel", () =>
      api.searchResults.shown?.total ? api.searchResults.shown : undefined,
    );
    assert.equal(shown.problem, null);
    assert.deepEqual(shown.state.roles, ["user", "assistant", "tool", "summary", "meta", "custom"]);
    assert.equal(
      shown.groups.reduce((n, g) => n + g.hits.length, 0),
      shown.total,
    );
    assert.equal(new Set(shown.groups.map((g) => g.file)).size, shown.groups.length, "one group per session");
    for (const g of shown.groups) assert.ok(api.service.lib.get(g.file), g.file);
  });
});
