// Issue #35, an outside attack on the Markdown export: each input below broke a guarantee before it was fixed (a
// live tag, a fence swallowing the next entry, a forged entry heading, a link to a scheme an export does not link,
// content lost). Each is exported as a user message followed by another entry, as `pi-sessions export` writes it,
// and read by the worst viewer (markdown-it with raw HTML and bare-URL links).
import * as assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../src/cli/main.js";
import { header, message } from "../../support/builders.js";
import { jsonl, withTempDir } from "../../support/helpers.js";
import { permissiveViewer, plainText, startTags } from "../../support/markdownView.js";

async function exported(dir: string, text: string, format = "md"): Promise<string> {
  const file = join(dir, "s.jsonl");
  writeFileSync(file, jsonl(header(), message("u1", null, "user", text), message("u2", "u1", "user", "LAST ENTRY")));
  let out = "";
  const code = await run(["export", file, "--format", format, "--no-cache"], {
    out: (t) => (out += `${t}\n`),
    err: () => {},
  });
  assert.equal(code, 0);
  return out;
}

/** The attributes' names of a start tag (values skipped whole: a title may say `onerror=` as text). */
function attributeNames(attrs: string): string[] {
  return [...attrs.matchAll(/\s*([^\s=]+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?/g)].map((m) => m[1]!);
}

/** What the worst viewer makes of the export: one title, the two entries' headings, no element from the message. */
function assertInert(md: string, what: string): string {
  const html = permissiveViewer.render(md);
  const tags = startTags(html);
  assert.deepEqual(
    tags.filter((t) => ["img", "script", "svg", "iframe", "style"].includes(t.name)).map((t) => t.name),
    [],
    `${what}: no live element`,
  );
  assert.ok(!tags.some((t) => attributeNames(t.attrs).some((n) => /^on/i.test(n))), `${what}: no handler`);
  for (const a of tags.filter((t) => t.name === "a"))
    assert.match(a.attrs, /^ href="(https?:\/\/|mailto:)/, `${what}: a web or mail link only`);
  assert.equal((html.match(/<h1>/g) ?? []).length, 1, `${what}: one h1, the title`);
  const h2 = [...html.matchAll(/<h2>([^<]*)<\/h2>/g)].map((m) => m[1]!);
  assert.equal(h2.length, 2, `${what}: one h2 per entry, got ${JSON.stringify(h2)}`);
  assert.ok(h2.every((h) => /^User · /.test(h)));
  assert.match(html, /<h2>User · [^<]*<\/h2>\n<p>LAST ENTRY<\/p>/, `${what}: the next entry is intact`);
  return html;
}

const ATTACKS: [string, string][] = [
  [
    "a link title with a tag, in a table cell",
    '| h | i |\n|---|---|\n| [a](https://x.com "\\|<img src=x onerror=alert(1)>") | |',
  ],
  ["a link broken by entity blank lines, its title a tag", '[a&#10;&#10;b](https://x.com "<img src=x onerror=1>")'],
  ["nested strikethrough on an indented continuation line", "a\n    ~~~~b~~~~"],
  ["nested strikethrough after an entity space", "&#32;~~~~a~~~~"],
  ["an entity line break before a setext underline", "Assistant · 2026-01-01 00:00&#10; ---"],
  ["an entity space before an underline", "Fake\n&#32;---"],
  ["an entity break and spaces before ===", "x&#10;   ==="],
  ["a heading, then entity breaks, then ===", "# t&#10;&#10;b&#10; ==="],
  ["an image alt holding a tab and an underline", "-   ![User · 2026-01-01 00:00\n    \t---\n    b](https://x)"],
  ["an entity break before indented code", "a&#10;&#10;    code"],
  ["an entity space before a list marker", "a\n&#32;- item"],
];

describe("Markdown export (#35): inputs of an outside attack", () => {
  for (const [what, text] of ATTACKS)
    it(what, async () => {
      await withTempDir(async (dir) => {
        assertInert(await exported(dir, text), what);
      });
    });

  it("ftp:// and //host addresses are not links in a viewer that links bare addresses", async () => {
    await withTempDir(async (dir) => {
      const html = assertInert(await exported(dir, "see ftp://evil.example/x //evil.example/share"), "addresses");
      assert.ok(plainText(html).includes("see ftp://evil.example/x //evil.example/share"), "shown as written");
    });
  });

  it("a message nested past markdown-it's limit is kept whole, as text", async () => {
    await withTempDir(async (dir) => {
      const levels = Array.from({ length: 51 }, (_, i) => `${"  ".repeat(i)}- level ${i}`);
      const deep = `${levels.join("\n")}\n\nSECRET after list`;
      for (const format of ["md", "html"]) {
        const out = await exported(dir, deep, format);
        assert.ok(out.includes("SECRET after list"), `${format}: nothing after the nesting is lost`);
        assert.ok(out.includes("level 50"), `${format}: the deepest level too`);
      }
      assertInert(await exported(dir, deep), "deep nesting");
    });
  });

  it("a message over the Markdown limit is its text in a code block", async () => {
    await withTempDir(async (dir) => {
      const huge = `${"![".repeat(120_000)} END`;
      const md = await exported(dir, huge);
      const html = assertInert(md, "a huge message");
      assert.match(html, /<pre><code>(!\[){10}/, "its text as it is, in a code block");
      assert.ok(md.includes(" END"));
    });
  });

  it("a title is cut without splitting a character", async () => {
    await withTempDir(async (dir) => {
      const md = await exported(dir, `${"a".repeat(78)}😀 and more words after it`);
      const title = md.split("\n")[0]!;
      assert.ok(!title.includes("\uFFFD") && !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(title), title);
    });
  });
});
