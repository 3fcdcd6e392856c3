// UI test of the transcript editor: drives the real VS Code workbench (code-server 4.100.3) in headless Chromium.
// Opens a transcript from the palette and from a click in the tree, switches a branch with the switcher, finds with
// Ctrl+F in every entry, scrolls a long session up from its end to its first prompt, reads the hostile session
// (nothing runs, everything shows as text), and saves light and dark screenshots under test-results/ui/ (the README's
// come from here). Needs `npm run build` first.
import { HOSTILE } from "./fixture-home.mjs";
import { startWalk } from "./walk.mjs";
import { assertNothingRan } from "./nothing-ran.mjs";

const { shots, page, logs, dialogs, step, openSessionsView, finish } = await startWalk("ui-transcript");
let failed = false;
try {
  const view = await openSessionsView();
  const row = (text) => view.locator(".monaco-list-row", { hasText: text }).first();

  const input = page.locator(".quick-input-widget .quick-input-box input");
  const pickRow = (text) => page.locator(".quick-input-list .monaco-list-row", { hasText: text }).first();
  const runCommand = async (title) => {
    await page.keyboard.press("F1");
    await input.waitFor({ timeout: 10000 });
    await input.fill(`>${title}`);
    await pickRow(title).waitFor({ timeout: 10000 });
    await page.keyboard.press("Enter");
  };
  const webview = () => page.frameLocator("iframe.webview.ready:visible").last().frameLocator("#active-frame");

  // From the palette: a quick pick of sessions by name or first prompt.
  await runCommand("Pi Sessions: Open Transcript");
  await input.fill("Stats helpers (sum");
  await pickRow("Stats helpers (sum/avg/median)").waitFor({ timeout: 10000 });
  await pickRow("Stats helpers (sum/avg/median)").click();
  await page.locator(".tab", { hasText: "Stats helpers (sum" }).first().waitFor({ timeout: 15000 });
  await webview().locator("h1", { hasText: "Stats helpers (sum/avg/median)" }).waitFor({ timeout: 30000 });
  await webview().locator("article.row.assistant").first().waitFor({ timeout: 15000 });
  await webview().getByText("ends at the active leaf", { exact: false }).waitFor({ timeout: 5000 });
  step("opened from the palette at the active leaf");

  // The branch switcher: the other branch, chosen in the quick pick; the header says it is not the active one.
  await webview().locator("button.branch").first().click();
  await pickRow("Also add").waitFor({ timeout: 10000 });
  await pickRow("Also add").click();
  await webview().getByText("not the active branch", { exact: false }).waitFor({ timeout: 15000 });
  await webview().getByText("Now document both helpers", { exact: false }).first().waitFor({ timeout: 15000 });
  step("switched to the other branch");
  await page.mouse.move(1400, 900);
  await page.screenshot({ path: `${shots}/40-transcript-branch-dark.png` });

  // A click on a turn in the tree opens the transcript there (a compacted session: the card and its toggle).
  await row("Explain the layout of this repo.").click();
  await row("Compaction · 4k tokens before").waitFor({ timeout: 15000 });
  await row("Compaction · 4k tokens before").click();
  await page.locator(".tab", { hasText: "Explain the layout" }).first().waitFor({ timeout: 15000 });
  await webview().locator("article.row.compaction.highlight").waitFor({ timeout: 30000 });
  step("a tree click opened the transcript at the compaction");
  await webview().locator("article.row.compaction button", { hasText: "Show the replaced entries" }).first().click();
  await webview().locator("article.row.dimmed").first().waitFor({ timeout: 15000 });
  step("replaced entries shown dimmed");
  await page.mouse.move(1400, 900);
  await page.screenshot({ path: `${shots}/41-transcript-compaction-dark.png` });

  // Ctrl+F in a transcript is Find in Transcript: every entry of the branch, those behind a card included.
  await webview().locator("article.row").first().click();
  await page.keyboard.press("Control+f");
  await page.locator(".quick-input-widget", { hasText: "Find in Transcript" }).waitFor({ timeout: 10000 });
  await input.fill("layout of this repo");
  await pickRow("layout of this repo").waitFor({ timeout: 10000 });
  await page.keyboard.press("Enter");
  await webview().locator("article.row.highlight", { hasText: "layout of this repo" }).waitFor({ timeout: 15000 });
  step("Ctrl+F found the text in the branch's entries and opened the one chosen");

  // A long session (1,000 lines, two compactions) opened at its end: the rows above load as the reader scrolls up, to
  // the first entry the compactions kept; the header says what is above it and shows it, from the first prompt.
  await runCommand("Pi Sessions: Open Transcript");
  await input.fill("alright, read @packages");
  await pickRow("alright, read @packages").click();
  await webview().getByText("earlier entries replaced by compactions", { exact: false }).waitFor({ timeout: 30000 });
  const scroller = webview().locator(".scroller");
  await scroller.hover();
  const top = () => scroller.evaluate((e) => e.scrollTop);
  for (let i = 0; (await top()) > 0; i++) {
    if (i > 60) throw new Error(`scrolling up stopped at ${await top()} px`);
    await page.mouse.wheel(0, -4000);
    await page.waitForTimeout(150);
  }
  await webview().locator("#show-replaced").click();
  await webview()
    .locator("article.row", { hasText: "alright, read @packages/coding-agent" })
    .first()
    .waitFor({ timeout: 15000 });
  step("opened at the end, scrolled up to the first kept entry, then shown from the first prompt");

  // Light theme.
  await runCommand("Toggle between Light/Dark Themes");
  await page.locator(".monaco-workbench.vs").waitFor({ timeout: 20000 });
  await page.waitForTimeout(800);
  await page.mouse.move(1400, 900);
  await page.screenshot({ path: `${shots}/42-transcript-compaction-light.png` });
  await page.locator(".tab", { hasText: "Stats helpers (sum" }).first().click();
  await webview().locator("article.row.assistant").first().waitFor({ timeout: 30000 });
  await page.waitForTimeout(500);
  await page.screenshot({ path: `${shots}/43-transcript-branch-light.png` });
  step("light theme screenshots");

  // A window reload: the transcripts come back (their serializer), on the branch the reader chose.
  await page.reload({ waitUntil: "domcontentloaded" });
  await page.locator(".monaco-workbench").waitFor({ timeout: 60000 });
  await page.locator(".tab", { hasText: "Stats helpers (sum" }).first().click({ timeout: 30000 });
  await webview().getByText("not the active branch", { exact: false }).waitFor({ timeout: 30000 });
  await page.locator('.activitybar [aria-label^="Pi Sessions"]').first().waitFor({ timeout: 30000 });
  if (
    !(await row("This Workspace")
      .isVisible()
      .catch(() => false))
  )
    await page.locator('.activitybar [aria-label^="Pi Sessions"]').first().click();
  step("transcripts restored after a window reload, on the chosen branch");

  // Hostile content: every field, with the replaced entries and tool output opened.
  const logStart = logs.length;
  await view.locator('[aria-label^="Collapse All"]').first().click();
  await row("All Projects").click();
  await row("hostile").first().click();
  // A row's label is cut near 40 characters: its start is what the row shows.
  await row(HOSTILE.name.slice(0, 30)).waitFor({ timeout: 15000 });
  await row(HOSTILE.name.slice(0, 30)).click({ button: "right" });
  const entry = page.locator(".context-view .action-item", { hasText: "Open Transcript" }).first();
  await entry.waitFor({ timeout: 10000 });
  await entry.hover();
  await page.keyboard.press("Enter");
  await webview().locator("article.row.compaction").first().waitFor({ timeout: 30000 });
  await webview().locator("article.row.compaction button", { hasText: "Show the replaced entries" }).first().click();
  await webview().locator("article.row.dimmed").first().waitFor({ timeout: 15000 });
  for (const d of await webview().locator("details").all()) await d.locator("summary").click();
  for (const text of [
    "<script>window.__pwned=2</script>",
    "<iframe src=",
    "</pre><script>alert(6)</script>",
    "<script>alert(11)</script>",
    "<svg><script>alert(9)</script></svg>",
  ])
    await webview().getByText(text, { exact: false }).first().waitFor({ timeout: 10000 });
  // (VS Code adds its own script to the page, so scripts are checked by what ran: window.__pwned below.)
  if (await webview().locator("#root a[href], #root iframe, #root img[src^='http'], #root script, #root svg").count())
    throw new Error("the transcript has a live link, frame, remote image, script or SVG");
  // Only http(s) links are links (opened by the host after asking); a command: or javascript: link stays literal text.
  await webview()
    .getByText("[open](command:workbench.action.closeWindow)", { exact: false })
    .first()
    .waitFor({ timeout: 10000 });
  if (await webview().locator(".inert-link").count()) throw new Error("a non-http link is clickable");
  await page.screenshot({ path: `${shots}/44-hostile-transcript.png` });
  await assertNothingRan(page, { logs, logStart, dialogs });
  if ((await page.locator(".monaco-workbench").count()) !== 1) throw new Error("the workbench is gone");
  step("hostile transcript: nothing ran, no dialog, no CSP violation, links inert, text shown literally");
} catch (e) {
  failed = true;
  console.error("UI TRANSCRIPT TEST FAILED:", e.message);
  await page.screenshot({ path: `${shots}/99-transcript-failure.png` }).catch(() => {});
  console.error(logs.slice(-30).join("\n"));
}
await finish(failed, "transcript ui test passed");
