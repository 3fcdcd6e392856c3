// UI test of search: drives the real VS Code workbench (code-server 4.100.3) in headless Chromium. Searches session
// content from the Sessions view's title-bar button, opens a hit in the transcript, opens every hit in the results
// panel and filters it by kind, and searches the hostile session (what it carries shows as text and runs nothing).
// Screenshots under test-results/ui/ (the README's come from here). Needs `npm run build` first.
import { startWalk } from "./walk.mjs";
import { assertNothingRan } from "./nothing-ran.mjs";

const { shots, page, logs, dialogs, step, openSessionsView, finish } = await startWalk("ui-search");
let failed = false;
try {
  const view = await openSessionsView();

  const input = page.locator(".quick-input-widget .quick-input-box input");
  const pickRow = (text) => page.locator(".quick-input-list .monaco-list-row", { hasText: text }).first();
  const webview = () => page.frameLocator("iframe.webview.ready:visible").last().frameLocator("#active-frame");
  const searchButton = view.locator('.pane-header [aria-label^="Search Session Content"]').first();

  // The title bar's search button: live results as you type, a snippet, the session, the kind and when.
  await searchButton.click();
  await page.locator(".quick-input-widget", { hasText: "Search Session Content" }).waitFor({ timeout: 10000 });
  await input.fill("mathkit");
  // The first hit (not the "Show All Results" row: it comes last, out of the list's view once the hits fill it).
  const firstHit = page.locator(".quick-input-list .monaco-list-row", { hasText: "mathkit", hasNotText: "No match" });
  await firstHit.first().waitFor({ timeout: 60000 });
  // While the index is built the results grow (searched again each second); then several sessions have the word.
  let hits = 0;
  for (let i = 0; (hits = await page.locator(".quick-input-list .monaco-list-row").count()) < 4; i++) {
    if (i > 120) throw new Error(`expected several hits for "mathkit", got ${hits} rows`);
    await page.waitForTimeout(500);
  }
  await page.locator(".statusbar", { hasText: "Indexing Pi sessions" }).waitFor({ state: "detached", timeout: 60000 });
  await page.screenshot({ path: `${shots}/50-search-content-dark.png` });
  step(`the quick pick shows ${hits} rows for "mathkit"`);

  // Enter opens the first hit's transcript, with its row highlighted (a phrase from a tool's output and a reply).
  await page.keyboard.press("Escape");
  await searchButton.click();
  await input.fill('"tiny TypeScript math"');
  await pickRow("TypeScript math").waitFor({ timeout: 30000 });
  await page.keyboard.press("Enter");
  await webview().locator("article.row.highlight").first().waitFor({ timeout: 30000 });
  step("the chosen hit opened in the transcript, highlighted");

  // Show All Results: the panel groups the hits by session; a kind unchecked searches again without it.
  await searchButton.click();
  await input.fill("mathkit");
  await pickRow("mathkit").waitFor({ timeout: 30000 });
  await page.locator('.quick-input-widget .quick-input-titlebar [aria-label="Show All Results"]').click();
  await webview().locator("#groups section.group").first().waitFor({ timeout: 30000 });
  const summary = webview().locator("#summary");
  const before = await summary.textContent();
  await webview().locator("label", { hasText: "Tools" }).click();
  for (let i = 0; (await summary.textContent()) === before; i++) {
    if (i > 100) throw new Error(`unchecking Tools did not search again: ${before}`);
    await page.waitForTimeout(100);
  }
  await webview().locator("label", { hasText: "Tools" }).click();
  await page.waitForTimeout(500);
  await page.screenshot({ path: `${shots}/51-search-results-dark.png` });
  step(`the results panel: "${before}", then without tools: searched again`);

  // Hostile text in the results: shown literally, nothing live.
  const logStart = logs.length;
  // The hostile session is in another project: the scope goes to every project.
  await webview().locator("#scope").selectOption("all");
  const query = webview().locator("#query");
  await query.fill("pwned");
  await webview().getByText("window.__pwned=2", { exact: false }).first().waitFor({ timeout: 30000 });
  if (await webview().locator("#results a, #results iframe, #results img, #results script, #results svg").count())
    throw new Error("the results show a live link, frame, image, script or SVG");
  await webview().locator("#results mark", { hasText: "pwned" }).first().waitFor({ timeout: 5000 });
  await searchButton.click();
  await page.locator('.quick-input-widget .quick-input-titlebar [aria-label="Search All Projects"]').click();
  await input.fill("onerror pwned");
  await pickRow("window.__pwned=1").waitFor({ timeout: 30000 });
  await page.screenshot({ path: `${shots}/52-search-hostile.png` });
  await page.keyboard.press("Escape");
  await assertNothingRan(page, { logs, logStart, dialogs });
  step("hostile hits: text only, matches marked, nothing ran");
} catch (e) {
  failed = true;
  console.error("UI SEARCH TEST FAILED:", e.message);
  await page.screenshot({ path: `${shots}/99-search-failure.png` }).catch(() => {});
  console.error(logs.slice(-30).join("\n"));
}
await finish(failed, "search ui test passed");
