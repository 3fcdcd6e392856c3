// Runs the in-host integration tests (test/integration, bundled to dist/test/integration) inside the real VS Code
// extension host: @vscode/test-electron's runTests with code-shim.mjs as the "VS Code executable", which runs
// code-server 4.100.3 and headless Chromium. The session store is a HOME built from fixtures/real.
// A throwaway PostgreSQL (scripts/pg/postgres.mjs) is the team database of team.test (its URL in
// PI_SESSIONS_TEST_POSTGRES; the extension itself is given none). Needs `npm run build` first. Exit code = test result.
import { runTests } from "@vscode/test-electron";
import { mkdtempSync, rmSync } from "fs";
import os from "os";
import path from "path";
import { fileURLToPath } from "url";
import { ensureRuntime } from "./ensure-runtime.mjs";
import { buildFixtureHome } from "./fixture-home.mjs";
import { startPostgres } from "../pg/postgres.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..");
ensureRuntime();
const tmp = mkdtempSync(path.join(os.tmpdir(), "pi-sessions-it-"));
const { home, workspace } = buildFixtureHome(path.join(tmp, "home"));
const postgres = await startPostgres();
let code = 0;
try {
  // Two passes: a trusted workspace (every suite but one), then Restricted Mode (untrusted.test: the writers refuse).
  for (const untrusted of ["0", "1"]) {
    await runTests({
      vscodeExecutablePath: path.join(here, "code-shim.mjs"),
      extensionDevelopmentPath: root,
      extensionTestsPath: path.join(root, "dist", "test", "integration", "index.cjs"),
      launchArgs: [workspace],
      extensionTestsEnv: {
        EXT_HOST_HOME: home,
        PI_SESSIONS_FIXTURE_HOME: home,
        RUNTIME_TMP: tmp,
        PI_SESSIONS_UNTRUSTED: untrusted,
        PI_SESSIONS_TEST_POSTGRES: postgres.url,
      },
    });
  }
  console.log("integration tests passed");
} catch (err) {
  console.error(`integration tests FAILED: ${err.message}`);
  code = 1;
} finally {
  postgres.stop();
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(code);
