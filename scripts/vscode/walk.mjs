// What the UI walks share (ui-transcript.mjs, ui-search.mjs): a fixture home in a temp dir, code-server and headless
// Chromium on it, the page's console lines and dialogs collected (for assertNothingRan), the workbench opened on the
// Pi Sessions view, and everything stopped and removed at the end.
import { mkdirSync, mkdtempSync, rmSync } from "fs";
import os from "os";
import path from "path";
import { fileURLToPath } from "url";
import { launch, workbenchUrl } from "./browser.mjs";
import { startCodeServer } from "./code-server.mjs";
import { ensureRuntime } from "./ensure-runtime.mjs";
import { buildFixtureHome } from "./fixture-home.mjs";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Start a walk named `name` (its log prefix and temp dir) over the fixture home with the hostile session. */
export async function startWalk(name) {
  const shots = path.resolve(process.env.SHOTS || path.join(root, "test-results", "ui"));
  ensureRuntime();
  mkdirSync(shots, { recursive: true });
  const tmp = mkdtempSync(path.join(os.tmpdir(), `pi-sessions-${name}-`));
  const { workspace } = buildFixtureHome(path.join(tmp, "home"), { hostile: true });
  process.env.EXT_HOST_HOME = path.join(tmp, "home");
  process.env.RUNTIME_TMP = tmp;
  const t0 = Date.now();
  const step = (m) => console.log(`[${name} ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);
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
  const dialogs = [];
  page.on("dialog", async (d) => {
    dialogs.push(d.message());
    await d.dismiss().catch(() => {});
  });

  /** The workbench on the fixture workspace, the Pi Sessions view open with its groups: the view's side bar. */
  const openSessionsView = async () => {
    await page.setViewportSize({ width: 1500, height: 950 });
    await page.goto(workbenchUrl(cs.port, { folder: workspace, devPath: root }), { waitUntil: "domcontentloaded" });
    await page.locator(".monaco-workbench").waitFor({ timeout: 60000 });
    const tab = page.locator('.activitybar [aria-label^="Pi Sessions"]').first();
    await tab.waitFor({ timeout: 60000 });
    await tab.click();
    const view = page.locator(".part.sidebar");
    await view.locator(".monaco-list-row", { hasText: "This Workspace" }).first().waitFor({ timeout: 30000 });
    step("workbench up");
    return view;
  };

  /** Stop everything, say how it went, and exit with its code. */
  const finish = async (failed, passed) => {
    await ctx.close().catch(() => {});
    await cs.stop();
    rmSync(tmp, { recursive: true, force: true });
    step(failed ? "FAILED" : `${passed}; screenshots in ${path.relative(root, shots)}`);
    process.exit(failed ? 1 : 0);
  };

  return { shots, page, logs, dialogs, step, openSessionsView, finish };
}
