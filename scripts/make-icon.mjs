// Renders the marketplace icon (media/icon.png, 256×256) from the activity-bar glyph media/pi-sessions.svg:
// the glyph in white on a rounded indigo tile. Uses the Chromium the UI tests use; the PNG is committed, so this
// runs only when the glyph changes: `node scripts/make-icon.mjs`.
import { readFileSync, writeFileSync } from "node:fs";
import { launch } from "./vscode/browser.mjs";

const SIZE = 256;
const glyph = readFileSync("media/pi-sessions.svg", "utf8")
  .replace(/width="24" height="24"/, `x="40" y="34" width="176" height="176"`)
  .replace(/stroke="currentColor"/, `stroke="#ffffff"`)
  .replace(/stroke-width="[\d.]+"/, `stroke-width="2"`);
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
    <stop offset="0" stop-color="#4f46e5"/><stop offset="1" stop-color="#7c3aed"/></linearGradient></defs>
  <rect width="${SIZE}" height="${SIZE}" rx="48" fill="url(#g)"/>
  ${glyph}
</svg>`;

const { ctx } = await launch();
try {
  const page = await ctx.newPage();
  await page.setViewportSize({ width: SIZE, height: SIZE });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  const png = await page.locator("svg").first().screenshot({ omitBackground: true });
  writeFileSync("media/icon.png", png);
  console.log(`media/icon.png: ${png.length} bytes`);
} finally {
  await ctx.close();
}
