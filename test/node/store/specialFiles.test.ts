// Hardening (issue #14, item 6): a FIFO, a device or a directory where a session file is expected never blocks a
// read, a listing or the watcher, and a whole-file read is bounded by the size fstat gave.
import * as assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
// @ts-expect-error: a plain ESM script shared with the VS Code runners (no type declarations)
import { buildFixtureHome } from "../../../scripts/vscode/fixture-home.mjs";
import { run } from "../../../src/cli/main.js";
import { SessionLibrary } from "../../../src/node/library.js";
import { inspectTail } from "../../../src/node/repair.js";
import { resolveRoots } from "../../../src/node/roots.js";
import { SessionTracker } from "../../../src/node/tracker.js";
import { message } from "../../support/builders.js";
import { ROOT } from "../../support/fixtures.js";
import { jsonl } from "../../support/helpers.js";

/** Fails (instead of hanging the suite) when `p` does not settle: a blocked read never settles. */
function settles<T>(what: string, p: Promise<T>, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return: it blocked`)), ms);
  });
  return Promise.race([p, hang]).finally(() => clearTimeout(timer));
}

const cli = async (...args: string[]) => {
  let out = "";
  let err = "";
  const code = await run(args, { out: (t) => (out += t + "\n"), err: (t) => (err += t + "\n") });
  return { code, out, err };
};

describe("hardening: FIFOs, devices and directories named like sessions", function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pse-fifo-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const fifo = (name: string) => {
    const path = join(dir, name);
    execFileSync("mkfifo", [path]);
    return path;
  };

  for (const command of ["tree", "context", "lint", "repair"]) {
    it(`${command} on a FIFO and on /dev/zero returns at once: not a regular file, exit 2 or 3`, async () => {
      for (const path of [fifo(`${command}.jsonl`), "/dev/zero"]) {
        const r = await settles(`${command} ${path}`, cli(command, path));
        assert.ok([2, 3].includes(r.code), `${command} ${path}: exit ${r.code}`);
        assert.match(r.out + r.err, /not a regular file/);
      }
    });
  }

  it("usage --file and compact on a FIFO return at once", async () => {
    const path = fifo("u.jsonl");
    const u = await settles("usage --file", cli("usage", "--file", path, "--no-cache", "--agent-dir", dir));
    assert.equal(u.code, 2);
    const c = await settles("compact", cli("compact", path, "--provider", "openai", "--model", "gpt-5.1", "--yes"));
    assert.equal(c.code, 3);
    assert.match(c.err, /not a regular file/);
  });

  it("pi's settings.json and auth.json as FIFOs read as absent, at once (a synchronous read would block)", () => {
    const agent = join(dir, "pi-agent");
    execFileSync("mkdir", ["-p", agent]);
    execFileSync("mkfifo", [join(agent, "settings.json"), join(agent, "auth.json")]);
    const script = [
      `import { piKeepRecentTokens } from ${JSON.stringify(join(ROOT, "src/node/compact/settings.ts"))};`,
      `import { readCodexToken } from ${JSON.stringify(join(ROOT, "src/node/compact/credentials.ts"))};`,
      "const env = { PI_CODING_AGENT_DIR: process.argv[1] };",
      "console.log(JSON.stringify([piKeepRecentTokens(env, '/nonexistent'), readCodexToken(env, '/nonexistent')]));",
    ].join("\n");
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, agent], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 20_000,
    });
    assert.equal(r.error, undefined, "the read returned (no timeout)");
    assert.equal(r.stdout.trim(), "[null,null]", r.stderr);
  });

  it("a tracker given a FIFO reports no session and does not block", async () => {
    const t = new SessionTracker(fifo("t.jsonl"));
    const u = await settles("tracker.update", t.update());
    assert.equal(u.change, "unchanged");
    assert.equal(t.sizeBytes, -1);
    assert.equal(
      await settles(
        "inspectTail",
        inspectTail(join(dir, "t.jsonl")).catch(() => "refused"),
      ),
      "refused",
    );
  });

  it("a FIFO appearing in a watched root is ignored; appends to real sessions still apply", async () => {
    const home = buildFixtureHome(join(dir, "home"));
    const lib = new SessionLibrary({ roots: resolveRoots({ env: {}, home: home.home }), cacheFile: null });
    await lib.ensureLoaded();
    const session = lib.sessions.find((s) => s.summary.ok && s.summary.flavor === "pi" && s.summary.version === 3)!;
    const opened = await lib.open(session.file);
    assert.ok(opened.ok);
    const trap = join(dirname(session.file), "2026-12-01T00-00-00-000Z_fifo.jsonl");
    execFileSync("mkfifo", [trap]);
    const set = await settles("applyChanges(fifo)", lib.applyChanges([trap]));
    assert.deepEqual(set.changes, []);
    assert.equal(lib.get(trap), undefined);
    appendFileSync(session.file, jsonl(message("after001", opened.session.leafId, "user", "after the FIFO")));
    const next = await settles("applyChanges(session)", lib.applyChanges([session.file]));
    assert.deepEqual(next.changes, [{ file: session.file, kind: "changed" }]);
    const again = lib.peek(session.file);
    assert.ok(again?.ok && again.session.byId.has("after001"));
    // A whole listing with the FIFO present returns, and lists it not.
    const fresh = new SessionLibrary({ roots: resolveRoots({ env: {}, home: home.home }), cacheFile: null });
    await settles(
      "load",
      fresh.ensureLoaded().then(() => fresh.whenComplete()),
    );
    assert.equal(fresh.get(trap), undefined);
  });
});
