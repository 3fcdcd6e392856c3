// Bundles the CLI, the extension and the in-host integration tests with esbuild.
// `node scripts/build.mjs [--production] [--analyze]`
// --production: minified, no source maps (stale ones removed), no test bundles: what the VSIX and npm tarball ship.
// --analyze: prints the main bundle's largest inputs by package (from esbuild's metafile).
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");
const analyze = process.argv.includes("--analyze");
if (production) {
  for (const dir of ["dist", "dist/webview"].filter((d) => existsSync(d)))
    for (const f of readdirSync(dir, { withFileTypes: true }).filter((e) => e.name.endsWith(".map")))
      rmSync(`${dir}/${f.name}`);
}
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

/**
 * The exporters (src/core/export, with markdown-it and highlight.js) stay out of the CLI and the extension: their
 * one import (node/views/exportBranch.ts) loads dist/exportRender.cjs, built below, on the first export.
 */
const exportRenderApart = {
  name: "export-render-apart",
  setup(build) {
    build.onResolve({ filter: /core\/export\/index\.js$/ }, () => ({ path: "./exportRender.cjs", external: true }));
  },
};

/**
 * The MCP server (src/cli/mcpEntry.ts, with the MCP SDK) stays out of cli.js: `pi-sessions mcp` loads
 * dist/mcpServer.cjs, built below, and VS Code runs that file as the stdio server it offers.
 */
const mcpServerApart = {
  name: "mcp-server-apart",
  setup(build) {
    build.onResolve({ filter: /(^|\/)mcpEntry\.js$/ }, () => ({ path: "./mcpServer.cjs", external: true }));
  },
};

/**
 * The team database (src/node/team, with the `pg` client) stays out of cli.js and the extension: its one loader
 * (node/team/load.ts) loads dist/team.cjs, built below, when a command or the Team scope uses it.
 */
const teamApart = {
  name: "team-apart",
  setup(build) {
    build.onResolve({ filter: /^\.\/index\.js$/ }, (args) =>
      /node[\\/]team[\\/]load\.ts$/.test(args.importer) ? { path: "./team.cjs", external: true } : undefined,
    );
  },
};

// The webview bundles and their shared chunks are written afresh: a stale chunk would ship in the package.
if (existsSync("dist/webview")) rmSync("dist/webview", { recursive: true });

const results = await Promise.all([
  esbuild.build({
    ...common,
    entryPoints: ["src/cli/bin.ts"],
    outfile: "dist/cli.js",
    format: "esm",
    plugins: [exportRenderApart, mcpServerApart, teamApart],
    // CommonJS dependencies (commander) require() Node's built-ins; an ES module has no `require` of its own.
    banner: {
      js: [
        "#!/usr/bin/env node",
        'import { createRequire as __createRequire } from "node:module";',
        'import { fileURLToPath as __fileURLToPath } from "node:url";',
        "const require = __createRequire(import.meta.url);",
        // node-sqlite3-wasm finds its .wasm next to the script, through __dirname (copied to dist/ below).
        "const __dirname = __fileURLToPath(new URL('.', import.meta.url));",
      ].join("\n"),
    },
  }),
  // The package is ESM ("type": "module"); VS Code require()s the extension, so it is CommonJS with a .cjs name.
  esbuild.build({
    ...common,
    entryPoints: ["src/extension/extension.ts"],
    outfile: "dist/extension.cjs",
    format: "cjs",
    external: ["vscode"],
    plugins: [exportRenderApart, teamApart],
    // The exporters' import() as require(): the extension host loads CommonJS the way it loads the extension.
    supported: { "dynamic-import": false },
    metafile: analyze,
  }),
  esbuild.build({
    ...common,
    entryPoints: ["src/core/export/index.ts"],
    outfile: "dist/exportRender.cjs",
    format: "cjs",
  }),
  esbuild.build({
    ...common,
    entryPoints: ["src/node/team/index.ts"],
    outfile: "dist/team.cjs",
    format: "cjs",
    // pg's optional native binding (pg-native) is never installed: the pure-JavaScript client is used.
    external: ["pg-native"],
  }),
  esbuild.build({
    ...common,
    entryPoints: ["src/cli/mcpEntry.ts"],
    outfile: "dist/mcpServer.cjs",
    format: "cjs",
    plugins: [exportRenderApart],
  }),
  // The search worker: a thread of the extension host (CommonJS like the extension; SQLite's .wasm is copied next to
  // it below).
  esbuild.build({
    ...common,
    entryPoints: ["src/node/search/searchWorker.ts"],
    outfile: "dist/searchWorker.cjs",
    format: "cjs",
  }),
  // The worker threads of a cold store read (the CLI's parallel reads; src/node/store/parallel.ts).
  esbuild.build({
    ...common,
    entryPoints: ["src/node/store/summaryWorker.ts"],
    outfile: "dist/summaryWorker.cjs",
    format: "cjs",
  }),
  // Webview bundles: one ES module per panel, for the browser; what several panels use (Chart.js, markdown-it,
  // highlight.js) is one shared chunk each, imported by the panels' modules, instead of a copy in every bundle.
  esbuild.build({
    bundle: true,
    platform: "browser",
    format: "esm",
    splitting: true,
    chunkNames: "chunk-[hash]",
    target: "es2022",
    minify: production,
    sourcemap: !production,
    logLevel: "warning",
    logOverride: { "import-is-undefined": "error" },
    entryPoints: ["usage", "sessionUsage", "checkpoint", "lineage", "context", "transcript", "search", "compare"].map(
      (n) => ({
        in: `src/webview/${n}.ts`,
        out: n,
      }),
    ),
    outdir: "dist/webview",
  }),
  production
    ? null
    : esbuild.build({
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
// The search index's SQLite, as WebAssembly: loaded from next to the bundle that uses it.
mkdirSync("dist", { recursive: true });
copyFileSync("node_modules/node-sqlite3-wasm/dist/node-sqlite3-wasm.wasm", "dist/node-sqlite3-wasm.wasm");

if (analyze) {
  const inputs = Object.values(results[1].metafile.outputs).find((o) => o.entryPoint)?.inputs ?? {};
  const byPackage = new Map();
  for (const [file, { bytesInOutput }] of Object.entries(inputs)) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? file.split("/").slice(0, 2).join("/");
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + bytesInOutput);
  }
  for (const [pkg, bytes] of [...byPackage].sort((a, b) => b[1] - a[1]))
    console.log(`${(bytes / 1024).toFixed(1).padStart(8)} KB  ${pkg}`);
}
