// Issue #35: the Markdown export keeps the messages' Markdown and stays inert in the worst viewer. The export of a
// session carrying every construct and hostile pieces is rendered by markdown-it with raw HTML allowed; and for
// generated messages, what that viewer shows of the export equals what the message shows (markdown-it, raw HTML as
// text, as the transcript view reads it), with headings two levels down.
import * as assert from "node:assert/strict";
import fc from "fast-check";
import { messageMarkdown } from "../../../src/core/export/messageText.js";
import { withTempDir } from "../../support/helpers.js";
import {
  messageViewer,
  permissiveUnlinkedViewer,
  permissiveViewer,
  plainText,
  startTags,
} from "../../support/markdownView.js";
import { exportOf } from "../../support/richSession.js";

/** What a message may become: the elements CommonMark and GFM tables make, and the export's own. */
const ALLOWED_TAGS = new Set(
  ["h1 h2 h3 h4 h5 h6 p ul ol li table thead tbody tr th td", "em strong s code pre blockquote hr br a details summary"]
    .join(" ")
    .split(" "),
);

/**
 * The same 3,000 runs each time (a seed of its own), so that the suite's result does not depend on the day; any
 * other seed and count with `FUZZ_SEED` and `FUZZ_RUNS` (hundreds of thousands of runs were made with random seeds:
 * what they still find is lone emphasis marks next to emphasis, which may pair otherwise once written again).
 */
const FUZZ = {
  numRuns: Number(process.env.FUZZ_RUNS ?? 3000),
  seed: process.env.FUZZ_SEED === "random" ? undefined : Number(process.env.FUZZ_SEED ?? 350),
};

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

  it("any message shows in the export as it shows in the transcript", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES, ...PAIRED_EMPHASIS), { maxLength: 30 }), (pieces) => {
        fc.pre(!closesRightAfterBareLink(pieces));
        const text = pieces.join("");
        const exported = messageMarkdown(text);
        const shown = comparable(permissiveUnlinkedViewer.render(exported));
        const expected = comparable(messageViewer.render(text), { demote: true });
        assert.equal(shown, expected, `message ${JSON.stringify(text)}\nexported ${JSON.stringify(exported)}`);
      }),
      FUZZ,
    );
  });

  // Lone emphasis marks that pair across each other (`**word*(**`) may pair otherwise once written again: a few marks
  // shown as text or as emphasis differently, never markup of the document.
  it("nothing in any message becomes an element, a handler, a link elsewhere or an entry heading", () => {
    const all = [...PIECES, ...PAIRED_EMPHASIS, "*", "**", "_", "__", "~~"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...all), { maxLength: 30 }), (pieces) => {
        const shown = startTags(permissiveViewer.render(messageMarkdown(pieces.join(""))));
        assert.ok(
          shown.every((t) => ALLOWED_TAGS.has(t.name) && !/\son\w+=/.test(t.attrs)),
          "no element or handler",
        );
        assert.ok(!shown.some((t) => t.name === "h1" || t.name === "h2"), "no entry heading");
        for (const a of shown.filter((t) => t.name === "a")) assert.match(a.attrs, /^ href="(https?:\/\/|mailto:)/);
      }),
      FUZZ,
    );
  });
});

/**
 * A bare address (linkified) right next to an emphasis mark: the one shape the exact property leaves out. The export
 * writes the link as `[text](<url>)`, whose brackets change how CommonMark reads the marks beside it (no emphasis
 * closes on a mark between `)` and a letter: `~~[a](<u>)~~s`), so that emphasis may show as its marks; the words and
 * the link stay. Known and documented (docs/architecture.md).
 */
function closesRightAfterBareLink(pieces: string[]): boolean {
  return pieces.some(
    (p, i) =>
      /^(www\.ex\.com|a@ex\.com)$/.test(p) &&
      (/^[*_~]/.test(pieces[i + 1] ?? "") || /[*_~]$/.test(pieces[i - 1] ?? "")),
  );
}

/** Pieces of messages: Markdown's marks, hostile HTML and links, words. */
const PIECES = [
  ..."word|other| |  |\n|\n\n|# |## |### |`|``|```|```js\n|~~~|- |+ |* |1. |2) |> |    |\t".split("|"),
  "|",
  "| a | b |\n|---|:-:|\n",
  ..."---|===|\\|<b>|</b>|<img src=x onerror=alert(1)>|<script>|&amp;|&lt;|&|[|]|(|)".split("|"),
  "[t](https://ex.com/a_b)",
  "[j](javascript:alert(1))",
  "![i](https://ex.com/i.png)",
  ..."<https://ex.com>|www.ex.com|a@ex.com|!|#|=|1986.|x_y|[^1]|<!-- c -->|\u00a0".split("|"),
];
const PAIRED_EMPHASIS = ["*em*", "**strong**", "_u_", "__uu__", "~~s~~", "2 * 3", "a_b_c"];

/**
 * Rendered HTML with what a reader cannot see made equal: a fence left open at the message's end holds no final
 * newline (closed, it does); a heading's line breaks (an ATX heading is one line) and edge spaces; a fence's language
 * beyond its name (the export keeps letters, digits and `+#.-_`); a link without a destination (`[x]()`), which the
 * export writes as its text; a link inside a link, which HTML cannot nest, and struck text inside struck text.
 * `demote`: a message's headings two levels down, as the export places them.
 */
function comparable(html: string, options: { demote?: boolean } = {}): string {
  const out = html
    .replace(/\n<\/code><\/pre>/g, "</code></pre>")
    .replace(
      /<(h[1-6])>([\s\S]*?)<\/\1>/g,
      (_, h: string, text: string) => `<${h}>${text.replace(/<br>\n|\n/g, " ")}</${h}>`,
    )
    .replace(/(<h[1-6]>)\s+|\s+(<\/h[1-6]>)/g, "$1$2")
    .replace(/<code class="language-([^"]*)">/g, (_, info: string) => {
      const name = /^[\w+#.-]{1,40}/.exec(info)?.[0];
      return name ? `<code class="language-${name}">` : "<code>";
    })
    .replace(/<a href="">([\s\S]*?)<\/a>/g, "$1");
  return unnestLinks(options.demote ? demote(out) : out);
}

const demote = (html: string) =>
  html.replace(/<(\/?)h([1-6])>/g, (_, c: string, n: string) => `<${c}h${Math.min(6, +n + 2)}>`);

/**
 * A link inside a link's text (markdown-it lets an autolink in) as its text: HTML's anchors do not nest. Struck text
 * inside struck text as struck once: it shows the same (the export writes it once).
 */
function unnestLinks(html: string): string {
  return unnest(unnest(html, /<a\s[^>]*>|<\/a>/g, "</a>"), /<s>|<\/s>/g, "</s>");
}

function unnest(html: string, tags: RegExp, close: string): string {
  let depth = 0;
  return html.replace(tags, (tag) => {
    const keep = tag === close ? --depth === 0 : depth++ === 0;
    return keep ? tag : "";
  });
}
