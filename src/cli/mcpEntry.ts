/**
 * The MCP server's bundle (dist/mcpServer.cjs): what `pi-sessions mcp` loads, and a program of its own that VS Code
 * starts as the stdio server it offers (`node dist/mcpServer.cjs --agent-dir DIR … [--workspace DIR …]`).
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cacheDir } from "../node/cacheDir.js";
import { resolveRoots } from "../node/roots.js";
import { runMcpServer } from "./mcpServer.js";

export { runMcpServer };

declare const __PI_SESSIONS_VERSION__: string | undefined;

/** Run as a program: the options VS Code's server definition passes. */
async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      "agent-dir": { type: "string", multiple: true },
      workspace: { type: "string", multiple: true },
    },
  });
  await runMcpServer({
    roots: resolveRoots({ agentDirs: values["agent-dir"]?.length ? values["agent-dir"] : undefined }),
    cacheDir: cacheDir(),
    useCache: true,
    workspace: values.workspace ?? [],
    searchWorker: join(__dirname, "searchWorker.cjs"),
    summaryWorker: join(__dirname, "summaryWorker.cjs"),
    version: typeof __PI_SESSIONS_VERSION__ === "string" ? __PI_SESSIONS_VERSION__ : "0.0.0-dev",
    log: (message) => process.stderr.write(`${message}\n`),
  });
}

// Only the CommonJS bundle run as a program has a `require.main` that is its own module.
declare const module: unknown;
if (typeof require !== "undefined" && typeof module !== "undefined" && require.main === module)
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`pi-sessions mcp: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
