// Bundles the CLI, the extension and the in-host integration tests with esbuild.
// `node scripts/build.mjs [--production]`
import { chmodSync, readdirSync, readFileSync } from "node:fs";
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");
const { version } = JSON.parse(readFileSync("package.json", "utf8"));
const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  sourcemap: !production,
  minify: production,
  logLevel: "warning",
  define: { __PI_SESSIONS_VERSION__: JSON.stringify(version) },
};

await Promise.all([
  esbuild.build({
    ...common,
    entryPoints: ["src/cli/bin.ts"],
    outfile: "dist/cli.js",
    format: "esm",
    banner: { js: "#!/usr/bin/env node" },
  }),
  // The package is ESM ("type": "module"); VS Code require()s the extension, so it is CommonJS with a .cjs name.
  esbuild.build({
    ...common,
    entryPoints: ["src/extension/extension.ts"],
    outfile: "dist/extension.cjs",
    format: "cjs",
    external: ["vscode"],
  }),
  // Webview bundles: one per panel, for the browser.
  esbuild.build({
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "es2022",
    minify: production,
    sourcemap: !production,
    logLevel: "warning",
    logOverride: { "import-is-undefined": "error" },
    entryPoints: ["usage", "sessionUsage", "checkpoint", "lineage", "context"].map((n) => ({
      in: `src/webview/${n}.ts`,
      out: n,
    })),
    outdir: "dist/webview",
  }),
  esbuild.build({
    ...common,
    sourcemap: true,
    minify: false,
    entryPoints: [
      "test/integration/index.ts",
      ...readdirSync("test/integration")
        .filter((f) => f.endsWith(".test.ts"))
        .map((f) => `test/integration/${f}`),
    ],
    outdir: "dist/test/integration",
    outExtension: { ".js": ".cjs" },
    format: "cjs",
    external: ["vscode", "mocha"],
  }),
]);
chmodSync("dist/cli.js", 0o755);
