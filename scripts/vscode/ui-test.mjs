// UI test: drives the real VS Code workbench (code-server 4.100.3) in headless Debian Chromium with Playwright,
// clicks through the Pi Sessions view over the fixture store, and saves screenshots under test-results/ui/.
// Exit code 0 = every step passed. Needs `npm run build` first.
import { execFileSync } from "child_process";
import { mkdirSync, mkdtempSync, rmSync } from "fs";
import os from "os";
import path from "path";
import { fileURLToPath } from "url";
import { launch, workbenchUrl } from "./browser.mjs";
import { startCodeServer } from "./code-server.mjs";
import { ensureRuntime } from "./ensure-runtime.mjs";
import { buildFixtureHome, HOSTILE } from "./fixture-home.mjs";
import { assertNothingRan } from "./nothing-ran.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..");
const shots = path.resolve(process.env.SHOTS || path.join(root, "test-results", "ui"));
ensureRuntime();
mkdirSync(shots, { recursive: true });
const tmp = mkdtempSync(path.join(os.tmpdir(), "pi-sessions-ui-"));
const { home, workspace } = buildFixtureHome(path.join(tmp, "home"), { hostile: true, blackmagic: true });
process.env.EXT_HOST_HOME = home;
process.env.RUNTIME_TMP = tmp;

const t0 = Date.now();
const step = (m) => console.log(`[ui ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);
const cs = await startCodeServer({
  // Sessions shares its container with Agent History, so VS Code shows a view's title buttons on hover only; the
  // walk clicks them directly (and the screenshots show them).
  settings: {
    "workbench.colorTheme": "Default Dark Modern",
    "window.commandCenter": false,
    "workbench.view.alwaysShowHeaderActions": true,
  },
});
const { ctx } = await launch(tmp);
const page = ctx.pages()[0] ?? (await ctx.newPage());
const logs = [];
page.on("console", (m) => logs.push(`${m.type()}: ${m.text()}`));
page.on("pageerror", (e) => logs.push(`pageerror: ${e.message}`));
let failed = false;
try {
  await page.goto(workbenchUrl(cs.port, { folder: workspace, devPath: root }), { waitUntil: "domcontentloaded" });
  await page.locator(".monaco-workbench").waitFor({ timeout: 60000 });
  const tab = page.locator('.activitybar [aria-label^="Pi Sessions"]').first();
  await tab.waitFor({ timeout: 60000 });
  step("workbench up, Pi Sessions in the activity bar");
  await tab.click();
  const sidebar = page.locator(".part.sidebar");
  await sidebar.waitFor({ timeout: 30000 });
  // Widen the side bar so that labels and descriptions are readable in the screenshots.
  const box = await sidebar.boundingBox();
  if (box) {
    await page.mouse.move(box.x + box.width + 1, box.y + 300);
    await page.mouse.down();
    await page.mouse.move(760, box.y + 300, { steps: 8 });
    await page.mouse.up();
  }
  const view = sidebar;
  const row = (text) => view.locator(".monaco-list-row", { hasText: text }).first();
  // A click on an entry row opens its transcript (scripts/vscode/ui-transcript.mjs); its twistie expands it.
  const expand = (text) => row(text).locator(".monaco-tl-twistie").click();
  await row("This Workspace").waitFor({ timeout: 30000 });
  await row("All Projects").waitFor({ timeout: 30000 });
  step("groups shown");

  // A session with a branch point: turns, the active branch first and expanded, the abandoned one after it.
  await row("Stats helpers (sum/avg/median)").click();
  await row("Branch 1/2: Actually").waitFor({ timeout: 15000 });
  await row("Branch 2/2: Also add").waitFor({ timeout: 15000 });
  await expand("Write a sum(xs: number[]) helper.");
  await row("Fork: ").waitFor({ timeout: 15000 });
  await row("● leaf inside").waitFor({ timeout: 15000 });
  step("branch point, active branch, fork node and leaf marker shown");
  await page.mouse.move(700, 600);
  await page.screenshot({ path: `${shots}/01-branches-and-fork.png` });

  // A compacted session: compaction nodes expand to the summary and the kept range.
  await row("Stats helpers (sum/avg/median)").click(); // collapse
  const compacted = row("Explain the layout of this repo.");
  await compacted.waitFor({ timeout: 15000 });
  await compacted.click();
  const compaction = row("Compaction · 4k tokens before · kept from");
  await compaction.waitFor({ timeout: 15000 });
  await expand("Compaction · 4k tokens before · kept from");
  await row("Summary: ").waitFor({ timeout: 15000 });
  await row("Kept: from").waitFor({ timeout: 15000 });
  step("compaction node expanded");
  await page.mouse.move(700, 600);
  await page.screenshot({ path: `${shots}/02-compaction.png` });

  // Fork families: the OMP subagent is found by name and revealed inside its family (under "Subagents (1)" of
  // "Stats helpers"); the family's "Forks (3)" lists the forks by what they did.
  await row("Explain the layout of this repo.").click(); // collapse
  const input = page.locator(".quick-input-widget .quick-input-box input");
  /** Run the command titled `title` from the palette. */
  const runCommand = async (title) => {
    await page.keyboard.press("F1");
    await input.waitFor({ timeout: 10000 });
    await input.fill(`>${title}`);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor({ timeout: 10000 });
    await page.keyboard.press("Enter");
  };
  /** Find Session by Name from the palette, typed `text`: the quick pick shows it (`beforePick` runs then). */
  const findByName = async (text, beforePick = async () => {}) => {
    await runCommand("Pi Sessions: Find Session by Name");
    await page
      .locator(".quick-input-widget", { hasText: "Pi Sessions: Find Session by Name" })
      .waitFor({ timeout: 10000 });
    await input.fill(text);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: text }).first().waitFor({ timeout: 10000 });
    await beforePick();
    await page.keyboard.press("Enter");
    await view.locator(".monaco-list-row.selected", { hasText: text }).first().waitFor({ timeout: 15000 });
  };
  await findByName("Find all exported functions");
  await row("Subagents (1)").waitFor({ timeout: 15000 });
  await expand("Forks (3)");
  await row("after “Add a sum() helper.”").waitFor({ timeout: 15000 });
  step("a subagent revealed inside its family; Forks (3) lists the forks by what they did");
  await page.mouse.move(700, 600);
  await page.screenshot({ path: `${shots}/06-fork-families.png` });

  // Filter from the view's title bar.
  await view.locator('[aria-label^="Set Entry Filter"]').first().click();
  await input.waitFor({ timeout: 10000 });
  await input.fill("user-only");
  await page.keyboard.press("Enter");
  await view.getByText("Filter: user-only.").first().waitFor({ timeout: 10000 });
  if (await row("Compaction · 4k tokens").count()) throw new Error("the user-only filter still shows a compaction row");
  step("filter set from the title bar");
  await page.screenshot({ path: `${shots}/03-filter-user-only.png` });

  // Search from the command palette: pick a session by its title; it is revealed and selected.
  await findByName("mathkit overview", () => page.screenshot({ path: `${shots}/04-search.png` }));
  step("search revealed the session");
  await page.screenshot({ path: `${shots}/05-search-revealed.png` });

  // ---- Panels --------------------------------------------------------------------------------
  /** The content frame of the webview panel whose tab is active. */
  const webview = () => page.frameLocator("iframe.webview.ready:visible").last().frameLocator("#active-frame");
  await runCommand("Pi Sessions: Set Entry Filter");
  await input.fill("default");
  await page.keyboard.press("Enter");

  // Usage & Cost: the numbers shown equal `pi-sessions usage --json` on the same store and scope.
  await runCommand("Pi Sessions: Show Usage & Cost");
  const totalCost = webview().locator("#total-cost");
  await totalCost.waitFor({ timeout: 30000 });
  const cliArgs = [
    "--agent-dir",
    path.join(home, ".pi", "agent"),
    "--agent-dir",
    path.join(home, ".omp", "agent"),
    "--workspace",
    workspace,
    "--json",
    "--no-cache",
  ];
  const cli = (by) =>
    JSON.parse(
      execFileSync(process.execPath, [path.join(root, "dist", "cli.js"), "usage", "--by", by, ...cliArgs], {
        encoding: "utf8",
      }),
    );
  const byModel = cli("model");
  const money = (usd) => (usd === 0 ? "$0.00" : Math.abs(usd) < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`);
  const expectText = async (locator, expected, what) => {
    const got = (await locator.textContent())?.trim();
    if (got !== expected) throw new Error(`${what}: the dashboard shows ${got}, pi-sessions usage says ${expected}`);
  };
  await expectText(totalCost, money(byModel.total.cost), "total cost");
  await expectText(webview().locator("#total-messages"), String(byModel.total.messages), "messages");
  await expectText(webview().locator("#inherited-cost"), money(byModel.total.inheritedCost), "inherited cost");
  for (const row of byModel.rows) {
    await webview()
      .locator("table", { hasText: "Cost by model" })
      .locator("tr", { hasText: row.key })
      .locator("td", { hasText: money(row.cost) })
      .first()
      .waitFor({ timeout: 5000 });
  }
  step(`dashboard equals pi-sessions usage (${money(byModel.total.cost)}, ${byModel.rows.length} models)`);
  await page.mouse.move(1200, 850);
  await page.screenshot({ path: `${shots}/10-usage-dark.png` });
  // The page's own controls: all projects (a message from the webview, answered with a new model).
  const allArgs = cliArgs.filter((a, i) => a !== "--workspace" && cliArgs[i - 1] !== "--workspace");
  const everything = JSON.parse(
    execFileSync(process.execPath, [path.join(root, "dist", "cli.js"), "usage", "--by", "model", ...allArgs], {
      encoding: "utf8",
    }),
  );
  await webview().locator("#scope").selectOption("all");
  await webview().locator("#apply").click();
  await webview()
    .locator("#total-cost", { hasText: money(everything.total.cost) })
    .waitFor({ timeout: 15000 });
  step(`all projects: ${money(everything.total.cost)}, as pi-sessions usage says`);
  await webview().locator("#scope").selectOption("workspace");
  await webview().locator("#apply").click();
  await webview()
    .locator("#total-cost", { hasText: money(byModel.total.cost) })
    .waitFor({ timeout: 15000 });

  // From the palette, with a quick pick of sessions.
  await runCommand("Pi Sessions: Show Session Usage");
  await input.fill("mathkit overview");
  await page
    .locator(".quick-input-list .monaco-list-row", { hasText: "mathkit overview" })
    .first()
    .waitFor({ timeout: 10000 });
  await page.keyboard.press("Enter");
  await page.locator(".tab", { hasText: "Usage: mathkit overview" }).waitFor({ timeout: 15000 });
  await webview().locator("h1", { hasText: "mathkit overview" }).waitFor({ timeout: 30000 });
  step("session usage opened from the palette");

  // Session usage, checkpoint inspector, effective context and lineage, from the tree's context menus.
  const contextMenu = async (rowText, item) => {
    await page.mouse.move(1200, 850); // no hover tooltip over the rows
    await page.keyboard.press("Escape");
    await row(rowText).scrollIntoViewIfNeeded();
    await row(rowText).click({ button: "right" });
    const entry = page.locator(".context-view .action-item", { hasText: item }).first();
    await entry.waitFor({ timeout: 10000 });
    await entry.hover();
    await page.keyboard.press("Enter");
  };
  // Start from a collapsed tree so that every row used below is on screen.
  await page.mouse.move(1200, 850);
  await view.locator('[aria-label^="Collapse All"]').first().click();
  await row("This Workspace").click();
  await row("Explain the layout of this repo.").first().waitFor({ timeout: 15000 });
  await contextMenu("Explain the layout of this repo.", "Show Session Usage");
  await webview().locator("h2", { hasText: "Context size over time" }).waitFor({ timeout: 30000 });
  step("session usage panel");
  await page.mouse.move(1200, 850);
  await page.screenshot({ path: `${shots}/11-session-usage-dark.png` });

  await row("Explain the layout of this repo.").first().click();
  await row("Compaction · 4k tokens before").waitFor({ timeout: 15000 });
  await contextMenu("Compaction · 4k tokens before", "Inspect Checkpoint");
  await webview().locator("#summary h2", { hasText: "Goal" }).waitFor({ timeout: 30000 });
  step("checkpoint inspector renders the summary as Markdown");
  await page.mouse.move(1200, 850);
  await page.screenshot({ path: `${shots}/12-checkpoint-dark.png` });

  // Checkpoints written by Blackmagic itself: Azure, Codex and a local fallback, from the palette.
  for (const [prompt, entryId, line, method, shot] of [
    ["loans/march.csv", "60525392", 14, "server · Azure", "15-checkpoint-azure"],
    ["meter/panels.csv", "a56f20a7", 10, "server · Codex", "16-checkpoint-codex"],
    ["scan surveys/spring.csv", "f619206d", 10, "local fallback (remote_error)", "17-checkpoint-fallback"],
  ]) {
    await runCommand("Pi Sessions: Inspect Checkpoint");
    await input.fill(prompt);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: prompt }).first().waitFor({ timeout: 10000 });
    await page.keyboard.press("Enter");
    await page
      // Named by its figures, time and line (the line of the compaction in the fixture file), not its id.
      .locator(".quick-input-list .monaco-list-row", { hasText: `line ${line}` })
      .first()
      .waitFor({ timeout: 10000 });
    await page.keyboard.press("Enter");
    // Titled by its session, the entry's id in the heading's tooltip.
    await webview().locator(`h1[title="Entry ${entryId}"]`, { hasText: "Compaction in “" }).waitFor({ timeout: 30000 });
    await webview().locator("#status", { hasText: method }).waitFor({ timeout: 10000 });
    // The screenshot shows the server checkpoint's facts: surface, deployment, items by type, usage, integrity.
    await webview()
      .locator("h2", { hasText: "Server checkpoint" })
      .evaluate((e) => e.scrollIntoView());
    step(`checkpoint inspector: ${method}`);
    await page.mouse.move(1200, 850);
    await page.screenshot({ path: `${shots}/${shot}.png` });
  }

  await contextMenu("What's left to do?", "Show Effective Context");
  await webview().locator("td", { hasText: "compaction summary" }).first().waitFor({ timeout: 30000 });
  step("effective context panel");
  await page.mouse.move(1200, 850);
  await page.screenshot({ path: `${shots}/13-context-dark.png` });

  await row("Stats helpers (sum/avg/median)").first().waitFor({ timeout: 15000 });
  await contextMenu("Stats helpers (sum/avg/median)", "Show Fork Lineage");
  const node = webview().locator("g.node.focus");
  await node.waitFor({ timeout: 30000 });
  step("lineage graph drawn");
  await page.mouse.move(1200, 850);
  await page.screenshot({ path: `${shots}/14-lineage-dark.png` });
  // Clicking a node reveals that session in the tree.
  await webview().locator('g.node:not(.focus)[role="button"]').first().click();
  await view.locator(".monaco-list-row.selected").first().waitFor({ timeout: 15000 });
  step("a click on a lineage node revealed its session in the tree");

  // Light theme: the panels follow the theme's colours.
  await runCommand("Toggle between Light/Dark Themes");
  await page.locator(".monaco-workbench.vs").waitFor({ timeout: 20000 });
  await page.waitForTimeout(800);
  await page.screenshot({ path: `${shots}/20-lineage-light.png` });
  await page.locator(".tab", { hasText: "Usage & Cost" }).first().click();
  await totalCost.waitFor({ timeout: 20000 });
  await page.waitForTimeout(500);
  await page.screenshot({ path: `${shots}/21-usage-light.png` });
  await page.locator(".tab", { hasText: "Checkpoint" }).first().click();
  await webview().locator("#summary").waitFor({ timeout: 20000 });
  await page.screenshot({ path: `${shots}/22-checkpoint-light.png` });
  await page.locator(".tab", { hasText: "Usage: Explain the layout" }).first().click();
  await webview().locator("h2", { hasText: "Context size over time" }).waitFor({ timeout: 20000 });
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${shots}/24-session-usage-light.png` });
  await page.locator(".tab", { hasText: "Context:" }).first().click();
  await webview().locator("td", { hasText: "compaction summary" }).first().waitFor({ timeout: 20000 });
  await page.screenshot({ path: `${shots}/25-context-light.png` });
  step("light theme screenshots");

  // A window reload: every panel comes back (WebviewPanelSerializer) and renders again.
  await page.reload({ waitUntil: "domcontentloaded" });
  await page.locator(".monaco-workbench").waitFor({ timeout: 60000 });
  for (const title of ["Usage & Cost", "Checkpoint", "Context:", "Lineage:", "Usage: "]) {
    await page.locator(".tab", { hasText: title }).first().waitFor({ timeout: 30000 });
  }
  await page.locator(".tab", { hasText: "Usage & Cost" }).first().click();
  await totalCost.waitFor({ timeout: 30000 });
  await expectText(totalCost, money(byModel.total.cost), "total cost after a reload");
  step("panels restored after a window reload");
  await page.screenshot({ path: `${shots}/23-after-reload-light.png` });

  // ---- Hostile content: HTML, script, Markdown and command: links, SVG with script, in every field ------------------
  const dialogs = [];
  page.on("dialog", async (d) => {
    dialogs.push(d.message());
    await d.dismiss().catch(() => {});
  });
  const logStart = logs.length;
  await page.locator('.activitybar [aria-label^="Pi Sessions"]').first().click();
  if (
    !(await row("All Projects")
      .isVisible()
      .catch(() => false))
  ) {
    await page.waitForTimeout(300);
    if (
      !(await row("All Projects")
        .isVisible()
        .catch(() => false))
    )
      await page.locator('.activitybar [aria-label^="Pi Sessions"]').first().click();
  }
  await row("All Projects").waitFor({ timeout: 15000 });
  await page.mouse.move(1200, 850);
  await view.locator('[aria-label^="Collapse All"]').first().click();
  await row("All Projects").click();
  // A row's label is cut near 40 characters (the tooltip and the panels show the whole name).
  const hostileRow = HOSTILE.name.slice(0, 30);
  await row("hostile").first().click();
  await row(hostileRow).waitFor({ timeout: 15000 });
  await row(hostileRow).click();
  await row("<script>window.__pwned=2</script>").first().waitFor({ timeout: 15000 });
  await row(HOSTILE.label).first().waitFor({ timeout: 15000 });
  await row(hostileRow).hover();
  await page.waitForTimeout(1200);
  await page.screenshot({ path: `${shots}/30-hostile-tree-tooltip.png` });
  step("hostile names, prompts and labels show literally in the tree and its tooltip");
  await contextMenu(hostileRow, "Show Effective Context");
  await webview().getByText("<script>window.__pwned=2</script>", { exact: false }).first().waitFor({ timeout: 30000 });
  await webview()
    .getByText("<svg><script>alert(9)</script></svg>", { exact: false })
    .first()
    .waitFor({ timeout: 30000 });
  await page.screenshot({ path: `${shots}/31-hostile-context.png` });
  await contextMenu("Compaction · 5k tokens before", "Inspect Checkpoint");
  await webview()
    .locator("#summary")
    .getByText("<script>window.__pwned=8</script>", { exact: false })
    .waitFor({ timeout: 30000 });
  // A command: link is no link: it shows as its literal text, and nothing in the summary can be clicked to run it.
  await webview()
    .locator("#summary")
    .getByText("[run](command:workbench.action.quit)", { exact: false })
    .waitFor({ timeout: 10000 });
  if (await webview().locator("#summary a[href]").count()) throw new Error("the summary has a live link");
  if (await webview().getByText("nullnull").count()) throw new Error("absent sections are rendered as text");
  await page.screenshot({ path: `${shots}/32-hostile-checkpoint.png` });
  await contextMenu(hostileRow, "Show Session Usage");
  await webview().locator("h1", { hasText: HOSTILE.name }).waitFor({ timeout: 30000 });
  await contextMenu(hostileRow, "Show Fork Lineage");
  await webview().locator("g.node text", { hasText: "<img src=x" }).first().waitFor({ timeout: 30000 });
  await page.waitForTimeout(500);
  await page.locator(".monaco-workbench").waitFor({ timeout: 5000 });
  await assertNothingRan(page, { logs, logStart, dialogs });
  step("hostile content: no script ran, no dialog, no CSP violation, command links inert, text shown literally");
} catch (e) {
  failed = true;
  console.error("UI TEST FAILED:", e.message);
  await page.screenshot({ path: `${shots}/99-failure.png` }).catch(() => {});
  console.error(logs.slice(-30).join("\n"));
} finally {
  await ctx.close().catch(() => {});
  await cs.stop();
  rmSync(tmp, { recursive: true, force: true });
}
step(failed ? "FAILED" : `ui test passed; screenshots in ${path.relative(root, shots)}`);
process.exit(failed ? 1 : 0);
