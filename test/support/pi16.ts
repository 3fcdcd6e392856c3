/**
 * The real pi 1.6.0 as an oracle: test/oracles/pi16/oracle.mjs run by the Node 22 installed next to it
 * (scripts/oracles/pi16.mjs installs both; `npm test` runs it first). A missing install fails the test that needs it,
 * naming the command that fixes it: no test is skipped for it.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const HOME = join(import.meta.dirname, "..", "oracles", "pi16");
const NODE22 = join(HOME, "node_modules", "node", "bin", "node");

export interface Pi16Projection {
  entries: { id: string; type: string; messages: unknown[] }[];
  thinkingLevel: string;
  model: { provider: string; modelId: string } | null;
}

export interface Pi16Answer {
  file: string;
  leafId: string | null;
  active: Pi16Projection;
  at: Record<string, Pi16Projection>;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  cost: number;
  breakdown: { key: string; cost: number; tokens: number }[];
}

type Pi16Request =
  | { op: "read"; files: string[] }
  | { op: "build"; dir: string; programs: unknown[] }
  | { op: "prepare"; files: string[]; keeps: number[]; leaves?: Record<string, string[]> }
  /** The entries in the order pi's /tree lists them. */
  | { op: "treeOrder"; files: string[] }
  /** The session's name and every entry's label (`Pi16Names`). */
  | { op: "names"; files: string[] }
  /** pi's own MCP client (`Pi16Mcp`): the server started, its tools listed, the calls made. */
  | {
      op: "mcp";
      command: string;
      args: string[];
      env: Record<string, string>;
      roots: { uri: string; name: string }[];
      calls: { name: string; arguments: Record<string, unknown> }[];
    };

export interface Pi16Mcp {
  tools: { name: string; inputSchema: Record<string, unknown> }[];
  /** Each call's answer as pi gives it to the model. */
  results: { isError: boolean; content: { type: string; text?: string }[] }[];
}

export interface Pi16Names {
  file: string;
  name: string | null;
  labels: Record<string, string>;
}

export function askPi16<T = Pi16Answer>(request: Pi16Request): T[] {
  if (!existsSync(NODE22) || !existsSync(join(HOME, "node_modules", "@earendil-works", "pi-coding-agent")))
    throw new Error(`pi 1.6.0 and Node 22 are not installed in ${HOME}: run node scripts/oracles/pi16.mjs`);
  const out = execFileSync(NODE22, [join(HOME, "oracle.mjs")], {
    input: JSON.stringify(request),
    maxBuffer: 1 << 30,
    env: { ...process.env, PI_CODING_AGENT_DIR: join(request.op === "build" ? request.dir : HOME, ".pi-agent") },
  });
  return JSON.parse(out.toString("utf8")) as T[];
}
