/**
 * The agent history of a file (`pi-sessions touches`): on the real pi and OMP fixtures against an oracle computed from
 * the raw files, fork copies once, relative, absolute, `~`, Windows and OMP selector paths, and appends.
 */
import { strict as assert } from "node:assert";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../src/cli/main.js";
import { resolveRoots } from "../../src/node/roots.js";
import { computeOwnership, loadStore } from "../../src/node/store/index.js";
import { pathKey, resolveTouchPath } from "../../src/node/touches.js";
import { extendSummary, summarize } from "../../src/core/summary.js";
import { parseSession } from "../../src/core/session/index.js";
import { packSummary, unpackSummary } from "../../src/node/store/cache.js";
import { fork, header, message, toolCall, toolResult } from "../support/builders.js";
import { jsonl, plain, withTempDir } from "../support/helpers.js";
import { REAL } from "../support/fixtures.js";

async function cli(...args: string[]) {
  let out = "";
  let err = "";
  const code = await run(args, { out: (t) => (out += t + "\n"), err: (t) => (err += t + "\n") });
  return { code, out, err };
}

interface OracleTouch {
  file: string;
  entryId: string;
  toolCallId: string;
  tool: string;
  timestamp: string;
  onActivePath: boolean;
}

function jsonlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => join(dir, f));
}

/**
 * From the raw files alone: every read/edit/write call naming `target` (relative paths joined to the header's cwd), the
 * leaf as the last entry of the file, and a call copied into a fork credited to the oldest file that holds it.
 */
function oracle(agentDir: string, target: string): OracleTouch[] {
  const byCall = new Map<string, OracleTouch & { created: string }>();
  for (const file of jsonlFiles(agentDir)) {
    const lines = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, any>);
    const head = lines.find((l) => l.type === "session")!;
    const entries = lines.filter((l) => typeof l.id === "string" && l.type !== "session" && l.type !== "title");
    const parent = new Map(entries.map((e) => [e.id as string, e.parentId as string | null]));
    const active = new Set<string>();
    for (let id: string | null | undefined = entries.at(-1)?.id; id; id = parent.get(id)) active.add(id);
    for (const e of entries) {
      if (e.type !== "message" || e.message?.role !== "assistant" || !Array.isArray(e.message.content)) continue;
      for (const b of e.message.content) {
        if (b.type !== "toolCall" || !["read", "edit", "write"].includes(b.name)) continue;
        const p: string = b.arguments.path;
        const abs = p.startsWith("/") ? p : `${head.cwd}/${p.replace(/^\.\//, "")}`;
        if (abs !== target) continue;
        const key = `${e.id}\n${b.id}`;
        const prev = byCall.get(key);
        if (prev && prev.created <= head.timestamp) continue;
        byCall.set(key, {
          file,
          entryId: e.id,
          toolCallId: b.id,
          tool: b.name,
          timestamp: e.timestamp,
          onActivePath: active.has(e.id),
          created: head.timestamp,
        });
      }
    }
  }
  return [...byCall.values()]
    .map(({ created: _c, ...t }) => t)
    .sort((a, b) => b.timestamp.localeCompare(a.timestamp) || a.file.localeCompare(b.file));
}

describe("touches: the agent history of a file", () => {
  for (const [agent, dir] of [
    ["pi v3", join(REAL, "pi")],
    ["OMP", join(REAL, "omp")],
  ] as const) {
    it(`${agent}: every read, edit and write of a fixture file, forks once, as the raw files say`, async () => {
      for (const target of ["/home/u/src/proj/src/math.ts", "/home/u/src/proj/README.md"]) {
        const want = oracle(dir, target);
        const { code, out } = await cli("touches", target, "--agent-dir", dir, "--no-cache", "--json");
        assert.equal(code, 0);
        const got = (JSON.parse(out) as { touches: (OracleTouch & { kind: string; sessionId: string })[] }).touches;
        for (const t of got) {
          assert.equal(t.kind, t.tool);
          assert.deepEqual(Object.keys(t), [
            "file",
            "sessionId",
            "entryId",
            "toolCallId",
            "tool",
            "kind",
            "timestamp",
            "onActivePath",
          ]);
        }
        const comparable = got
          .map(({ kind: _k, sessionId: _s, ...t }) => t)
          .sort((a, b) => b.timestamp.localeCompare(a.timestamp) || a.file.localeCompare(b.file));
        assert.deepEqual(comparable, want, `${agent} ${target}`);
        // Newest first as printed.
        const times = got.map((t) => t.timestamp);
        assert.deepEqual(times, [...times].sort().reverse());
      }
    });
  }

  it("has the fixtures' edits at all (the oracle is not vacuous)", () => {
    assert.ok(oracle(join(REAL, "pi"), "/home/u/src/proj/src/math.ts").length >= 4);
    assert.ok(oracle(join(REAL, "omp"), "/home/u/src/proj/src/math.ts").length >= 1);
  });

  it("resolves relative, absolute, ~, Windows and OMP selector paths; URIs are no file", () => {
    assert.equal(resolveTouchPath("src/a.ts", "/home/me/app", "pi", "edit"), "/home/me/app/src/a.ts");
    assert.equal(resolveTouchPath("./src/../b.ts", "/home/me/app", "pi", "read"), "/home/me/app/b.ts");
    assert.equal(resolveTouchPath("/etc/hosts", "/home/me/app", "pi", "read"), "/etc/hosts");
    assert.equal(resolveTouchPath("~/notes.md", "/x", "pi", "write", { home: "/home/me" }), "/home/me/notes.md");
    assert.equal(resolveTouchPath("src/a.ts", null, "pi", "edit"), null);
    assert.equal(resolveTouchPath("src\\a.ts", "C:\\Users\\me\\app", "pi", "edit"), "C:\\Users\\me\\app\\src\\a.ts");
    assert.equal(
      resolveTouchPath("C:/Users/me/app/src/A.ts", "/ignored", "pi", "edit"),
      "C:\\Users\\me\\app\\src\\A.ts",
    );
    assert.equal(
      pathKey("C:\\Users\\me\\app\\src\\A.ts", "linux"),
      pathKey(resolveTouchPath("src/a.ts", "c:\\users\\me\\app", "pi", "read")!, "linux"),
    );
    assert.notEqual(pathKey("/home/me/A.ts", "linux"), pathKey("/home/me/a.ts", "linux"));
    assert.equal(pathKey("/Users/me/A.ts", "darwin"), pathKey("/Users/me/a.ts", "darwin"));
    assert.equal(resolveTouchPath("src/a.ts:20-40", "/app", "omp", "read"), "/app/src/a.ts");
    assert.equal(resolveTouchPath("src/a.ts:raw", "/app", "omp", "read"), "/app/src/a.ts");
    // pi has no selectors: a colon is part of the name.
    assert.equal(resolveTouchPath("src/a.ts:20", "/app", "pi", "read"), "/app/src/a.ts:20");
    assert.equal(resolveTouchPath("memory://notes", "/app", "omp", "read"), null);
    // As pi's tools read a path: a leading @ dropped, Unicode spaces made plain.
    assert.equal(resolveTouchPath("@src/a.ts", "/app", "pi", "edit"), "/app/src/a.ts");
    assert.equal(resolveTouchPath("my\u00a0file.ts", "/app", "pi", "read"), "/app/my file.ts");
  });

  it("counts a fork's copied edit once, for its parent, and the fork's own edit for the fork", async () => {
    await withTempDir(async (dir) => {
      const slug = join(dir, "agent", "sessions", "--app--");
      mkdirSync(slug, { recursive: true });
      const parent = join(slug, "parent.jsonl");
      const child = join(slug, "child.jsonl");
      const shared = [
        message("u1", null, "user", "fix it", { time: 1 }),
        toolCall("a1", "u1", "edit", { path: "src/a.ts", oldText: "x", newText: "y" }, { time: 2 }),
        toolResult("r1", "a1", "a1", "edit", "ok", { time: 3 }),
      ];
      writeFileSync(parent, jsonl(header({ id: "p", cwd: "/app", time: 0 }), ...shared));
      writeFileSync(
        child,
        jsonl(
          fork(parent, { id: "c", cwd: "/app", time: 5 }),
          ...shared,
          toolCall("a2", "r1", "write", { path: "/app/src/a.ts", content: "z" }, { time: 6 }),
        ),
      );
      const { out } = await cli("touches", "/app/src/a.ts", "--agent-dir", join(dir, "agent"), "--no-cache", "--json");
      const got = (JSON.parse(out) as { touches: { file: string; entryId: string; kind: string }[] }).touches;
      assert.deepEqual(
        got.map((t) => [t.file, t.entryId, t.kind]),
        [
          [child, "a2", "write"],
          [parent, "a1", "edit"],
        ],
      );
    });
  });

  it("an appended edit extends the summary's touches as a whole read does, and survives the cache", () => {
    withTempDir((dir) => {
      const file = join(dir, "s.jsonl");
      writeFileSync(
        file,
        jsonl(
          header({ cwd: "/app" }),
          message("u1", null, "user", "go", { time: 1 }),
          toolCall("a1", "u1", "read", { path: "src/a.ts" }, { time: 2 }),
        ),
      );
      const before = summarize(parseSession(file, readFileSync(file)));
      appendFileSync(
        file,
        jsonl(
          toolResult("r1", "a1", "a1", "read", "text", { time: 3 }),
          toolCall("a2", "r1", "edit", { path: "src/a.ts", edits: [{ oldText: "a", newText: "b" }] }, { time: 4 }),
        ),
      );
      const whole = summarize(parseSession(file, readFileSync(file)));
      const extended = extendSummary(before, parseSession(file, readFileSync(file)));
      assert.ok(whole.ok && extended.ok);
      assert.deepEqual(plain(extended.touches), plain(whole.touches));
      assert.deepEqual(
        whole.touches.map((t) => [t.entryId, t.kind, t.path, t.active]),
        [
          ["a1", "read", "src/a.ts", true],
          ["a2", "edit", "src/a.ts", true],
        ],
      );
      // A branch from u1 moves the active path: the earlier touches are no longer on it.
      appendFileSync(file, jsonl(toolCall("b1", "u1", "write", { path: "b.ts", content: "" }, { time: 5 })));
      const branched = extendSummary(extended, parseSession(file, readFileSync(file)));
      const rewhole = summarize(parseSession(file, readFileSync(file)));
      assert.ok(branched.ok && rewhole.ok);
      assert.deepEqual(plain(branched.touches), plain(rewhole.touches));
      assert.deepEqual(
        branched.touches.map((t) => t.active),
        [false, false, true],
      );
      const round = unpackSummary(JSON.parse(JSON.stringify(packSummary(rewhole))));
      assert.ok(round.ok);
      assert.deepEqual(plain(round.touches), plain(rewhole.touches));
    });
  });

  it("the store's listing from its cache gives the same touches as a cold read", async () => {
    await withTempDir(async (dir) => {
      const roots = resolveRoots({ agentDirs: [join(REAL, "pi")] });
      const cacheFile = join(dir, "cache.jsonl");
      const cold = await loadStore({ roots, cacheFile });
      const warm = await loadStore({ roots, cacheFile });
      assert.equal(warm.filesRead, 0);
      assert.ok(statSync(cacheFile).size > 0);
      computeOwnership(cold.sessions);
      computeOwnership(warm.sessions);
      const touches = (s: typeof cold.sessions) =>
        s.flatMap((x) => (x.summary.ok ? x.summary.touches.map((t) => [x.file, plain(t)]) : []));
      assert.deepEqual(touches(warm.sessions), touches(cold.sessions));
      assert.ok(touches(cold.sessions).length > 10);
    });
  });
});
