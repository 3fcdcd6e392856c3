// Makes sure the VS Code runtime (code-server 4.100.3 in <project>/.vscode-runtime, Debian chromium) is installed,
// installing it with install-runtime.sh (apt + npm only) when it is missing. Fails loudly; never skips.
import { spawnSync } from "child_process";
import { existsSync } from "fs";
import path from "path";
import { fileURLToPath } from "url";
import { codeServerBin } from "./code-server.mjs";
import { chromiumPath } from "./browser.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const runtimeDir = process.env.VSCODE_RUNTIME_DIR || path.resolve(here, "..", "..", ".vscode-runtime");

function chromiumFound() {
  try {
    chromiumPath();
    return true;
  } catch {
    return false;
  }
}

export function ensureRuntime({ needBrowser = true } = {}) {
  if (existsSync(codeServerBin()) && (!needBrowser || chromiumFound())) return;
  console.log(
    `[runtime] installing the VS Code runtime into ${runtimeDir} ` +
      "(code-server 4.100.3 from npm, chromium from apt; about 2 minutes)",
  );
  const r = spawnSync("bash", [path.join(here, "install-runtime.sh"), runtimeDir], { stdio: "inherit" });
  if (r.status !== 0 || !existsSync(codeServerBin()) || (needBrowser && !chromiumFound())) {
    console.error(`[runtime] FAILED to install the VS Code runtime (exit ${r.status}).
It needs apt-get (root) and the npm registry; see scripts/vscode/install-runtime.sh.
The VS Code tests cannot run without it.`);
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) ensureRuntime();
