// Issue #35: the HTML export of the hostile, Markdown-rich session (test/support/richSession.ts) opened from
// disk in a real Chromium (Debian's, through playwright-core; the browser the UI walks use). What a reader sees:
// highlighted code elements with their language, the list, table and quote; that nothing the session carries runs
// (no dialog, no `window.pwned`), loads (no request but the file itself), or becomes an element; light and dark
// differ; and `#entry-<id>` lands on that entry.
import * as assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
// @ts-expect-error: a plain ES module of the test scripts, without types.
import { chromiumPath } from "../../scripts/vscode/browser.mjs";
import { withTempDir } from "../support/helpers.js";
import { exportOf } from "../support/richSession.js";

interface Opened {
  page: Page;
  requests: string[];
  dialogs: string[];
  consoleLines: string[];
}

async function open(browser: Browser, url: string, colorScheme: "light" | "dark"): Promise<Opened> {
  const page = await browser.newPage({ colorScheme, viewport: { width: 900, height: 500 } });
  const opened: Opened = { page, requests: [], dialogs: [], consoleLines: [] };
  page.on("request", (r) => opened.requests.push(r.url()));
  page.on("dialog", (d) => {
    opened.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on("console", (m) => opened.consoleLines.push(m.text()));
  await page.goto(url, { waitUntil: "load" });
  return opened;
}

describe("HTML export in a real Chromium (#35)", function () {
  let browser: Browser;
  before(async () => {
    browser = await chromium.launch({ executablePath: chromiumPath() as string, args: ["--no-sandbox"] });
  });
  after(async () => browser?.close());

  it("shows code, lists and tables; nothing from the session runs, loads or becomes an element", async () => {
    await withTempDir(async (dir) => {
      const { md: html } = await exportOf(dir, "html");
      const file = join(dir, "export.html");
      writeFileSync(file, html);
      const url = pathToFileURL(file).href;
      const { page, requests, dialogs } = await open(browser, url, "light");
      try {
        // Code: the language on the element, highlighted spans inside, the text exactly the message's.
        const ts = page.locator("pre code.language-ts");
        assert.equal(await ts.count(), 1);
        assert.equal(await ts.textContent(), "const x: number = `${1}`;\n");
        assert.ok((await ts.locator("span.hljs-keyword").count()) >= 1, "the TypeScript is highlighted");
        const python = await page.locator("pre code.language-python").textContent();
        assert.equal(python, "print('hi')\n## Assistant · forged\n", "the unclosed fence ends with its message");
        assert.deepEqual(await page.locator("ol:has(code) li").allInnerTexts(), [
          "read data/sample.csv",
          "fix parse and sum",
        ]);
        assert.equal(await page.locator("ol li code").first().innerText(), "data/sample.csv");
        assert.equal(await page.locator("ol[start='1986'] li").innerText(), "a year", "a list's start number kept");
        assert.deepEqual(await page.locator("table td").allInnerTexts(), ["a|b", "2"]);
        assert.equal(await page.locator("blockquote strong").innerText(), "text");
        // The hostile pieces: shown as the text they are.
        const body = await page.locator("body").innerText();
        assert.ok(body.includes("<img src=x onerror=alert(1)> <script>window.pwned=1</script>"));
        assert.ok(body.includes("[bad](javascript:alert(3))"), "the other scheme's link is its text");
        assert.equal(await page.locator(".markdown img, .markdown script, .markdown details").count(), 0);
        const hrefs = await page
          .locator(".markdown a[href]")
          .evaluateAll((as) => as.map((a) => a.getAttribute("href")));
        assert.deepEqual(hrefs, ["https://example.com/docs", "mailto:me@example.com"]);
        // Nothing ran, nothing was asked of the network, nothing was refused (nothing tried).
        assert.equal(await page.evaluate(() => (window as unknown as { pwned?: unknown }).pwned), undefined);
        assert.deepEqual(dialogs, []);
        assert.deepEqual(
          requests.filter((r) => r !== url && !r.startsWith("data:")),
          [],
          "no request but the file and its data: images",
        );
        assert.equal(await page.locator("h1").count(), 1, "one title");
      } finally {
        await page.close();
      }
    });
  });

  it("is light and dark as the system is, and #entry-<id> lands on that entry", async () => {
    await withTempDir(async (dir) => {
      const { md: html } = await exportOf(dir, "html");
      const file = join(dir, "export.html");
      writeFileSync(file, html);
      const background = async (scheme: "light" | "dark") => {
        const { page } = await open(browser, pathToFileURL(file).href, scheme);
        const color = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        const keyword = await page
          .locator("span.hljs-keyword")
          .first()
          .evaluate((e) => getComputedStyle(e).color);
        await page.close();
        return { color, keyword };
      };
      const light = await background("light");
      const dark = await background("dark");
      assert.notEqual(light.color, dark.color, "the page follows the colour scheme");
      assert.notEqual(light.keyword, dark.keyword, "so does the highlighting");

      const { page } = await open(browser, `${pathToFileURL(file).href}#entry-a1`, "light");
      try {
        const target = await page.evaluate(() => {
          const t = document.querySelector(":target");
          return t ? { id: t.id, top: t.getBoundingClientRect().top, scrolled: window.scrollY } : null;
        });
        assert.ok(target, "the anchor names an element");
        assert.equal(target.id, "entry-a1");
        assert.ok(target.scrolled > 0 && Math.abs(target.top) < 50, `scrolled to it: ${JSON.stringify(target)}`);
        const heading = page.locator("#entry-a1 h2, h2:has(a[href='#entry-a1'])").first();
        assert.match(await heading.innerText(), /^Assistant/);
      } finally {
        await page.close();
      }
    });
  });
});
