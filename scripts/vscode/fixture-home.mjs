// Builds a HOME with ~/.pi/agent and ~/.omp/agent session stores from the real fixtures in fixtures/real, as if the
// agents had run with HOME=<dest>: the fixtures were written with HOME=/home/u, so paths and pi slug folders are
// rewritten in the copies (never in fixtures/). Also makes <dest>/src/proj, the workspace most sessions belong to.
// Usage: node scripts/vscode/fixture-home.mjs <dest>    (or import { buildFixtureHome })
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "fs";
import path from "path";
import { fileURLToPath } from "url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const FIXTURE_HOME = "/home/u";

const piSlug = (cwd) => `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;

function rewrite(text, home) {
  // Paths name pi slug folders too (`sessions/--home-u-src-proj--/…`), then the home itself.
  return text
    .split(`/${piSlug(FIXTURE_HOME).slice(0, -2)}-`)
    .join(`/${piSlug(home).slice(0, -2)}-`)
    .split(`${FIXTURE_HOME}/`)
    .join(`${home}/`);
}

function copyTree(from, to, home) {
  mkdirSync(to, { recursive: true });
  for (const d of readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, d.name);
    if (d.isDirectory()) copyTree(src, path.join(to, d.name), home);
    else if (d.name.endsWith(".jsonl")) {
      const text = rewrite(readFileSync(src, "utf8"), home);
      const target = path.join(to, d.name);
      writeFileSync(target, text);
      // The file was last written when its last entry was (otherwise every copy would look "live").
      const stamps = text.match(/"timestamp":"([^"]+)"/g);
      const last = stamps ? Date.parse(stamps[stamps.length - 1].slice(13, -1)) : NaN;
      if (Number.isFinite(last)) utimesSync(target, new Date(last), new Date(last));
    } else cpSync(src, path.join(to, d.name));
  }
}

function copyStore(from, to, home, renameSlug) {
  for (const slug of readdirSync(from)) copyTree(path.join(from, slug), path.join(to, renameSlug(slug)), home);
}

/** Hostile content in every field a session can carry (for the UI test's "nothing runs, all shows literally"). */
export const HOSTILE = {
  name: '<img src=x onerror="window.__pwned=1;alert(1)">',
  prompt:
    "<script>window.__pwned=2</script> [open](command:workbench.action.closeWindow) " +
    '<svg onload="window.__pwned=3"></svg>',
  reply: '**bold** <iframe src="javascript:alert(4)"></iframe> [x](javascript:alert(5))',
  tool: "</pre><script>alert(6)</script><style>body{display:none}</style>",
  label: '<b onmouseover="alert(7)">label</b>',
  summary:
    "## Goal\n<script>window.__pwned=8</script>\n[run](command:workbench.action.quit) " +
    "![img](https://evil.example/x.png)\n<svg><script>alert(9)</script></svg>",
  customType: "<script>alert(10)</script>",
};

function hostileSession(home) {
  const cwd = path.join(home, "src", "hostile");
  const t = (n) => new Date(Date.UTC(2026, 10, 29, 17, 0, n)).toISOString();
  const usage = {
    input: 100,
    output: 20,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 120,
    cost: { input: 0.001, output: 0.001, cacheRead: 0, cacheWrite: 0, total: 0.002 },
  };
  const assistant = (id, parentId, n, content) => ({
    type: "message",
    id,
    parentId,
    timestamp: t(n),
    message: {
      role: "assistant",
      content,
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage,
      stopReason: "stop",
      timestamp: n,
    },
  });
  const records = [
    { type: "session", version: 3, id: "hostile0-0000-4000-8000-000000000000", timestamp: t(0), cwd },
    {
      type: "message",
      id: "h0000001",
      parentId: null,
      timestamp: t(1),
      message: { role: "user", content: HOSTILE.prompt, timestamp: 1 },
    },
    assistant("h0000002", "h0000001", 2, [
      { type: "text", text: HOSTILE.reply },
      { type: "toolCall", id: "call_1", name: "bash", arguments: { command: "<script>alert(11)</script>" } },
    ]),
    {
      type: "message",
      id: "h0000003",
      parentId: "h0000002",
      timestamp: t(3),
      message: {
        role: "toolResult",
        toolCallId: "call_1",
        toolName: "bash",
        content: [{ type: "text", text: HOSTILE.tool }],
        isError: false,
        timestamp: 3,
      },
    },
    assistant("h0000004", "h0000003", 4, [{ type: "text", text: "done" }]),
    {
      type: "message",
      id: "h0000005",
      parentId: "h0000004",
      timestamp: t(5),
      message: { role: "user", content: "next", timestamp: 5 },
    },
    assistant("h0000006", "h0000005", 6, [{ type: "text", text: "ok" }]),
    {
      type: "compaction",
      id: "h0000007",
      parentId: "h0000006",
      timestamp: t(7),
      summary: HOSTILE.summary,
      firstKeptEntryId: "h0000005",
      tokensBefore: 5000,
      details: { readFiles: ["<script>x</script>.ts"], modifiedFiles: [] },
    },
    {
      type: "custom_message",
      id: "h0000008",
      parentId: "h0000007",
      timestamp: t(8),
      customType: HOSTILE.customType,
      content: HOSTILE.prompt,
      display: true,
    },
    {
      type: "label",
      id: "h0000009",
      parentId: "h0000008",
      timestamp: t(9),
      targetId: "h0000001",
      label: HOSTILE.label,
    },
    { type: "session_info", id: "h000000a", parentId: "h0000009", timestamp: t(10), name: HOSTILE.name },
  ];
  const dir = path.join(home, ".pi", "agent", "sessions", piSlug(cwd));
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "2026-11-29T17-00-00-000Z_hostile0-0000-4000-8000-000000000000.jsonl");
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
  utimesSync(file, new Date(t(10)), new Date(t(10)));
  mkdirSync(cwd, { recursive: true });
  return file;
}

/**
 * `blackmagic`: also the sessions the real Blackmagic rc.5 wrote inside the real pi 0.83 (fixtures/real/blackmagic),
 * under their own projects (/home/dana/code/…), for the checkpoint screenshots and the demo.
 */
export function buildFixtureHome(dest, { hostile = false, blackmagic = false } = {}) {
  const home = path.resolve(dest);
  rmSync(home, { recursive: true, force: true });
  const piSessions = path.join(home, ".pi", "agent", "sessions");
  const ompSessions = path.join(home, ".omp", "agent", "sessions");
  mkdirSync(piSessions, { recursive: true });
  mkdirSync(ompSessions, { recursive: true });
  const fixtures = path.join(projectRoot, "fixtures", "real");
  const homeSlug = piSlug(FIXTURE_HOME).slice(0, -2); // --home-u
  copyStore(path.join(fixtures, "pi", "sessions"), piSessions, home, (slug) =>
    slug.startsWith(`${homeSlug}-`) ? `${piSlug(home).slice(0, -2)}${slug.slice(homeSlug.length)}` : slug,
  );
  copyStore(path.join(fixtures, "omp", "sessions"), ompSessions, home, (slug) => slug);
  if (blackmagic) cpSync(path.join(fixtures, "blackmagic", "agent", "sessions"), piSessions, { recursive: true });
  // A broken file, so the explorer's "not readable" state is part of every run.
  cpSync(
    path.join(fixtures, "quirks", "empty.jsonl"),
    path.join(piSessions, piSlug(path.join(home, "src", "proj")), "broken-empty.jsonl"),
  );
  const workspace = path.join(home, "src", "proj");
  mkdirSync(workspace, { recursive: true });
  writeFileSync(
    path.join(workspace, "README.md"),
    '# proj\n\nThe demo workspace: the sessions of this folder are under "This Workspace".\n',
  );
  // The file the fixture sessions read and edit (src/math.ts), for the CodeLens and the Agent History view.
  mkdirSync(path.join(workspace, "src"), { recursive: true });
  writeFileSync(
    path.join(workspace, "src", "math.ts"),
    "export function add(a: number, b: number): number {\n  return a + b;\n}\n\n" +
      "export function sum(xs: number[]) { return xs.reduce((a, b) => a + b, 0); }\n\n" +
      "export function mul(a: number, b: number): number {\n  return a * b;\n}\n",
  );
  const hostileFile = hostile ? hostileSession(home) : undefined;
  return { home, workspace, piSessions, ompSessions, hostileFile };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dest = process.argv[2];
  if (!dest) {
    console.error("usage: fixture-home.mjs <dest>");
    process.exit(64);
  }
  console.log(JSON.stringify(buildFixtureHome(dest), null, 2));
}
