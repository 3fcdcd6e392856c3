// Start/stop a throwaway code-server (real VS Code server + remote extension host). How the tests use it:
// docs/architecture.md#tests.
// Env: CODE_SERVER_BIN (path to the code-server executable), or VSCODE_RUNTIME_DIR (the folder given to
//      install-runtime.sh; default: <project>/.vscode-runtime),
//      RUNTIME_TMP (parent dir for throwaway server roots; default: os.tmpdir()), CS_VERBOSE=1 (echo server output),
//      EXT_HOST_HOME (HOME of the server and its extension host: where the extension looks for ~/.pi and ~/.omp;
//      default: a private empty folder).
import { spawn } from "child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "fs";
import net from "net";
import os from "os";
import path from "path";
import { fileURLToPath } from "url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export function codeServerBin() {
  return (
    process.env.CODE_SERVER_BIN ||
    path.resolve(
      process.env.VSCODE_RUNTIME_DIR || path.join(projectRoot, ".vscode-runtime"),
      "node_modules",
      ".bin",
      "code-server",
    )
  );
}

export async function freePort() {
  return new Promise((res, rej) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const p = s.address().port;
      s.close(() => res(p));
    });
    s.on("error", rej);
  });
}

export async function startCodeServer({
  tmpRoot = process.env.RUNTIME_TMP || os.tmpdir(),
  extraArgs = [],
  env = {},
  settings = {},
  port: fixedPort,
  extensionsDir,
  userDataDir,
} = {}) {
  mkdirSync(tmpRoot, { recursive: true });
  const untrusted = process.env.PI_SESSIONS_UNTRUSTED === "1";
  const root = mkdtempSync(path.join(tmpRoot, "cs-"));
  const home = process.env.EXT_HOST_HOME || path.join(root, "home");
  const xdg = path.join(root, "xdg");
  const userData = userDataDir ?? path.join(root, "ud");
  mkdirSync(path.join(userData, "User"), { recursive: true });
  // Quiet, deterministic workbench: no welcome page, no telemetry banner, no gallery calls.
  writeFileSync(
    path.join(userData, "User", "settings.json"),
    JSON.stringify(
      {
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": false,
        "telemetry.telemetryLevel": "off",
        "extensions.autoCheckUpdates": false,
        "extensions.autoUpdate": false,
        "update.mode": "none",
        "workbench.enableExperiments": false,
        // PI_SESSIONS_UNTRUSTED=1: workspace trust on, so the folder opens in Restricted Mode (never asked).
        "security.workspace.trust.enabled": untrusted,
        "security.workspace.trust.startupPrompt": "never",
        "security.workspace.trust.emptyWindow": false,
        "workbench.secondarySideBar.defaultVisibility": "hidden",
        "git.openRepositoryInParentFolders": "never",
        ...settings,
      },
      null,
      2,
    ),
  );
  writeFileSync(path.join(root, "config.yaml"), "");
  const port = fixedPort ?? (await freePort());
  const args = [
    "--config",
    path.join(root, "config.yaml"),
    "--auth",
    "none",
    "--bind-addr",
    `127.0.0.1:${port}`,
    "--disable-telemetry",
    "--disable-update-check",
    ...(untrusted ? [] : ["--disable-workspace-trust"]),
    "--disable-getting-started-override",
    "--ignore-last-opened",
    "--user-data-dir",
    userData,
    "--extensions-dir",
    extensionsDir ?? path.join(root, "exts"),
    ...extraArgs,
  ];
  const t0 = Date.now();
  const proc = spawn(codeServerBin(), args, {
    env: {
      ...process.env,
      EXTENSIONS_GALLERY: "{}",
      HOME: home,
      XDG_CONFIG_HOME: `${xdg}/config`,
      XDG_DATA_HOME: `${xdg}/data`,
      XDG_CACHE_HOME: `${xdg}/cache`,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // own process group so stop() can kill the ext host + pty host too
  });
  let log = "";
  proc.on("error", (e) => {
    log += `spawn error: ${e.message}\n`;
  });
  proc.stdout.on("data", (d) => {
    log += d;
    if (process.env.CS_VERBOSE) process.stdout.write(`[cs] ${d}`);
  });
  proc.stderr.on("data", (d) => {
    log += d;
    if (process.env.CS_VERBOSE) process.stderr.write(`[cs] ${d}`);
  });
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null || log.startsWith("spawn error"))
      throw new Error(`code-server exited early (${codeServerBin()}):\n${log}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (r.ok) break;
    } catch {}
    if (i > 300) throw new Error(`code-server did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    root,
    proc,
    startMs: Date.now() - t0,
    get log() {
      return log;
    },
    async stop() {
      try {
        process.kill(-proc.pid, "SIGTERM");
      } catch {}
      await new Promise((r) => {
        if (proc.exitCode !== null) return r();
        proc.once("exit", r);
        setTimeout(r, 5000);
      });
      try {
        process.kill(-proc.pid, "SIGKILL");
      } catch {}
    },
  };
}
