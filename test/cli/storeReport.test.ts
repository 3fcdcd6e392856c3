/**
 * The store's reports: workspace matching, `pi-sessions list` and `usage` over real agent dirs, the metadata cache's
 * encoding, and the first-paint probe.
 */
import { strict as assert } from "node:assert";
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { run } from "../../src/cli/main.js";
import { slugMatches, workspaceSlugVariants } from "../../src/core/slug.js";

import { parseSession } from "../../src/core/session/index.js";
import { probeSummary, summarize } from "../../src/core/summary.js";
import {
  belongsToWorkspace,
  loadStore,
  packSummary,
  realFs,
  type StoreFs,
  type StoreSession,
  unpackSummary,
} from "../../src/node/store/index.js";
import { resolveRoots } from "../../src/node/roots.js";
import { header, message, toolResult } from "../support/builders.js";
import { plain } from "../support/helpers.js";
import { OMP_FIXTURES, oracleFor, PI_FIXTURES, REAL } from "../support/fixtures.js";

const O2 = "2026-11-29T18-50-21-986Z_01a228a4-d9a2-7000-85ca-ecf671b91f93.jsonl";
const O3 = "2026-11-29T18-50-22-033Z_01a228a4-d9d1-7000-a845-d846825115ab.jsonl";

describe("workspace matching", () => {
  const posix = { home: "/home/u", tmpdir: "/tmp", windows: false };

  it("OMP home-relative slugs match only across a separator boundary", () => {
    const v = workspaceSlugVariants("/home/u/src/dotai", posix);
    assert.ok(v.exact.includes("-src-dotai"));
    assert.ok(slugMatches("-src-dotai", v));
    assert.ok(slugMatches("-src-dotai-packages-app", v));
    assert.ok(!slugMatches("-src-dotaix", v));
    assert.ok(slugMatches("--home-u-src-dotai--", v), "pi absolute exact");
    assert.ok(slugMatches("--home-u-src-dotai-packages--", v), "pi absolute prefix");
    assert.ok(!slugMatches("--home-u-src-dotaix--", v));
    assert.ok(slugMatches("-tmp-x", workspaceSlugVariants("/tmp/x", posix)), "OMP tmp slug");
  });

  it("a Windows-shaped workspace keeps its drive letter on every host and gets no home-relative variant", () => {
    const v = workspaceSlugVariants("C:\\workspace\\project", posix);
    assert.deepEqual(v.exact, ["--C--workspace-project--"]);
    assert.ok(slugMatches("--C--workspace-project--", v));
    assert.ok(!slugMatches("--workspace-project--", v));
    assert.ok(
      !v.exact.some((s) =>
        s.includes(
          process
            .cwd()
            .replace(/[/\\:]/g, "-")
            .replace(/^-/, ""),
        ),
      ),
      "never resolved against the host cwd",
    );
    const onWindows = workspaceSlugVariants("C:\\Users\\me\\src\\app", {
      home: "C:\\Users\\me",
      tmpdir: "C:\\Temp",
      windows: true,
    });
    assert.ok(onWindows.exact.includes("-src-app"), "host-native path under home gets the OMP home-relative slug");
  });

  it("header.cwd is matched first, across a separator boundary", async () => {
    const s = (cwd: string, slug = "--other--") => ({ summary: { ok: true, cwd }, slug }) as unknown as StoreSession;
    assert.ok(belongsToWorkspace(s("/home/u/src/proj"), "/home/u/src/proj", posix));
    assert.ok(belongsToWorkspace(s("/home/u/src/proj/pkg"), "/home/u/src/proj/", posix));
    assert.ok(!belongsToWorkspace(s("/home/u/src/projx"), "/home/u/src/proj", posix));
    assert.ok(
      belongsToWorkspace(s("c:\\Work\\App", "--x--"), "C:\\work\\app", posix),
      "Windows paths compare case-insensitively",
    );
  });
});

describe("pi-sessions list and usage", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "pse-cli-"));
    cpSync(join(REAL, "pi"), join(dir, "pi"), { recursive: true });
    cpSync(join(REAL, "omp"), join(dir, "omp"), { recursive: true });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const agentDirs = () => ["--agent-dir", join(dir, "pi"), "--agent-dir", join(dir, "omp"), "--no-cache"];
  async function cli(...args: string[]) {
    let out = "";
    let err = "";
    const code = await run(args, { out: (t) => (out += t + "\n"), err: (t) => (err += t + "\n") });
    return { code, out, err };
  }

  it("list --json prints every session with the specified fields", async () => {
    const { code, out } = await cli("list", ...agentDirs(), "--json");
    assert.equal(code, 0);
    const json = JSON.parse(out);
    assert.equal(json.sessions.length, 28);
    assert.deepEqual(Object.keys(json.sessions[0]), [
      "id",
      "file",
      "flavor",
      "cwd",
      "name",
      "title",
      "familyRoot",
      "firstOwnPrompt",
      "nested",
      "parentSession",
      "parentId",
      "parentFile",
      "parentState",
      "firstSeen",
      "lastSeen",
      "entryCount",
      "ownEntryCount",
      "sizeBytes",
      "sameIdAs",
      "pinned",
      "archived",
    ]);
    const o3 = json.sessions.find((s: { file: string }) => s.file.endsWith(O3));
    assert.equal(o3.parentState, "resolved");
    assert.equal(o3.parentId, "01a228a4-d9a2-7000-85ca-ecf671b91f93");
    assert.ok(o3.parentFile.endsWith(O2));
    const upstreamFork = json.sessions.find((s: { cwd: string }) => s.cwd === "/Users/badlogic/code/pi-mono");
    assert.equal(upstreamFork.parentState, "external", "a parent path on another machine stays external");
  });

  it("list --workspace keeps the workspace's sessions, nested ones included", async () => {
    const { out } = await cli("list", ...agentDirs(), "--workspace", "/home/u/src/proj", "--json");
    const sessions = JSON.parse(out).sessions as { cwd: string; nested: boolean }[];
    assert.ok(sessions.length >= 15);
    assert.ok(sessions.every((s) => s.cwd === "/home/u/src/proj"));
    assert.equal(sessions.filter((s) => s.nested).length, 2);
  });

  it("usage --json totals equal the sum of rows; forks and subagents are not double-counted", async () => {
    const { code, out } = await cli("usage", ...agentDirs(), "--by", "model", "--json");
    assert.equal(code, 0);
    const report = JSON.parse(out);
    assert.equal(report.by, "model");
    assert.deepEqual(Object.keys(report.total), [
      "input",
      "output",
      "cacheRead",
      "cacheWrite",
      "totalTokens",
      "cost",
      "messages",
      "unpriced",
      "activeCost",
      "inheritedCost",
    ]);
    const rowsCost = report.rows.reduce((a: number, r: { cost: number }) => a + r.cost, 0);
    assert.ok(Math.abs(rowsCost - report.total.cost) < 1e-9);
    const naive = (await cli("usage", ...agentDirs(), "--json")).out;
    assert.ok(Math.abs(JSON.parse(naive).total.cost - report.total.cost) < 1e-9, "by session and by model agree");
    assert.ok(report.total.inheritedCost > 0);
  });

  it("usage --file counts one file alone; --since filters by local day", async () => {
    const file = join(dir, "omp", "sessions", "-src-proj", O3);
    const { out } = await cli("usage", ...agentDirs(), "--file", file, "--json");
    const oracle = oracleFor(join(REAL, "omp", "sessions", "-src-proj", O3)) as { usage: { cost: number } };
    assert.ok(
      Math.abs(JSON.parse(out).total.cost - oracle.usage.cost) < 1e-12,
      "alone, a fork keeps what it inherited",
    );
    const future = JSON.parse((await cli("usage", ...agentDirs(), "--since", "2099-01-01", "--json")).out);
    assert.equal(future.total.cost, 0);
    assert.deepEqual(future.rows, []);
  });

  it("usage prints an aligned table with a totals row", async () => {
    const { code, out } = await cli("usage", ...agentDirs(), "--by", "day");
    assert.equal(code, 0);
    const lines = out.trimEnd().split("\n");
    assert.match(
      lines[0]!,
      /^day\s+input\s+output\s+cache read\s+cache write\s+total tokens\s+cost\s+active\s+inherited\s+msgs$/,
    );
    assert.match(lines.at(-1)!, /^TOTAL\s+[\d,]+\s+/);
    assert.equal(
      new Set(lines.filter((l) => !l.startsWith("─")).map((l) => l.length)).size <= 2,
      true,
      "columns are aligned",
    );
  });

  it("usage and list reject bad options with exit 64", async () => {
    assert.equal((await cli("usage", "--by", "fortnight")).code, 64);
    assert.equal((await cli("usage", "--since", "yesterday")).code, 64);
    assert.equal((await cli("list", "extra")).code, 64);
  });
});

describe("metadata cache encoding", () => {
  it("a packed summary round-trips through JSON to the same summary, for every fixture", () => {
    for (const file of [...PI_FIXTURES, ...OMP_FIXTURES]) {
      const summary = summarize(parseSession(file, readFileSync(file)));
      const back = unpackSummary(JSON.parse(JSON.stringify(packSummary(summary))));
      assert.deepEqual(plain(back), plain(summary), file);
      if (summary.ok && summary.entries.length) assert.ok("packed" in packSummary(summary), "packed");
    }
  });
});

describe("first-paint probe", () => {
  it("a probing listing opens each file its cache does not know once, and stats none of them", async () => {
    const home = mkdtempSync(join(tmpdir(), "pse-probe-"));
    cpSync(join(REAL, "pi"), join(home, ".pi", "agent"), { recursive: true });
    cpSync(join(REAL, "omp"), join(home, ".omp", "agent"), { recursive: true });
    try {
      const cacheFile = join(home, "cache", "store.json");
      const calls: string[] = [];
      const fs: StoreFs = {
        ...realFs,
        stat: (f) => (calls.push(`stat ${f}`), realFs.stat(f)),
        readEnds: (f, n) => (calls.push(`ends ${f}`), realFs.readEnds(f, n)),
        readSession: (f) => (calls.push(`read ${f}`), realFs.readSession(f)),
      };
      const load = () => {
        calls.length = 0;
        return loadStore({ roots: resolveRoots({ home, env: {} }), cacheFile, fs, probe: true });
      };
      const count = (op: string, file: string) => calls.filter((c) => c === `${op} ${file}`).length;
      const cold = await load();
      const files = cold.sessions.map((x) => x.file);
      assert.equal(files.length, 28);
      const large = files.filter((f) => statSync(f).size > 8192);
      assert.ok(large.length >= 3, `${large.length} files over the two 4 KB ends`);
      for (const f of files) {
        assert.equal(count("stat", f), 0, f);
        assert.equal(count("ends", f), 1, f);
        // A file no longer than its two ends is read whole; a larger one is probed.
        assert.equal(count("read", f), large.includes(f) ? 0 : 1, f);
      }
      assert.deepEqual(
        cold.partial.map((x) => x.file).sort(),
        [...large].sort(),
        "the large files are first-paint summaries",
      );
      await cold.complete();
      // Warm: each path stat'ed (an append must be seen), none opened.
      const warm = await load();
      for (const f of files) assert.deepEqual([count("stat", f), count("ends", f), count("read", f)], [1, 0, 0], f);
      // One file changed (a new time): known to the cache, so stat'ed, then probed again through one open.
      const grown = large[0]!;
      utimesSync(grown, new Date(), new Date(Date.now() + 5000));
      await load();
      assert.deepEqual([count("stat", grown), count("ends", grown)], [1, 1]);
      assert.equal(calls.filter((c) => c.startsWith("ends ")).length, 1);
      assert.equal(warm.sessions.length, 28);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("a summary from 3 KB of head and tail agrees with the full one on what it provides", () => {
    let probed = 0;
    for (const file of [...PI_FIXTURES, ...OMP_FIXTURES]) {
      const bytes = readFileSync(file);
      const full = summarize(parseSession(file, bytes));
      const p = probeSummary(
        file,
        bytes.subarray(0, 3072),
        bytes.subarray(Math.max(0, bytes.length - 3072)),
        bytes.length,
      );
      if (!p) continue;
      assert.ok(full.ok, file);
      probed++;
      assert.equal(p.partial, true);
      for (const k of ["id", "cwd", "created", "version"] as const) assert.deepEqual(p[k], full[k], `${file} ${k}`);
      assert.deepEqual(p.parentSession, full.parentSession, file);
      assert.equal(p.leafId, full.leafId, `${file} leaf`);
      if (full.flavor === "pi") assert.equal(p.model, full.model, `${file} model`);
      if (p.firstPrompt !== null) assert.equal(p.firstPrompt, full.firstPrompt, file);
      assert.deepEqual([p.entries.length, p.usage.length], [0, 0]);
    }
    assert.ok(probed >= 10, `${probed} fixtures probed`);
  });

  it("the tail's long lines are scanned, with what parsing them gives: bad, cut and CRLF lines, duplicate keys", () => {
    const pad = "p".repeat(800); // lines of about 1 KB: scanned (over 512 bytes), and the last three in the tail
    const lines = [
      header(),
      message("u1", null, "user", "hello there"),
      message("a1", "u1", "assistant", pad, { provider: "anthropic", model: "claude-a" }),
      ...Array.from({ length: 40 }, (_, i) => message(`f${i}`, i ? `f${i - 1}` : "a1", "user", pad)),
      message("a2", "f39", "assistant", pad, { provider: "openai", model: "gpt-x" }),
      toolResult("t2", "a2", "a2", "read", pad),
    ].map((r) => JSON.stringify(r));
    const probe = (all: string[], { eol = "\n", after = "" } = {}) => {
      const bytes = Buffer.from(all.join(eol) + eol + after);
      const p = probeSummary("s.jsonl", bytes.subarray(0, 4096), bytes.subarray(bytes.length - 4096), bytes.length);
      assert.ok(p, "probed");
      return { leaf: p.leafId, model: p.model, cut: p.truncatedTail, prompt: p.firstPrompt };
    };
    const expected = { leaf: "t2", model: "openai/gpt-x", cut: false, prompt: "hello there" };
    assert.deepEqual(probe(lines), expected);
    assert.deepEqual(probe(lines, { eol: "\r\n" }), expected, "CRLF");
    // Long lines that are no JSON are skipped, as the agents skip them.
    const broken = JSON.stringify(message("bad", "t2", "assistant", pad, { model: "evil" })).slice(0, -1);
    assert.deepEqual(probe([...lines, broken]), expected, "malformed");
    assert.deepEqual(probe(lines, { after: broken }), { ...expected, cut: true }, "cut last line");
    // JSON.parse keeps the last of two equal keys; so does the probe.
    const twice = lines.at(-1)!.replace('"id":"t2"', '"id":"first","id":"t2b"');
    assert.deepEqual(probe([...lines.slice(0, -1), twice]), { ...expected, leaf: "t2b" }, "duplicate id");
    const escaped = lines.at(-2)!.replace('"model":"gpt-x"', '"model":"gpt-\\u0078"');
    assert.deepEqual(probe([...lines.slice(0, -2), escaped, lines.at(-1)!]), expected, "escaped model");
    const numeric = lines.at(-2)!.replace('"model":"gpt-x"', '"model":7');
    assert.deepEqual(probe([...lines.slice(0, -2), numeric, lines.at(-1)!]), {
      ...expected,
      model: "anthropic/claude-a",
    });
  });
});
