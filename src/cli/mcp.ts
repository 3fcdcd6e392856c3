/**
 * `pi-sessions mcp`: resolves the roots, the cache and the workers, then runs the server module (dist/mcpServer.cjs
 * in the bundle, loaded only for this command: the MCP SDK is most of its size).
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheDir } from "../node/cacheDir.js";
import { resolveRoots } from "../node/roots.js";
import { EXIT_OK, type Io, text } from "./args.js";

interface McpValues {
  agentDir?: string[];
  sessionDir?: string[];
  workspace?: string[];
  cache?: boolean;
}

type ServerModule = typeof import("./mcpEntry.js");

/** The bundled module beside cli.js, or its source when run from source (tests). */
function beside(bundled: string, source: string): string {
  const file = fileURLToPath(new URL(bundled, import.meta.url));
  return existsSync(file) ? file : fileURLToPath(new URL(source, import.meta.url));
}

const expandHome = (p: string) => (p === "~" || p.startsWith("~/") ? resolve(homedir(), p.slice(2)) : resolve(p));

export async function mcpCommand(values: McpValues, version: string, io: Io): Promise<number> {
  const loaded = (await import("./mcpEntry.js")) as Partial<ServerModule> & { default?: ServerModule };
  const { runMcpServer } = loaded.default ?? (loaded as ServerModule);
  const summaryWorker = fileURLToPath(new URL("./summaryWorker.cjs", import.meta.url));
  await runMcpServer({
    roots: resolveRoots({ agentDirs: values.agentDir, sessionDirs: values.sessionDir }),
    cacheDir: cacheDir(),
    useCache: values.cache !== false,
    workspace: (values.workspace ?? []).map(expandHome),
    searchWorker: beside("./searchWorker.cjs", "../node/search/searchWorker.ts"),
    ...(existsSync(summaryWorker) ? { summaryWorker } : {}),
    version,
    log: (message) => text(io).err(message),
  });
  return EXIT_OK;
}
