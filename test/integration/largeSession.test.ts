// In-host: a large session opens tail-first in the Sessions view (its latest turns at once, the whole of it when its
// read ends), in the real VS Code extension host, against the fixture HOME.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { header, iso, message } from "../support/builders.js";
import { jsonl, waitFor } from "../support/helpers.js";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import type { Element } from "../../src/extension/tree/index.js";
import { piSlug } from "../../src/core/slug.js";
import { HOME, projSession, treeText } from "./fixtureHome.js";
import { activateExtension } from "./harness.js";

suite("Pi Sessions: a large session, tail-first", () => {
  let api: PiSessionsApi;
  const { label, kids } = treeText(() => api);

  suiteSetup(async () => {
    api = await activateExtension({ showView: true });
  });

  test("a large session shows its latest turns at once, then the whole of it when its read ends", async function () {
    this.timeout(120_000);
    // An agent dir of its own, listed by a new library: the session is probed, not read, when it is first expanded.
    const agent = fs.mkdtempSync(path.join(HOME, "big-agent-"));
    const dir = path.join(agent, "sessions", piSlug(path.join(HOME, "src", "proj")));
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, "2026-11-29T19-00-00-000Z_big.jsonl");
    // 80 MB: 2,000 prompts, each with a 40 KB reply.
    const fd = fs.openSync(file, "w");
    fs.writeSync(fd, jsonl(header({ id: "big-session", cwd: path.join(HOME, "src", "proj"), time: iso(0) })));
    const reply = "y".repeat(40_000);
    let parent: string | null = null;
    for (let i = 0; i < 2000; i++) {
      const prompt = message(`u${i}`, parent, "user", `prompt number ${i}`, { time: iso(2 * i) });
      fs.writeSync(fd, jsonl(prompt, message(`a${i}`, `u${i}`, "assistant", reply, { time: iso(2 * i + 1) })));
      parent = `a${i}`;
    }
    fs.closeSync(fd);
    const config = vscode.workspace.getConfiguration("piSessions");
    const turnLabels = (children: Element[]) => children.filter((k) => k.kind === "row").map(label);
    try {
      await config.update("agentDirs", [agent], vscode.ConfigurationTarget.Global);
      const el = await waitFor("the large session", () => api.tree.sessionElementFor(file));
      const first = await kids(el);
      assert.match(label(first[0]!), /^Reading 7\d(\.\d+)? MB: the latest turns of the active branch so far$/);
      const latest = turnLabels(first);
      assert.ok(latest.at(-1)!.includes("prompt number 1999"), latest.at(-1));
      assert.ok(latest.length > 10 && latest.length < 2000, `${latest.length} turns from the tail`);
      // The read ends: the session's node is rendered again, from its first prompt, and nothing says "Reading".
      const whole = await waitFor("the whole session", async () => {
        const k = await kids(el);
        return k.length && !label(k[0]!).startsWith("Reading") ? k : undefined;
      });
      const all = turnLabels(whole);
      assert.equal(all.length, 2000);
      assert.ok(all[0]!.includes("prompt number 0") && all.at(-1)!.includes("prompt number 1999"));
    } finally {
      await config.update("agentDirs", undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(agent, { recursive: true, force: true });
    }
    await waitFor("the store to come back", async () => !!(await api.tree.sessionElementFor(projSession("d4f8"))));
  });
});
