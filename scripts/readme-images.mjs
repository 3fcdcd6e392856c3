// Turns the UI test's screenshots (test-results/ui, written by `npm run test:ui`) into the README's and the
// walkthrough's images (docs/images/*.webp). WebP at quality 72 keeps UI text crisp at a third of the PNG's size,
// which keeps the VSIX under its 2 MB budget; VS Code's details page and the marketplace both show WebP.
// Run after a UI change: `npm run test:ui && node scripts/readme-images.mjs [name…]` (names: only those images).
// The images are committed.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { launch } from "./vscode/browser.mjs";

/** UI test screenshot → image name. */
const IMAGES = {
  "01-branches-and-fork.png": "explorer-branches",
  "02-compaction.png": "explorer-compaction",
  "04-search.png": "search",
  "06-fork-families.png": "fork-families",
  "50-search-content-dark.png": "search-content",
  "51-search-results-dark.png": "search-results",
  "10-usage-dark.png": "panel-usage",
  "21-usage-light.png": "panel-usage-light",
  "11-session-usage-dark.png": "panel-session-usage",
  "12-checkpoint-dark.png": "panel-checkpoint",
  "15-checkpoint-azure.png": "panel-checkpoint-azure",
  "13-context-dark.png": "panel-context",
  "25-context-light.png": "panel-context-light",
  "20-lineage-light.png": "panel-lineage-light",
  "40-transcript-branch-dark.png": "transcript-branch",
  "43-transcript-branch-light.png": "transcript-branch-light",
  "41-transcript-compaction-dark.png": "transcript-compaction",
  "60-codelens-history-dark.png": "file-history",
  "63-compare-dark.png": "compare-branches",
};
// `--packaged`: only the packaged copies (after a change of their size, without touching the repository's images).
const packagedOnly = process.argv.includes("--packaged");
const only = process.argv.slice(2).filter((a) => a !== "--packaged");

mkdirSync("docs/images/packaged", { recursive: true });
const { ctx } = await launch();
try {
  const page = await ctx.newPage();
  for (const [source, name] of Object.entries(IMAGES)) {
    if (only.length && !only.includes(name)) continue;
    const png = readFileSync(`test-results/ui/${source}`).toString("base64");
    const encode = (width, quality) =>
      page.evaluate(
        async ({ data, width, quality }) => {
          const img = new Image();
          img.src = `data:image/png;base64,${data}`;
          await img.decode();
          const scale = Math.min(1, width / img.naturalWidth);
          const canvas = document.createElement("canvas");
          canvas.width = Math.round(img.naturalWidth * scale);
          canvas.height = Math.round(img.naturalHeight * scale);
          const g = canvas.getContext("2d");
          g.imageSmoothingQuality = "high";
          g.drawImage(img, 0, 0, canvas.width, canvas.height);
          return canvas.toDataURL("image/webp", quality).split(",")[1];
        },
        { data: png, width, quality },
      );
    const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
    // Full size for the repository's README; a smaller copy that the packaged README inlines (the details page
    // shows images at about 600 px), which keeps the VSIX in its budget.
    for (const [path, width, quality] of [
      ...(packagedOnly ? [] : [[`docs/images/${name}.webp`, 4000, 0.72]]),
      [`docs/images/packaged/${name}.webp`, 1000, 0.66],
    ]) {
      const bytes = Buffer.from(await encode(width, quality), "base64");
      writeFileSync(path, bytes);
      console.log(`${path}: ${kb(bytes.length)} (PNG ${kb(png.length * 0.75)})`);
    }
  }
} finally {
  await ctx.close();
}
