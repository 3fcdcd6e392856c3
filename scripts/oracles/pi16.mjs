// Installs the real pi 1.6.0 and Node 22 (pi 1.6 needs Node >= 22.19) into test/oracles/pi16 from its lockfile, for
// the tests that ask pi 1.6 (test/support/pi16.ts). Kept out of the project's own devDependencies: the `node`
// package's bin would replace the project's Node in every npm script. Does nothing when the install is current.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const home = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "test", "oracles", "pi16");
const lock = join(home, "package-lock.json");
const installed = join(home, "node_modules", ".package-lock.json");
const versions = (file) =>
  existsSync(file)
    ? Object.entries(JSON.parse(readFileSync(file, "utf8")).packages)
        .filter(([key]) => key !== "")
        .map(([key, p]) => `${key}@${p.version}`)
        .sort()
        .join("\n")
    : null;
const current = versions(installed) === versions(lock);
if (current && existsSync(join(home, "node_modules", "node", "bin", "node"))) process.exit(0);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
execFileSync(npm, ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: home, stdio: "inherit" });
