// Bundles the CLI (and, later, the extension) with esbuild. `node scripts/build.mjs [--watch]`.
import { chmodSync } from "node:fs";
import * as esbuild from "esbuild";

const common = { bundle: true, platform: "node", target: "node20", sourcemap: true, logLevel: "warning" };

await esbuild.build({
  ...common,
  entryPoints: ["src/cli/bin.ts"],
  outfile: "dist/cli.js",
  format: "esm",
  banner: { js: "#!/usr/bin/env node" },
});
chmodSync("dist/cli.js", 0o755);
