// A prompt as a label (src/protocol/markdown.ts plainLabel): what the tree's rows, pickers and headings show.
import * as assert from "node:assert/strict";
import { plainLabel, summaryMarkdown } from "../../src/protocol/markdown.js";
import { entryLabel } from "../../src/core/entryText.js";
import { parseOk, jsonl } from "../support/helpers.js";
import { header, message } from "../support/builders.js";

describe("plainLabel", () => {
  it("drops the marks Markdown draws: code spans, paired emphasis, heading and quote marks, link URLs", () => {
    assert.equal(plainLabel("Fix `parseAmount` in **src/csv.js**"), "Fix parseAmount in src/csv.js");
    assert.equal(plainLabel("## Why does *this* fail?"), "Why does this fail?");
    assert.equal(plainLabel("> quoted [the docs](https://example.com/x) say"), "quoted the docs say");
    assert.equal(plainLabel("```ts\nconst a = 1;\n```"), "\nconst a = 1;\n");
  });

  it("keeps marks that pair with nothing: globs, dunder names, a lone star, arithmetic", () => {
    for (const text of ["rename src/**/*.ts files", "what does __init__ do", "2 * 3 = 6", "*.ts and *.js", "a*b*c"])
      assert.equal(plainLabel(text), text);
  });

  it("reads only the start of a huge text (unclosed marks cannot make it backtrack far)", () => {
    const hostile = "`".repeat(50_000) + "*a".repeat(50_000) + "[".repeat(50_000);
    assert.ok(plainLabel(hostile).length <= 4000);
  });

  it("a prompt's entry label is plain, as the tree shows it", () => {
    const s = parseOk(jsonl(header(), message("u1", null, "user", "Why does `npm test` fail in **CI**?")));
    assert.equal(entryLabel(s.byId.get("u1")!), "Why does npm test fail in CI?");
  });
});

describe("summaryMarkdown", () => {
  it("writes pi's file lists as Markdown lists, the rest unchanged", () => {
    const summary = [
      "## Goal\nFix it\n\n",
      "<read-files>\nsrc/a.ts\nweird`name.md\n</read-files>\n\n",
      "<modified-files>\nsrc/b.ts\n</modified-files>",
    ].join("");
    assert.equal(
      summaryMarkdown(summary),
      "## Goal\nFix it\n\n**Files read**\n\n- ` src/a.ts `\n- `` weird`name.md ``\n\n" +
        "**Files modified**\n\n- ` src/b.ts `\n",
    );
  });

  it("leaves an unclosed or foreign tag as text", () => {
    for (const text of ["<read-files>\na.ts", "<other>\nx\n</other>", "no tags"])
      assert.equal(summaryMarkdown(text), text);
  });
});
