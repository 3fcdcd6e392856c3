// Installs the real Oh My Pi 18.2.3 and Bun 1.3.14 (OMP runs only under Bun) into test/oracles/omp from its lockfile,
// for the tests that ask OMP (test/support/omp.ts). Kept out of the project's own devDependencies: about 1 GB, and
// Bun's package replaces nothing of ours but is needed by nothing else. `npm install`, not `npm ci`: OMP's lockfile
// names platform packages that were never published for every platform, which `npm ci` refuses. Bun's own install
// script (run by npm) fetches the Bun binary from the npm registry. Does nothing when the install is current.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const home = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "test", "oracles", "omp");
const wanted = JSON.parse(readFileSync(join(home, "package.json"), "utf8")).dependencies;
const installedVersion = (name) => {
  const file = join(home, "node_modules", name, "package.json");
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).version : null;
};
const current = Object.entries(wanted).every(([name, version]) => installedVersion(name) === version);
if (current && existsSync(join(home, "node_modules", "bun", "bin", "bun.exe"))) process.exit(0);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
execFileSync(npm, ["install", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: home, stdio: "inherit" });
