// `npm run demo`: a real VS Code (code-server 4.100.3) in the browser with the extension loaded from the working tree
// and example sessions built from fixtures/ (in .demo/). Prints the URL to open; Ctrl-C stops everything it started.
//   npm run demo -- --real        use your real ~/.pi/agent and ~/.omp/agent instead (workspace: the current folder)
//   npm run demo -- --live        keep appending turns to one example session, to watch live updates
//   DEMO_PORT=8080 DEMO_HOST=0.0.0.0 npm run demo    choose the port / bind address
//                                                    (default 127.0.0.1, port 8080 or a free one)
import { spawnSync } from "child_process";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from "fs";
import net from "net";
import os from "os";
import path from "path";
import { fileURLToPath } from "url";
import { workbenchUrl } from "./browser.mjs";
import { freePort, startCodeServer } from "./code-server.mjs";
import { ensureRuntime } from "./ensure-runtime.mjs";
import { buildFixtureHome } from "./fixture-home.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..");
const args = process.argv.slice(2);
const real = args.includes("--real");
const live = args.includes("--live");
const unknown = args.filter((a) => !["--real", "--live"].includes(a));
if (unknown.length) {
  console.error(`unknown option ${unknown.join(" ")}; use --real and/or --live`);
  process.exit(64);
}

ensureRuntime({ needBrowser: false });
const build = spawnSync(process.execPath, [path.join(root, "scripts", "build.mjs")], { stdio: "inherit", cwd: root });
if (build.status !== 0) process.exit(build.status ?? 1);

const demoDir = path.join(root, ".demo");
mkdirSync(demoDir, { recursive: true });
let home;
let workspace;
if (real) {
  home = os.homedir();
  workspace = process.env.INIT_CWD || process.cwd();
} else {
  ({ home, workspace } = buildFixtureHome(path.join(demoDir, "home"), { blackmagic: true }));
}
process.env.EXT_HOST_HOME = home;
process.env.RUNTIME_TMP = path.join(demoDir, "runtime");

const portFree = (port, host) =>
  new Promise((resolve) => {
    const s = net.createServer();
    s.once("error", () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
const host = process.env.DEMO_HOST || "127.0.0.1";
const wanted = Number(process.env.DEMO_PORT || 8080);
const port = (await portFree(wanted, host)) ? wanted : await freePort();

const cs = await startCodeServer({ port, extraArgs: host === "127.0.0.1" ? [] : ["--bind-addr", `${host}:${port}`] });
let stopping = false;
let timer = null;
const stop = async (code = 0) => {
  if (stopping) return;
  stopping = true;
  console.log("\nstopping code-server…");
  if (timer) clearInterval(timer);
  await cs.stop();
  rmSync(cs.root, { recursive: true, force: true });
  process.exit(code);
};
process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));
cs.proc.on("exit", (code) => {
  if (!stopping) {
    console.error(`code-server exited (${code})\n${cs.log.slice(-2000)}`);
    void stop(1);
  }
});

if (live && !real) {
  // Append a user turn and a reply to the linear example session every few seconds.
  const dir = path.join(home, ".pi", "agent", "sessions");
  const slug = readdirSync(dir).find((d) => d.endsWith("-src-proj--"));
  const file = path.join(
    dir,
    slug,
    readdirSync(path.join(dir, slug)).find((f) => f.includes("d404")),
  );
  let n = 0;
  timer = setInterval(() => {
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    const parentId = JSON.parse(lines[lines.length - 1]).id;
    const now = new Date();
    const u = {
      type: "message",
      id: `demo${String(++n).padStart(4, "0")}`,
      parentId,
      timestamp: now.toISOString(),
      message: { role: "user", content: `Live demo prompt #${n}`, timestamp: now.getTime() },
    };
    const a = {
      type: "message",
      id: `demo${String(n).padStart(4, "0")}a`,
      parentId: u.id,
      timestamp: now.toISOString(),
      message: {
        role: "assistant",
        content: [{ type: "text", text: `Reply #${n}.` }],
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        api: "anthropic-messages",
        stopReason: "stop",
        timestamp: now.getTime(),
        // The context grows with each turn: the status bar's fill ("π 12% · $0.05") rises as it would.
        usage: {
          input: 1200,
          output: 40,
          cacheRead: 20000 * n,
          cacheWrite: 0,
          totalTokens: 1240 + 20000 * n,
          cost: { input: 0.0036, output: 0.0006, cacheRead: 0, cacheWrite: 0, total: 0.0042 },
        },
      },
    };
    appendFileSync(file, `${JSON.stringify(u)}\n${JSON.stringify(a)}\n`);
    console.log(`[live] appended turn #${n} to ${path.basename(file)}`);
  }, 4000);
}

const url = workbenchUrl(port, { folder: workspace, devPath: root });
const sessionsText = real
  ? `your real ~/.pi/agent and ~/.omp/agent (HOME=${home})`
  : `example sessions from fixtures/ in ${path.relative(root, home)}`;
const liveText =
  'a turn is appended to "What does this project do? Look around first." every 4 s (the status bar shows it live)';
console.log(`
Pi Session Explorer demo (VS Code ${"1.100.3"} via code-server ${cs.startMs} ms)
  sessions:  ${sessionsText}
  workspace: ${workspace}${live && !real ? `\n  live:      ${liveText}` : ""}

Open this URL in a browser, then click the Pi Sessions (π) icon in the activity bar:

  ${host === "127.0.0.1" ? url : url.replace("127.0.0.1", host === "0.0.0.0" ? "localhost" : host)}

Press Ctrl-C to stop.
`);
