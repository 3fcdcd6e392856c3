/**
 * Bench rows of the recall tools (issue #37), over the bench store and the 100 MB session, each against a baseline of
 * the same run: `pi-sessions mcp` from its start to the first `tools/list` answer (a real MCP client over stdio)
 * against the same CLI answering `--version`; a warm `search_sessions` in process against the index's own query; and
 * `read_session` windows of the 100 MB session against its full parse. Run alone:
 * `node --import tsx bench/recall.ts STORE_DIR SESSION.jsonl` (after `npm run build`).
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { parseQuery } from "../src/core/search/query.js";
import { parseSession } from "../src/core/session/index.js";
import { resolveRoots } from "../src/node/roots.js";
import { StoreSource } from "../src/node/recall/storeSource.js";
import { callTool } from "../src/node/recall/tools.js";
import { SearchIndex } from "../src/node/search/searchIndex.js";
import { medianOf, ms, type Row } from "./row.js";

const QUERIES = ["the", "error", '"the file"', "impl*", "bash tool:bash", "zzzznotthere", "const value", "test"];

function timed(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

async function startToList(cli: string, agentDir: string, cache: string): Promise<number> {
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, "mcp", "--agent-dir", agentDir],
    env: { ...(process.env as Record<string, string>), PI_SESSIONS_CACHE_DIR: cache },
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  await client.listTools();
  const t = performance.now() - t0;
  await client.close();
  return t;
}

export async function recallRows(root: string, storeDir: string, big: string): Promise<Row[]> {
  const cli = join(root, "dist", "cli.js");
  const cache = mkdtempSync(join(tmpdir(), "pi-bench-recall-"));
  const rows: Row[] = [];
  try {
    const starts: number[] = [];
    for (let i = 0; i < 5; i++) starts.push(await startToList(cli, storeDir, cache));
    const version = medianOf(
      [0, 1, 2].map(() => timed(() => execFileSync(process.execPath, [cli, "--version"], { stdio: "ignore" }))),
    );
    rows.push({
      n: 37,
      measure: "pi-sessions mcp: start to the first tools/list answer (a real MCP client, stdio), median of 5",
      value: `${ms(medianOf(starts))} ms`,
      baseline: `pi-sessions --version ${ms(version)} ms`,
      ratio: `${(medianOf(starts) / version).toFixed(2)}×`,
      goal: "well under 1 s",
      met: medianOf(starts) < 500,
    });

    // Warm search in process: the index built once (the CLI's), then each query as a tool call and as the index's
    // own query.
    const source = new StoreSource({
      roots: resolveRoots({ agentDirs: [storeDir] }),
      cacheDir: cache,
      useCache: true,
      searchWorker: join(root, "dist", "searchWorker.cjs"),
      workspace: () => Promise.resolve([]),
    });
    const t0 = performance.now();
    let first = await callTool("search_sessions", { query: "the" }, source);
    while (first.text.includes('"partial": true')) first = await callTool("search_sessions", { query: "the" }, source);
    const buildMs = performance.now() - t0;
    const tool: number[] = [];
    for (let pass = 0; pass < 3; pass++)
      for (const q of QUERIES) {
        const t = performance.now();
        await callTool("search_sessions", { query: q, limit: 10 }, source);
        tool.push(performance.now() - t);
      }
    const index = await SearchIndex.open(cache, resolveRoots({ agentDirs: [storeDir] }));
    const raw: number[] = [];
    for (let pass = 0; pass < 3; pass++)
      for (const q of QUERIES) {
        const parsed = parseQuery(q);
        if (parsed.ok) raw.push(timed(() => index.query(parsed, { limit: 10 })));
      }
    index.close();
    rows.push({
      n: 37,
      measure:
        `search_sessions in process, warm, median of ${tool.length} ` +
        `(${QUERIES.length} queries; first build ${(buildMs / 1000).toFixed(1)} s)`,
      value: `${ms(medianOf(tool))} ms (max ${ms(Math.max(...tool))})`,
      baseline: `the index's own query ${ms(medianOf(raw))} ms`,
      ratio: `${(medianOf(tool) / medianOf(raw)).toFixed(2)}×`,
      goal: "≤ 100 ms",
      met: medianOf(tool) <= 100,
    });
    await source.dispose();

    // read_session windows of the 100 MB session: the first (the session read), then the next ones (its model kept).
    const bigDir = join(cache, "big");
    mkdirSync(join(bigDir, "sessions", "--bench-big--"), { recursive: true });
    // A copy: the store lists regular files only (a symbolic link is not followed).
    copyFileSync(big, join(bigDir, "sessions", "--bench-big--", basename(big)));
    const bigSource = new StoreSource({
      roots: resolveRoots({ agentDirs: [bigDir] }),
      cacheDir: cache,
      useCache: true,
      searchWorker: join(root, "dist", "searchWorker.cjs"),
      workspace: () => Promise.resolve([]),
    });
    const file = join(bigDir, "sessions", "--bench-big--", basename(big));
    let t = performance.now();
    let answer = await callTool("read_session", { session: file, maxChars: 20_000 }, bigSource);
    if (answer.isError) throw new Error(answer.text);
    const firstWindow = performance.now() - t;
    const windows: number[] = [];
    let longest = answer.text.length;
    for (let i = 0; i < 10 && (answer.data as { next: string | null }).next; i++) {
      t = performance.now();
      answer = await callTool(
        "read_session",
        { session: file, from: (answer.data as { next: string }).next },
        bigSource,
      );
      windows.push(performance.now() - t);
      longest = Math.max(longest, answer.text.length);
    }
    await bigSource.dispose();
    const parse = timed(() => parseSession(big, readFileSync(big), { validate: false }));
    rows.push({
      n: 37,
      measure:
        "read_session of the 100 MB session: first window (the session read), " +
        `then median of ${windows.length} next windows`,
      value: `${ms(firstWindow)} ms, then ${ms(medianOf(windows))} ms; longest answer ${longest} characters`,
      baseline: `full parse ${ms(parse)} ms`,
      ratio: `${(medianOf(windows) / parse).toFixed(3)}× a parse per window`,
      goal: "≤ maxChars (20,000)",
      met: longest <= 20_000,
    });
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1]?.endsWith("recall.ts")) {
  const [storeDir, big] = process.argv.slice(2);
  if (!storeDir || !big) throw new Error("usage: node --import tsx bench/recall.ts STORE_DIR SESSION.jsonl");
  const rows = await recallRows(join(import.meta.dirname, ".."), storeDir, big);
  const met = (r: Row) => (r.met === null ? "" : r.met ? "yes" : "**no**");
  for (const r of rows)
    console.log(`| ${r.n} | ${r.measure} | ${r.value} | ${r.baseline} | ${r.ratio} | ${r.goal} | ${met(r)} |`);
}
