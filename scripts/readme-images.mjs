// Turns the UI test's screenshots (test-results/ui, written by `npm run test:ui`) into the README's and the
// walkthrough's images (docs/images/*.webp). WebP at quality 72 keeps UI text crisp at a third of the PNG's size,
// which keeps the VSIX under its 2 MB budget; VS Code's details page and the marketplace both show WebP.
// Run after a UI change: `npm run test:ui && node scripts/readme-images.mjs`. The images are committed.
import { readFileSync, writeFileSync } from "node:fs";
import { launch } from "./vscode/browser.mjs";

/** UI test screenshot → image name. */
const IMAGES = {
  "01-branches-and-fork.png": "explorer-branches",
  "02-compaction.png": "explorer-compaction",
  "04-search.png": "search",
  "10-usage-dark.png": "panel-usage",
  "21-usage-light.png": "panel-usage-light",
  "11-session-usage-dark.png": "panel-session-usage",
  "12-checkpoint-dark.png": "panel-checkpoint",
  "15-checkpoint-azure.png": "panel-checkpoint-azure",
  "13-context-dark.png": "panel-context",
  "25-context-light.png": "panel-context-light",
  "20-lineage-light.png": "panel-lineage-light",
};

const { ctx } = await launch();
try {
  const page = await ctx.newPage();
  for (const [source, name] of Object.entries(IMAGES)) {
    const png = readFileSync(`test-results/ui/${source}`).toString("base64");
    const webp = await page.evaluate(async (data) => {
      const img = new Image();
      img.src = `data:image/png;base64,${data}`;
      await img.decode();
      const canvas = document.createElement("canvas");
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      canvas.getContext("2d").drawImage(img, 0, 0);
      return canvas.toDataURL("image/webp", 0.72).split(",")[1];
    }, png);
    const bytes = Buffer.from(webp, "base64");
    writeFileSync(`docs/images/${name}.webp`, bytes);
    const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
    console.log(`docs/images/${name}.webp: ${kb(bytes.length)} (PNG ${kb(png.length * 0.75)})`);
  }
} finally {
  await ctx.close();
}
