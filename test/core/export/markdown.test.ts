// Issue #35: the Markdown export keeps the messages' Markdown and stays inert in the worst viewer. The export of a
// session carrying every construct and hostile pieces is rendered by markdown-it with raw HTML allowed; and for
// generated messages, what that viewer shows of the export equals what the message shows (markdown-it, raw HTML as
// text, as the transcript view reads it), with headings two levels down.
import * as assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { run } from "../../../src/cli/main.js";
import { messageMarkdown } from "../../../src/core/export/messageText.js";
import { header, message } from "../../support/builders.js";
import { jsonl, withTempDir } from "../../support/helpers.js";
import {
  messageViewer,
  permissiveUnlinkedViewer,
  permissiveViewer,
  plainText,
  startTags,
} from "../../support/markdownView.js";

export const RICH = [
  "## Plan\n\n1. read `data/sample.csv`\n2. fix *parse* and **sum**\n\n- ~~old~~ new\n- _em_ snake_case\n\n" +
    "| name | total |\n|:--|--:|\n| `a\\|b` | 2 |\n\n> quoted **text**\n\n```ts\nconst x: number = `${1}`;\n```\n\n" +
    'See [docs](https://example.com/docs "Docs") or <me@example.com>.',
  "# forged title\nline two\n\n<img src=x onerror=alert(1)> <script>window.pwned=1</script>\n\n" +
    "[bad](javascript:alert(3)) [cmd](command:workbench.action.quit) ![pic](https://tracker.example/p.png)\n\n" +
    "<details open><summary>x</summary></details>\n\n1986. a year\n- not a heading\n===",
  "Unclosed:\n```python\nprint('hi')\n## Assistant · forged\n",
];

export async function exportOf(dir: string, format = "md"): Promise<{ md: string; file: string }> {
  const file = join(dir, "s.jsonl");
  writeFileSync(
    file,
    jsonl(
      header(),
      message("u1", null, "user", RICH[1]!),
      message("a1", "u1", "assistant", RICH[0]!),
      message("a2", "a1", "assistant", RICH[2]!),
      message("u2", "a2", "user", "after the fence"),
      {
        type: "branch_summary",
        id: "b1",
        parentId: "u2",
        timestamp: "2026-01-01T00:00:09Z",
        fromId: "a1",
        summary: "## Summary\n- kept `x`",
      },
    ),
  );
  let out = "";
  const code = await run(["export", file, "--format", format, "--no-cache"], {
    out: (t) => (out += `${t}\n`),
    err: () => {},
  });
  assert.equal(code, 0);
  return { md: out, file };
}

/** What a message may become: the elements CommonMark and GFM tables make, and the export's own. */
const ALLOWED_TAGS = new Set(
  "h1 h2 h3 h4 h5 h6 p ul ol li table thead tbody tr th td em strong s code pre blockquote hr br a details summary".split(
    " ",
  ),
);

describe("Markdown export (#35): the messages' Markdown, inert in a viewer that allows HTML", () => {
  it("code with its language, lists, a table, emphasis, quotes and links show; nothing hostile does", async () => {
    await withTempDir(async (dir) => {
      const { md } = await exportOf(dir);
      const html = permissiveViewer.render(md);
      assert.match(html, /<code class="language-ts">const x: number = `\$\{1\}`;\n<\/code>/);
      assert.match(html, /<code class="language-python">print\('hi'\)\n## Assistant · forged\n<\/code>/);
      for (const tag of ["ol", "ul", "table", "em", "strong", "s", "blockquote"])
        assert.ok(html.includes(`<${tag}`), `a ${tag} element`);
      assert.match(html, /<td style="text-align:left"><code>a\|b<\/code><\/td>\n<td style="text-align:right">2<\/td>/);
      assert.match(html, /<a href="https:\/\/example\.com\/docs" title="Docs">docs<\/a>/);
      assert.match(html, /<a href="mailto:me@example\.com">me@example\.com<\/a>/);
      const tags = startTags(html);
      assert.deepEqual(
        tags.filter((t) => !ALLOWED_TAGS.has(t.name)),
        [],
        "no element from session text",
      );
      assert.ok(!tags.some((t) => /\son\w+\s*=/i.test(t.attrs)), "no handler");
      for (const t of tags.filter((x) => x.name === "a"))
        assert.match(t.attrs, /^ href="(https?:\/\/|mailto:)[^"]*"( title="[^"]*")?$/, "a web or mail link only");
      assert.ok(!tags.some((t) => t.name === "details" && /open/.test(t.attrs)), "the message's <details> is text");
      assert.ok(plainText(html).includes("<img src=x onerror=alert(1)> <script>window.pwned=1</script>"));
      assert.ok(plainText(html).includes("[bad](javascript:alert(3))"), "the other scheme's link is its text");
      assert.ok(html.includes("[image: pic] (<code>https://tracker.example/p.png</code>)"), "the image named");
      // One h1 (the title), one h2 per entry (4 messages and the summary); the messages' headings are h3.
      assert.equal((html.match(/<h1>/g) ?? []).length, 1);
      assert.equal((html.match(/<h2>/g) ?? []).length, 5);
      assert.match(html, /<h3>forged title line two<\/h3>|<h3>forged title<\/h3>/);
      // After the unclosed fence: the next entry's heading and text, as themselves.
      const fence = html.indexOf("print('hi')");
      assert.match(html.slice(fence), /<\/code><\/pre>[\s\S]*<h2>User · [^<]*<\/h2>\n<p>after the fence<\/p>/);
      assert.match(html, /<h4>Summary<\/h4>\n<ul>\n<li>kept <code>x<\/code><\/li>/);
    });
  });

  it("any message shows in the export as it shows in the transcript, and nothing in it becomes markup", () => {
    const piece = fc.constantFrom(
      "word",
      "other",
      " ",
      "  ",
      "\n",
      "\n\n",
      "# ",
      "## ",
      "### ",
      "`",
      "``",
      "```",
      "```js\n",
      "~~~",
      "~~",
      "*",
      "**",
      "_",
      "__",
      "- ",
      "+ ",
      "* ",
      "1. ",
      "2) ",
      "> ",
      "    ",
      "\t",
      "|",
      "| a | b |\n|---|:-:|\n",
      "---",
      "===",
      "\\",
      "<b>",
      "</b>",
      "<img src=x onerror=alert(1)>",
      "<script>",
      "&amp;",
      "&lt;",
      "&",
      "[",
      "]",
      "(",
      ")",
      "[t](https://ex.com/a_b)",
      "[j](javascript:alert(1))",
      "![i](https://ex.com/i.png)",
      "<https://ex.com>",
      "www.ex.com",
      "a@ex.com",
      "!",
      "#",
      "=",
      "1986.",
      "x_y",
      "[^1]",
      "<!-- c -->",
      "\u00a0",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join("");
        const exported = messageMarkdown(text);
        // A fence left open at the message's end holds no final newline; closed, it does (nothing a reader sees).
        // An empty heading is empty, whatever spaces followed its marks.
        const lastLine = (html: string) =>
          html
            .replace(/\n<\/code><\/pre>/g, "</code></pre>")
            .replace(/<(h[1-6])>([\s\S]*?)<\/\1>/g, (_, h: string, text: string) => `<${h}>${text.replace(/\n/g, " ")}</${h}>`)
            .replace(/(<h[1-6]>)\s+|\s+(<\/h[1-6]>)/g, "$1$2");
        const shown = lastLine(permissiveUnlinkedViewer.render(exported));
        // A fence's language is kept when it is a name (letters, digits, `+#.-_`), as the export writes it.
        const named = (html: string) =>
          html.replace(/<code class="language-([^"]*)">/g, (_, info: string) => {
            const name = /^[\w+#.-]{1,40}/.exec(info)?.[0];
            return name ? `<code class="language-${name}">` : "<code>";
          });
        const expected = named(lastLine(messageViewer.render(text))).replace(/<(\/?)h([1-6])>/g, (_, c: string, n: string) => {
          return `<${c}h${Math.min(6, Number(n) + 2)}>`;
        });
        assert.equal(shown, expected, `message ${JSON.stringify(text)}\nexported ${JSON.stringify(exported)}`);
        const linked = startTags(permissiveViewer.render(exported));
        assert.ok(linked.every((t) => ALLOWED_TAGS.has(t.name) && !/\son\w+=/.test(t.attrs)), "no element or handler");
        for (const a of linked.filter((t) => t.name === "a")) assert.match(a.attrs, /^ href="(https?:\/\/|mailto:)/);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 3000) },
    );
  });
});
