// The layers are enforced by lint: each file under test/lint-fixtures/src/ breaks one rule (and must fail it), or
// shows what a layer may import (and must pass). The fixtures mirror src/, so the same per-directory rules apply.
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { ESLint } from "eslint";
import { listFiles } from "../support/helpers.js";
import { ROOT } from "../support/fixtures.js";

const FIXTURES = join(ROOT, "test", "lint-fixtures", "src");

/** The rule a fixture breaks, from its name; import fixtures break the layer rule. */
function expectedRule(file: string): string {
  if (file.endsWith("floating-promise.ts")) return "@typescript-eslint/no-floating-promises";
  if (file.endsWith("misused-promise.ts")) return "@typescript-eslint/no-misused-promises";
  if (file.endsWith("await-non-thenable.ts")) return "@typescript-eslint/await-thenable";
  return "no-restricted-imports";
}

describe("lint enforces the layers", function () {
  this.timeout(120_000);
  const files = listFiles(FIXTURES, ".ts");
  let results: Map<string, ESLint.LintResult>;

  before(async () => {
    // `ignore: false`: the fixtures are ignored by `npm run lint` (they break the rules on purpose).
    const eslint = new ESLint({ cwd: ROOT, ignore: false });
    results = new Map((await eslint.lintFiles(files)).map((r) => [r.filePath, r]));
  });

  it("there is a fixture for every layer", () => {
    const layers = new Set(files.map((f) => relative(FIXTURES, f).split("/")[0]));
    assert.deepEqual([...layers].sort(), ["cli", "core", "extension", "node", "protocol", "webview"]);
  });

  for (const file of files) {
    const name = relative(FIXTURES, file);
    const breaks = readFileSync(file, "utf8").startsWith("// Breaks");
    it(`${name} ${breaks ? `fails ${expectedRule(file)}` : "passes"}`, () => {
      const messages = results.get(file)?.messages ?? [];
      const shown = messages.map((m) => `${m.line}: ${m.ruleId} ${m.message}`).join("\n");
      if (!breaks) return assert.deepEqual(messages, [], shown);
      assert.ok(messages.length > 0, `${name} should fail lint`);
      for (const m of messages) assert.equal(m.ruleId, expectedRule(file), shown);
    });
  }
});
