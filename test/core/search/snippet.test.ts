// Snippets of search hits (src/core/search/snippet.ts), cut from a unit's text around the query's terms: matches are
// whole words compared as the index's tokenizer compares them (case and diacritics folded), phrases in a row, a
// prefix only when the whole word matches nowhere; a long text shows a window from just before the first match.
import * as assert from "node:assert/strict";
import { makeSnippet } from "../../../src/core/search/snippet.js";

describe("search snippets", () => {
  it("marks whole words, folded as the tokenizer folds them", () => {
    assert.equal(
      makeSnippet("Fixed the CSV parser's parentheses bug.", ["csv", "parentheses"]),
      "Fixed the «CSV» parser's «parentheses» bug.",
    );
    assert.equal(
      makeSnippet("Un café crème, s'il vous plaît", ["cafe", "CREME"]),
      "Un «café» «crème», s'il vous plaît",
    );
    assert.equal(makeSnippet("category cat catalog", ["cat"]), "category «cat» catalog", "not inside other words");
  });

  it("a phrase is marked where its words come in a row; a prefix only when no whole word matches", () => {
    assert.equal(
      makeSnippet("no such file; such no file; no such file", ["no such file"]),
      "«no» «such» «file»; such no file; «no» «such» «file»",
    );
    assert.equal(makeSnippet("parsing the parser", ["pars"]), "«parsing» the «parser»");
  });

  it("a long text shows a window from a few words before the first match, with ellipses", () => {
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`);
    words[120] = "needle";
    const s = makeSnippet(words.join(" "), ["needle"]);
    assert.equal(s, `…${words.slice(114, 120).join(" ")} «needle» ${words.slice(121, 138).join(" ")}…`);
    assert.equal(makeSnippet("nothing matches here", ["absent"]), "nothing matches here");
    assert.equal(makeSnippet("", ["x"]), "");
  });
});
