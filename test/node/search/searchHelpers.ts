// What the search index's tests share: a session with every kind of text, queries, a dump of an index file, and
// an agent dir with one project folder.
import * as assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseQuery } from "../../../src/core/search/query.js";
import { loadSqlite } from "../../../src/node/search/indexFile.js";
import type { SearchIndex } from "../../../src/node/search/searchIndex.js";
import { indexTargets } from "../../../src/node/search/targets.js";
import { header, message, toolResult, branchSummary, compaction, label } from "../../support/builders.js";
import { ownedStore } from "../../support/forkFamily.js";
import { jsonl } from "../../support/helpers.js";

/** The index is per set of roots; these tests use one. */
export const ROOTS = [{ dir: "/roots" }];
export const IMAGE_DATA = "UVVKRFJFVkdSMGhKU2t0TVRVNVBVQT09";

/** A session with one unique word in every kind of text, plus image data and a signature that must not be found. */
export function everyRole() {
  return jsonl(
    header({ id: "roles", cwd: "/w/alpha" }),
    message("u1", null, "user", [
      { type: "text", text: "zebraprompt please" },
      { type: "image", mimeType: "image/png", data: IMAGE_DATA },
    ]),
    message("a1", "u1", "assistant", [
      { type: "thinking", thinking: "quokkathought", thinkingSignature: "sigsecretword" },
      { type: "text", text: "ocelotreply here" },
      { type: "toolCall", id: "c1", name: "bash", arguments: { command: "grep -R narwhalcmd src/" } },
    ]),
    toolResult("r1", "a1", "c1", "bash", "ENOENT: no such file, yakoutput"),
    message("b1", "r1", "bashExecution", "", {
      extra: { command: "ls wombatdir", output: "listing", exitCode: 0 },
    }),
    compaction("k1", "b1", "b1", { summary: "## Goal\nlemursummary" }),
    branchSummary("s1", "k1", "ibexbranch summary"),
    label("l1", "s1", "u1", "badgerlabel"),
    { type: "session_info", id: "n1", parentId: "l1", timestamp: "2026-01-01T00:00:09Z", name: "Falcon session" },
    {
      type: "custom_message",
      id: "m1",
      parentId: "n1",
      timestamp: "2026-01-01T00:00:10Z",
      customType: "note",
      content: "gecko custom",
      display: true,
    },
  );
}

export function find(index: SearchIndex, q: string) {
  const parsed = parseQuery(q);
  assert.ok(parsed.ok, q);
  return index.query(parsed);
}

/** Every unit of an index file with where its text is, in one order (to compare two indexes of the same store). */
export async function dump(file: string): Promise<unknown[]> {
  const db = new (await loadSqlite())(file);
  try {
    const units = db.all(
      "SELECT f.file, u.entry_id, u.role, u.tool, u.time, u.active, u.at, u.len, u.part FROM units u " +
        "JOIN files f ON f.id = u.file_id ORDER BY f.file, u.entry_id, u.role, u.part",
    );
    // The words indexed for each unit, where they are in it (the index keeps no text: its vocabulary says what it has).
    db.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, fts, instance)");
    const words = db.all(
      "SELECT f.file, u.entry_id, u.role, u.part, v.term, v.offset FROM temp.vocab v JOIN units u ON u.id = v.doc " +
        "JOIN files f ON f.id = u.file_id ORDER BY f.file, u.entry_id, u.role, u.part, v.offset",
    );
    return [units, words];
  } finally {
    db.close();
  }
}

export function parseQueryOk(q: string) {
  const parsed = parseQuery(q);
  assert.ok(parsed.ok, q);
  return parsed;
}

/** An agent dir under `dir` with one project folder, empty. */
export function projectDir(dir: string): { agent: string; slug: string } {
  const agent = join(dir, "agent");
  const slug = join(agent, "sessions", "--p--");
  mkdirSync(slug, { recursive: true });
  return { agent, slug };
}

/** The index's targets for the store in an agent dir (ownership computed). */
export const targetsOf = async (agent: string) => indexTargets((await ownedStore(agent)).sessions);
