// Search on pi 1.6 sessions: system messages are indexed as their own kind, searched only when asked for, and what a
// context edit put in the model's context instead of its target is searchable. Expectations from the raw files.
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sessionUnits, type TextUnit } from "../../../src/core/search/units.js";
import { parseSession } from "../../../src/core/session/index.js";
import { DEFAULT_SEARCH_ROLES } from "../../../src/protocol/search.js";
import { listFiles } from "../../support/helpers.js";
import { REAL } from "../../support/fixtures.js";

const FILES = listFiles(join(REAL, "pi-1.6", "sessions"), ".jsonl");

/** Every raw record of every fixture, with the search units of its file. */
function* recordsWithUnits(): Generator<[Record<string, any>, TextUnit[]]> {
  for (const file of FILES) {
    const r = parseSession(file, readFileSync(file));
    assert.ok(r.ok);
    const units = sessionUnits(r.session);
    for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) yield [JSON.parse(line), units];
  }
}

describe("search units of pi 1.6 sessions", () => {
  it("every system message is one `system` unit with its sections and tools; off by default", () => {
    assert.ok(!DEFAULT_SEARCH_ROLES.includes("system"));
    let checked = 0;
    for (const [rec, units] of recordsWithUnits()) {
      if (rec.type !== "message" || rec.message.role !== "system") continue;
      const unit = units.find((u) => u.entryId === rec.id);
      assert.equal(unit?.role, "system");
      for (const [name, text] of Object.entries(rec.message.sections ?? {})) {
        assert.ok(unit!.text.includes(name));
        if (typeof text === "string") assert.ok(unit!.text.includes(text.slice(0, 50)));
      }
      for (const t of rec.message.toolsAdded ?? []) assert.ok(unit!.text.includes(t.name));
      checked++;
    }
    assert.ok(checked >= 10, `${checked} system messages`);
  });

  it("a context edit's replacement text is indexed under the edit entry", () => {
    let checked = 0;
    for (const [rec, units] of recordsWithUnits()) {
      // An edit that leaves its target out adds no text.
      if (rec.type !== "context_edit" || rec.replacement === null) continue;
      const c = rec.replacement.content;
      const text = typeof c === "string" ? c : c.map((b: { text: string }) => b.text).join(" ");
      assert.equal(units.find((u) => u.entryId === rec.id)?.text, text);
      checked++;
    }
    assert.ok(checked >= 1);
  });
});
