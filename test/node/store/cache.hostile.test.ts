// Hardening 3 (issue #32), the store: a workspace scope takes in no sibling project (item 3); the metadata cache is
// read as session files are, never blocking or growing without bound (item 6), and kept for the user alone (item 7);
// a usage number that is not finite counts the same on every path, cache or not (item 8). Expectations come from
// the raw lines written here.
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../src/cli/main.js";
import { hostPaths } from "../../../src/node/roots.js";
import { cacheFileFor, inWorkspace } from "../../../src/node/store/index.js";
import { fork, header, message, usage } from "../../support/builders.js";
import { jsonl, withTempDir } from "../../support/helpers.js";

const cli = async (...args: string[]) => {
  let out = "";
  let err = "";
  const code = await run(args, { out: (t) => (out += t + "\n"), err: (t) => (err += t + "\n") });
  return { code, out, err };
};

/** Run with the CLI's cache under `cache`. */
async function withCache<T>(cache: string, fn: () => Promise<T>): Promise<T> {
  const previous = process.env.PI_SESSIONS_CACHE_DIR;
  process.env.PI_SESSIONS_CACHE_DIR = cache;
  try {
    return await fn();
  } finally {
    if (previous === undefined) delete process.env.PI_SESSIONS_CACHE_DIR;
    else process.env.PI_SESSIONS_CACHE_DIR = previous;
  }
}

function writeSession(agent: string, slug: string, name: string, cwd: string | undefined, records: unknown[] = []) {
  const dir = join(agent, "sessions", slug);
  mkdirSync(dir, { recursive: true });
  const head = header({ id: name, cwd: cwd ?? "" });
  if (cwd === undefined) delete (head as { cwd?: string }).cwd;
  writeFileSync(join(dir, `${name}.jsonl`), jsonl(head, message("u1", null, "user", `prompt of ${name}`), ...records));
}

describe("hardening 3: the store", function () {
  this.timeout(60_000);

  it("a workspace scope: the header's cwd decides; a sibling's slug prefix takes nothing in", async () => {
    const host = hostPaths();
    const ws = "/srv/app";
    // A sibling project whose slug starts with the workspace's: out, whether its cwd is there or not.
    assert.equal(inWorkspace({ cwd: "/srv/app-secrets", slug: "--srv-app-secrets--" }, ws, host), false);
    assert.equal(inWorkspace({ cwd: null, slug: "--srv-app-secrets--" }, ws, host), false);
    // The workspace and a folder inside it, by cwd; the workspace's own slug without a cwd.
    assert.equal(inWorkspace({ cwd: "/srv/app", slug: "--srv-app--" }, ws, host), true);
    assert.equal(inWorkspace({ cwd: "/srv/app/web", slug: "--srv-app-web--" }, ws, host), true);
    assert.equal(inWorkspace({ cwd: null, slug: "--srv-app--" }, ws, host), true);
    // `..` is resolved before the cwd is compared; a cwd with a control character is no path (its slug decides).
    for (const cwd of ["/srv/app/../app-secrets", "/srv/app/./../app-secrets", "/srv/app/x/../../app-secrets"])
      assert.equal(inWorkspace({ cwd, slug: "--srv-app--" }, ws, host), false, cwd);
    assert.equal(inWorkspace({ cwd: "C:\\srv\\app\\..\\app-secrets", slug: null }, "C:\\srv\\app", host), false);
    assert.equal(inWorkspace({ cwd: "/srv/app/\n/../app-secrets", slug: "--x--" }, ws, host), false);
    assert.equal(inWorkspace({ cwd: "/srv/app\u0000-secrets", slug: "--srv-app-secrets--" }, ws, host), false);
    assert.equal(inWorkspace({ cwd: "/srv/app/web/../api", slug: "--x--" }, ws, host), true);
    // A cwd elsewhere is elsewhere, whatever folder the file was put in.
    assert.equal(inWorkspace({ cwd: "/home/u/other", slug: "--srv-app--" }, ws, host), false);
    // Through the CLI: list and usage of a workspace.
    await withTempDir(async (dir) => {
      const agent = join(dir, "agent");
      writeSession(agent, "--srv-app--", "mine", "/srv/app");
      writeSession(agent, "--srv-app-secrets--", "sibling", "/srv/app-secrets");
      writeSession(agent, "--srv-app-secrets--", "headless", undefined);
      const r = await cli("list", "--agent-dir", agent, "--workspace", ws, "--no-cache", "--json");
      const ids = (JSON.parse(r.out) as { sessions: { id: string }[] }).sessions.map((s) => s.id);
      assert.deepEqual(ids, ["mine"], r.out);
    });
  });

  it("a fork whose header time does not parse: its copies count once, with the cache and without it", async () => {
    await withTempDir(async (dir) => {
      const agent = join(dir, "agent");
      const slug = join(agent, "sessions", "--w--");
      mkdirSync(slug, { recursive: true });
      const parent = join(slug, "p.jsonl");
      const paid = (id: string, parentId: string) =>
        message(id, parentId, "assistant", "reply", { usage: usage(10, 1, 1) });
      writeFileSync(parent, jsonl(header({ id: "p", cwd: "/w" }), message("u1", null, "user", "go"), paid("a1", "u1")));
      writeFileSync(
        join(slug, "f.jsonl"),
        jsonl(
          fork(parent, { id: "f", cwd: "/w", time: "garbage" }),
          message("u1", null, "user", "go"),
          paid("a1", "u1"),
          message("u2", "a1", "user", "more", { time: 5 }),
          paid("a2", "u2"),
        ),
      );
      // From the raw lines: a1 once (the parent's), a2 once: $2.
      const cache = join(dir, "cache");
      for (const extra of [["--no-cache"], [], []]) {
        const r = await withCache(cache, () => cli("usage", "--agent-dir", agent, "--json", ...extra));
        assert.equal((JSON.parse(r.out) as { total: { cost: number } }).total.cost, 2, extra.join(" ") || "cache");
      }
    });
  });

  it("JSON on stdout: C1 controls, overrides and separators as JSON escapes, the values exact", async () => {
    await withTempDir(async (dir) => {
      const agent = join(dir, "agent");
      const name = "csi\u009b31m rlo\u202eexe sep\u2028line del\u007f";
      writeSession(agent, "--w--", "s", "/w", [
        { type: "session_info", id: "n1", parentId: "u1", timestamp: "2026-01-01T00:00:02.000Z", name },
      ]);
      const r = await cli("list", "--agent-dir", agent, "--no-cache", "--json");
      assert.equal(/[\u007f-\u009f\u202a-\u202e\u2028\u2029]/.exec(r.out), null, "no raw character");
      assert.equal((JSON.parse(r.out) as { sessions: { name: string }[] }).sessions[0]!.name, name);
    });
  });

  it("a FIFO, a link to /dev/zero or a huge file at the cache's name: the listing goes on without it", async () => {
    await withTempDir(async (dir) => {
      const agent = join(dir, "agent");
      writeSession(agent, "--w--", "s", "/w");
      const cache = join(dir, "cache");
      mkdirSync(cache, { mode: 0o700 });
      const name = cacheFileFor(cache, [{ dir: join(agent, "sessions"), agent: "pi" } as never]);
      const expect = async (what: string) => {
        const r = await withCache(cache, () => cli("list", "--agent-dir", agent, "--json"));
        assert.equal(r.code, 0, `${what}: ${r.err}`);
        assert.deepEqual(
          (JSON.parse(r.out) as { sessions: { id: string }[] }).sessions.map((s) => s.id),
          ["s"],
          what,
        );
      };
      // The name the CLI uses for these roots (what it would read).
      await expect("no cache yet");
      const [written] = readdirSync(cache).filter((f) => f.startsWith("store-"));
      assert.ok(written, "the cache was written");
      const path = join(cache, written);
      assert.equal(statSync(path).mode & 0o777, 0o600, "owner-only");
      rmSync(path);
      spawnSync("mkfifo", [path]);
      await expect("a FIFO");
      rmSync(path);
      symlinkSync("/dev/zero", path);
      await expect("a link to /dev/zero");
      rmSync(path);
      assert.ok(name.startsWith(cache));
    });
  });

  it("the cache dir is made 0700 and its files 0600 under umask 022; an open dir of ours is tightened", async () => {
    await withTempDir(async (dir) => {
      const agent = join(dir, "agent");
      writeSession(agent, "--w--", "s", "/w");
      const old = process.umask(0o022);
      try {
        const cache = join(dir, "fresh", "cache");
        await withCache(cache, () => cli("list", "--agent-dir", agent));
        assert.equal(statSync(cache).mode & 0o777, 0o700);
        for (const f of readdirSync(cache)) assert.equal(statSync(join(cache, f)).mode & 0o777, 0o600, f);
        const open = join(dir, "open");
        mkdirSync(open);
        chmodSync(open, 0o755);
        await withCache(open, () => cli("list", "--agent-dir", agent));
        assert.equal(statSync(open).mode & 0o777, 0o700);
      } finally {
        process.umask(old);
      }
    });
  });

  it("a cache dir of another user: not read, not written, and the listing says why", async () => {
    await withTempDir(async (dir) => {
      const agent = join(dir, "agent");
      writeSession(agent, "--w--", "s", "/w");
      const theirs = join(dir, "theirs");
      mkdirSync(theirs);
      chmodSync(theirs, 0o777);
      spawnSync("chown", ["65534:65534", theirs]);
      const r = await withCache(theirs, () => cli("list", "--agent-dir", agent));
      assert.equal(r.code, 0, r.err);
      assert.match(r.err, /cache dir .*theirs belongs to another user/);
      assert.deepEqual(readdirSync(theirs), []);
    });
  });

  it("a non-finite usage number counts as absent: the same with the cache, without it, and parsed", async () => {
    await withTempDir(async (dir) => {
      const agent = join(dir, "agent");
      const infinite = { input: 100, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 1, cost: { total: 0.5 } };
      const line = (id: string, parent: string, total: string, cost: string) =>
        JSON.stringify(message(id, parent, "assistant", "reply", { usage: infinite as never }))
          .replace('"totalTokens":1', `"totalTokens":${total}`)
          .replace('"total":0.5', `"total":${cost}`);
      const file = join(agent, "sessions", "--w--", "s.jsonl");
      writeSession(agent, "--w--", "s", "/w");
      writeFileSync(file, `${line("a1", "u1", "1e400", "1e400")}\n${line("a2", "a1", "-1e999", "0.25")}\n`, {
        flag: "a",
      });
      // From the raw lines: a non-finite total falls back to the buckets (100 + 10), a non-finite cost to nothing.
      const expected = { tokens: 220, cost: 0.25 };
      const cache = join(dir, "cache");
      const totals = async (...extra: string[]) => {
        const r = await withCache(cache, () => cli("usage", "--agent-dir", agent, "--json", ...extra));
        assert.equal(r.code, 0, r.err);
        const json = JSON.parse(r.out) as { total: { totalTokens: number; cost: number } };
        return { tokens: json.total.totalTokens, cost: json.total.cost };
      };
      assert.deepEqual(await totals("--no-cache"), expected, "no cache");
      assert.deepEqual(await totals(), expected, "cache written");
      assert.deepEqual(await totals(), expected, "cache read");
      // Out of range (negative, past a quadrillion): absent too, so no sum overflows or goes below zero.
      const huge = {
        input: 1.7e308,
        output: -5,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 1.7e308,
        cost: { total: -1 },
      };
      const hugeLine = (id: string, parent: string) =>
        JSON.stringify(message(id, parent, "assistant", "reply", { usage: huge as never }));
      writeFileSync(file, `${hugeLine("a3", "a2")}\n${hugeLine("a4", "a3")}\n${hugeLine("a5", "a4")}\n`, { flag: "a" });
      assert.deepEqual(await totals("--no-cache"), expected, "huge and negative numbers, no cache");
      assert.deepEqual(await totals(), expected, "huge and negative numbers, cache");
      const byModel = await withCache(cache, () => cli("usage", "--agent-dir", agent, "--json", "--by", "model"));
      assert.equal((JSON.parse(byModel.out) as { total: { totalTokens: number } }).total.totalTokens, 220);
    });
  });
});
