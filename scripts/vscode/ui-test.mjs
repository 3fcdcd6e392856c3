// UI test: drives the real VS Code workbench (code-server 4.100.3) in headless Debian Chromium with Playwright,
// clicks through the Pi Sessions view over the fixture store, and saves screenshots under test-results/ui/.
// Exit code 0 = every step passed. Needs `npm run build` first.
import { mkdirSync, mkdtempSync, rmSync } from 'fs';
import os from 'os';
import path from 'path';
import { fileURLToPath } from 'url';
import { launch, workbenchUrl } from './browser.mjs';
import { startCodeServer } from './code-server.mjs';
import { ensureRuntime } from './ensure-runtime.mjs';
import { buildFixtureHome } from './fixture-home.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const shots = path.resolve(process.env.SHOTS || path.join(root, 'test-results', 'ui'));
ensureRuntime();
mkdirSync(shots, { recursive: true });
const tmp = mkdtempSync(path.join(os.tmpdir(), 'pi-sessions-ui-'));
const { home, workspace } = buildFixtureHome(path.join(tmp, 'home'));
process.env.EXT_HOST_HOME = home;
process.env.RUNTIME_TMP = tmp;

const t0 = Date.now();
const step = (m) => console.log(`[ui ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);
const cs = await startCodeServer({ settings: { 'workbench.colorTheme': 'Default Dark Modern', 'window.commandCenter': false } });
const { ctx } = await launch(tmp);
const page = ctx.pages()[0] ?? (await ctx.newPage());
const logs = [];
page.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
let failed = false;
try {
  await page.goto(workbenchUrl(cs.port, { folder: workspace, devPath: root }), { waitUntil: 'domcontentloaded' });
  await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
  const tab = page.locator('.activitybar [aria-label^="Pi Sessions"]').first();
  await tab.waitFor({ timeout: 60000 });
  step('workbench up, Pi Sessions in the activity bar');
  await tab.click();
  const sidebar = page.locator('.part.sidebar');
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
  const row = (text) => view.locator('.monaco-list-row', { hasText: text }).first();
  await row('This Workspace').waitFor({ timeout: 30000 });
  await row('All Projects').waitFor({ timeout: 30000 });
  step('groups shown');

  // A session with a branch point: turns, the active branch first and expanded, the abandoned one after it.
  await row('Stats helpers (sum/avg/median)').click();
  await row('Active branch 1/2').waitFor({ timeout: 15000 });
  await row('Branch 2/2: Also add').waitFor({ timeout: 15000 });
  await row('Write a `sum(xs: number[])` helper.').click();
  await row('Fork: ').waitFor({ timeout: 15000 });
  await row('● leaf inside').waitFor({ timeout: 15000 });
  step('branch point, active branch, fork node and leaf marker shown');
  await page.mouse.move(700, 600);
  await page.screenshot({ path: `${shots}/01-branches-and-fork.png` });

  // A compacted session: compaction nodes expand to the summary and the kept range.
  await row('Stats helpers (sum/avg/median)').click(); // collapse
  const compacted = row('Explain the layout of this repo.');
  await compacted.waitFor({ timeout: 15000 });
  await compacted.click();
  const compaction = row('Compaction · 4k tokens summarized · kept from');
  await compaction.waitFor({ timeout: 15000 });
  await compaction.click();
  await row('Summary: ').waitFor({ timeout: 15000 });
  await row('Kept: from').waitFor({ timeout: 15000 });
  step('compaction node expanded');
  await page.mouse.move(700, 600);
  await page.screenshot({ path: `${shots}/02-compaction.png` });

  // Filter from the view's title bar.
  await view.locator('[aria-label^="Set Entry Filter"]').first().click();
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ timeout: 10000 });
  await input.fill('user-only');
  await page.keyboard.press('Enter');
  await view.getByText('Filter: user-only.').first().waitFor({ timeout: 10000 });
  if (await row('Compaction · 4k tokens').count()) throw new Error('the user-only filter still shows a compaction row');
  step('filter set from the title bar');
  await page.screenshot({ path: `${shots}/03-filter-user-only.png` });

  // Search from the command palette: pick a session by its title; it is revealed and selected.
  await page.keyboard.press('F1');
  await input.waitFor({ timeout: 10000 });
  await input.fill('>Pi Sessions: Search Sessions');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Pi Sessions: Search Sessions' }).first().waitFor({ timeout: 10000 });
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget', { hasText: 'Pi Sessions: search' }).waitFor({ timeout: 10000 });
  await input.fill('mathkit overview');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'mathkit overview' }).first().waitFor({ timeout: 10000 });
  await page.screenshot({ path: `${shots}/04-search.png` });
  await page.keyboard.press('Enter');
  await view.locator('.monaco-list-row.selected', { hasText: 'mathkit overview' }).first().waitFor({ timeout: 15000 });
  step('search revealed the session');
  await page.screenshot({ path: `${shots}/05-search-revealed.png` });
} catch (e) {
  failed = true;
  console.error('UI TEST FAILED:', e.message);
  await page.screenshot({ path: `${shots}/99-failure.png` }).catch(() => {});
  console.error(logs.slice(-30).join('\n'));
} finally {
  await ctx.close().catch(() => {});
  await cs.stop();
  rmSync(tmp, { recursive: true, force: true });
}
step(failed ? 'FAILED' : `ui test passed; screenshots in ${path.relative(root, shots)}`);
process.exit(failed ? 1 : 0);
