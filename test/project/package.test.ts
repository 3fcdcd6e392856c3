// `pi-sessions` as an npm package (issue #15): `npm pack` gives a tarball that holds only the self-contained CLI
// bundle and the documents, needs no runtime dependency, and installs a working `pi-sessions` globally (into a
// temporary prefix, as `npm install -g ./pi-session-explorer-<version>.tgz` would). Needs `npm run build` first.
import * as assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { withTempDir } from "../support/helpers.js";

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  dependencies?: Record<string, string>;
  private?: boolean;
};
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

describe("the npm package", function () {
  this.timeout(120_000);

  it("packs the CLI bundle, its workers, exporters and MCP server, its SQLite and the documents; no dependency", () => {
    assert.equal(pkg.private, undefined, "a private package cannot be published");
    assert.deepEqual(pkg.dependencies ?? {}, {}, "the CLI bundle is self-contained: no runtime dependencies");
    assert.deepEqual(pkg.bin, { "pi-sessions": "dist/cli.js" });
    const [packed] = JSON.parse(execFileSync(npm, ["pack", "--dry-run", "--json"], { encoding: "utf8" })) as {
      files: { path: string }[];
    }[];
    assert.deepEqual(packed!.files.map((f) => f.path).sort(), [
      "CHANGELOG.md",
      "LICENSE",
      "README.md",
      "dist/cli.js",
      "dist/exportRender.cjs",
      "dist/mcpServer.cjs",
      "dist/node-sqlite3-wasm.wasm",
      "dist/searchWorker.cjs",
      "dist/summaryWorker.cjs",
      "dist/team.cjs",
      "package.json",
    ]);
  });

  it("installs globally from the tarball; pi-sessions --version, list and search run", () => {
    withTempDir((dir) => {
      execFileSync(npm, ["pack", "--pack-destination", dir, "--silent"], { encoding: "utf8" });
      const tarball = join(dir, `${pkg.name}-${pkg.version}.tgz`);
      assert.ok(existsSync(tarball), tarball);
      const prefix = join(dir, "prefix");
      execFileSync(npm, ["install", "-g", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", tarball], {
        encoding: "utf8",
        env: { ...process.env, npm_config_cache: join(dir, "npm-cache") },
      });
      const bin = join(prefix, "bin", "pi-sessions");
      assert.ok(existsSync(bin), "the bin link is installed");
      // `prepack` builds the production CLI: minified, and pointing at no source map the tarball lacks.
      const installed = readFileSync(join(prefix, "lib", "node_modules", pkg.name, "dist", "cli.js"), "utf8");
      assert.ok(!installed.includes("sourceMappingURL"), "no source map reference");
      // Minified: a few hundred lines (the development build has about 30,000), and about half a megabyte.
      const lines = installed.split("\n").length;
      assert.ok(lines < 2_000, `minified (${lines} lines)`);
      // The team database's client (pg) is a bundle apart (dist/team.cjs);
      // the OpenAI SDK (about 150 KB) is the largest part.
      assert.ok(installed.length < 640_000, `the CLI bundle stays small (${installed.length} bytes)`);
      const version = spawnSync(bin, ["--version"], { encoding: "utf8" });
      assert.equal(version.status, 0, version.stderr);
      assert.equal(version.stdout.trim(), pkg.version);
      const list = spawnSync(bin, ["list", "--agent-dir", "fixtures/real/pi", "--no-cache", "--json"], {
        encoding: "utf8",
      });
      assert.equal(list.status, 0, list.stderr);
      const sessions = (JSON.parse(list.stdout) as { sessions: { file: string }[] }).sessions;
      assert.ok(sessions.length > 0);
      assert.ok(sessions.every((s) => s.file.includes("fixtures/real/pi/")));
      // search loads its SQLite (WebAssembly) from the installed package, and only search does.
      const search = spawnSync(bin, ["search", "median", "--agent-dir", "fixtures/real/pi", "--no-cache", "--json"], {
        encoding: "utf8",
      });
      assert.equal(search.status, 0, search.stderr);
      assert.ok((JSON.parse(search.stdout) as { hits: unknown[] }).hits.length > 0);
      // The worker of parallel cold reads, as installed, summarizes a file and answers.
      const workerFile = join(prefix, "lib", "node_modules", pkg.name, "dist", "summaryWorker.cjs");
      const fixture = join(process.cwd(), "fixtures", "real", "pi", "sessions");
      const probe = spawnSync(
        process.execPath,
        [
          "-e",
          [
            'const { Worker } = require("node:worker_threads");',
            'const fs = require("node:fs"), path = require("node:path");',
            `const dir = ${JSON.stringify(fixture)};`,
            'const files = fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith(".jsonl"))',
            "  .map((f) => path.join(dir, f));",
            'const workerData = { files, mode: "usage", next: new SharedArrayBuffer(4) };',
            `const w = new Worker(${JSON.stringify(workerFile)}, { workerData });`,
            "let n = 0;",
            'w.on("message", (batch) => { n += batch.length; });',
            'w.on("exit", () => console.log(n === files.length && n > 0 ? "ok" : `missing ${n}/${files.length}`));',
          ].join("\n"),
        ],
        { encoding: "utf8" },
      );
      assert.equal(probe.stdout.trim(), "ok", probe.stderr);
      // export loads its renderer (markdown-it, highlight.js) from next to cli.js, only when it exports.
      const fixture0 = readdirSync(fixture, { recursive: true })
        .map(String)
        .find((f) => f.endsWith(".jsonl"))!;
      const html = spawnSync(bin, ["export", join(fixture, fixture0), "--format", "html", "--no-cache"], {
        encoding: "utf8",
      });
      assert.equal(html.status, 0, html.stderr);
      assert.match(html.stdout, /^<!DOCTYPE html>[\s\S]*<div class="markdown">/);
      // mcp loads its server (the MCP SDK) from next to cli.js: it answers initialize and tools/list, then ends with
      // its input.
      const rpc = (id: number, method: string, params: unknown) =>
        JSON.stringify({ jsonrpc: "2.0", id, method, params });
      const mcp = spawnSync(bin, ["mcp", "--agent-dir", "fixtures/real/pi", "--no-cache"], {
        encoding: "utf8",
        input: [
          rpc(1, "initialize", {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          }),
          JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
          rpc(2, "tools/list", {}),
          "",
        ].join("\n"),
        timeout: 30_000,
      });
      assert.equal(mcp.status, 0, mcp.stderr);
      const listed = mcp.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id: number; result?: { tools?: { name: string }[] } })
        .find((m) => m.id === 2);
      assert.deepEqual(listed?.result?.tools?.map((t) => t.name).sort(), [
        "file_history",
        "list_sessions",
        "read_session",
        "search_sessions",
        "session_usage",
      ]);
      const help = spawnSync(bin, ["usage", "--help"], { encoding: "utf8" });
      assert.equal(help.status, 0);
      assert.match(help.stdout, /^Usage: pi-sessions usage/);
    });
  });
});
