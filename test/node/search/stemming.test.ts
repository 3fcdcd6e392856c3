// English words are found in their other forms (issue #40, item 7): FTS5's porter tokenizer over unicode61, snippets
// marked where the stems match (the `stemmer` package against SQLite's own stems), a prefix suggested when nothing
// matches, and snippets as plain text.
import * as assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stemmer } from "stemmer";
import { run } from "../../../src/cli/main.js";
import { prefixSuggestion } from "../../../src/core/search/query.js";
import { makeSnippet } from "../../../src/core/search/snippet.js";
import { loadSqlite } from "../../../src/node/search/indexFile.js";
import { SearchIndex } from "../../../src/node/search/searchIndex.js";
import { snippetPlainText } from "../../../src/protocol/markdown.js";
import { header, message } from "../../support/builders.js";
import { PI_FIXTURES } from "../../support/fixtures.js";
import { jsonl, withTempDir } from "../../support/helpers.js";
import { find, projectDir, ROOTS, targetsOf } from "./searchHelpers.js";

describe("search: stems, prefix suggestions and plain snippets", () => {
  it("the snippet's stems are SQLite's: each ASCII word of the fixtures' text stems as FTS5's porter", async () => {
    const words = new Set<string>();
    for (const f of PI_FIXTURES)
      for (const m of readFileSync(f, "utf8").matchAll(/[A-Za-z]{3,30}/g)) words.add(m[0].toLowerCase());
    assert.ok(words.size > 500, `${words.size} words`);
    const db = new (await loadSqlite())(":memory:");
    try {
      db.exec("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2')");
      db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')");
      const list = [...words];
      db.run("INSERT INTO t(x) VALUES (?)", [list.join(" ")]);
      const stems = (db.all("SELECT term, offset FROM v ORDER BY offset") as { term: string }[]).map((r) => r.term);
      assert.deepEqual(
        list.map((w) => stemmer(w)),
        stems,
      );
    } finally {
      db.close();
    }
  });

  it("a word finds its other forms; a form Porter keeps apart is suggested as a prefix that finds it", async () => {
    await withTempDir(async (dir) => {
      const { agent, slug } = projectDir(dir);
      writeFileSync(
        join(slug, "s.jsonl"),
        jsonl(
          header({ id: "stems", cwd: "/p" }),
          message("u1", null, "user", "The parser runs out of parentheses"),
          message("a1", "u1", "assistant", "It was running the tokenizer twice"),
        ),
      );
      const index = await SearchIndex.open(join(dir, "cache"), ROOTS);
      try {
        await index.update(await targetsOf(agent));
        const hits = find(index, "run");
        assert.deepEqual(hits.map((h) => h.entryId).sort(), ["a1", "u1"]);
        assert.deepEqual(hits.map((h) => h.snippet).sort(), [
          "It was «running» the tokenizer twice",
          "The parser «runs» out of parentheses",
        ]);
        assert.deepEqual(find(index, "parenthesis"), [], "porter: parenthesi and parenthes");
        assert.equal(prefixSuggestion("parenthesis"), "parenthe*");
        assert.deepEqual(
          find(index, "parenthe*").map((h) => [h.entryId, h.snippet]),
          [["u1", "The parser runs out of «parentheses»"]],
        );
      } finally {
        index.close();
      }
      let out = "";
      let err = "";
      const io = { out: (t: string) => (out += `${t}\n`), err: (t: string) => (err += `${t}\n`) };
      const args = ["search", "parenthesis", "--agent-dir", agent, "--no-cache"];
      assert.equal(await run(args, io), 0);
      assert.equal(out, "");
      assert.equal(err.trim(), "no match; the beginning of the word finds some: parenthe*");
    });
  });

  it("a prefix is suggested for plain words of six letters or more; phrases, filters and exclusions stay", () => {
    assert.equal(prefixSuggestion("fix parenthesis role:user"), "fix parenthe* role:user");
    assert.equal(prefixSuggestion('"exact phrase" -excluded tokenizer'), '"exact phrase" -excluded tokeni*');
    assert.equal(prefixSuggestion("prefix* short abc"), null);
    assert.equal(prefixSuggestion("numbers123"), null, "letters only");
    assert.equal(prefixSuggestion("𝒜𝒜𝒜𝒜𝒜𝒜𝒜"), "𝒜𝒜𝒜𝒜*", "cut by code point");
    assert.equal(makeSnippet("connection connected", ["connect"]), "«connection» «connected»");
  });

  it("snippets read as plain text: headings, emphasis, code marks, bullets and link targets dropped", () => {
    assert.equal(
      snippetPlainText("## Plan\n- **fix** the `parser` for «parentheses»"),
      "Plan fix the parser for «parentheses»",
    );
    assert.equal(snippetPlainText("see [the docs](https://x.y) and ![img](a.png)"), "see the docs and img");
    assert.equal(
      snippetPlainText("> quoted «text» here\n1. first\n2. ~~gone~~ *em*"),
      "quoted «text» here first gone em",
    );
    assert.equal(snippetPlainText("snake_case_name and __init__"), "snake_case_name and __init__");
    assert.equal(snippetPlainText("…end of ## heading"), "…end of heading");
  });
});
