// `npm run package`: builds pi-session-explorer-<version>.vsix at the repository root with @vscode/vsce
// (whose `vscode:prepublish` runs the production build).
//
// The details page of an installed extension renders README.md in a webview whose CSP allows images only from
// `https:` and `data:`, and resolves relative paths against the webview itself, so the repository's relative image
// links show as broken images there. The packaged README is therefore a copy with every image inlined as a `data:`
// URI (it works offline, with no host to trust) and every other relative link made absolute on the repository.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const repo = pkg.repository.url.replace(/^git\+/, "").replace(/\.git$/, "");
const MIME = { ".webp": "image/webp", ".png": "image/png", ".jpg": "image/jpeg", ".gif": "image/gif" };

export function packagedReadme(markdown) {
  return markdown
    .replace(/(!\[[^\]]*\]\()([^)\s]+)\)/g, (whole, head, target) => {
      if (/^[a-z]+:/i.test(target)) return whole;
      const mime = MIME[path.extname(target).toLowerCase()];
      if (!mime) throw new Error(`README image ${target}: not an image type the details page shows`);
      // The smaller copy made for the package (scripts/readme-images.mjs), when there is one.
      const packaged = path.join(path.dirname(target), "packaged", path.basename(target));
      const file = existsSync(packaged) ? packaged : target;
      return `${head}data:${mime};base64,${readFileSync(file).toString("base64")})`;
    })
    .replace(/(\]\()([^)\s#][^)\s]*)\)/g, (whole, head, target) =>
      /^[a-z]+:/i.test(target) ? whole : `${head}${repo}/blob/main/${target})`,
    );
}

const readme = "dist/README.md";
mkdirSync("dist", { recursive: true });
writeFileSync(readme, packagedReadme(readFileSync("README.md", "utf8")));
const out = `${pkg.name}-${pkg.version}.vsix`;
const vsce = spawnSync(
  path.join("node_modules", ".bin", "vsce"),
  ["package", "--no-dependencies", "--no-rewrite-relative-links", "--readme-path", readme, "--out", out],
  { stdio: "inherit" },
);
if (vsce.status !== 0) process.exit(vsce.status ?? 1);
const main = statSync("dist/extension.cjs").size;
console.log(`${out}: ${(statSync(out).size / 1024).toFixed(0)} KB; main bundle ${(main / 1024).toFixed(0)} KB`);
