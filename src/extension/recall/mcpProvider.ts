/**
 * Offers `pi-sessions mcp` to VS Code's own MCP client where the editor takes server definitions from extensions
 * (VS Code 1.101 and later; the engine stays ^1.100, so the API is looked up, not assumed). The server is this
 * extension's dist/mcpServer.cjs run by the editor's own runtime as Node, over the agent folders of the settings; its
 * default scope is the folders the editor names as its roots.
 */
import { join } from "node:path";
import * as vscode from "vscode";
import { McpProviderId } from "../ids.js";
import type { Logger } from "../logging.js";
import { readSettings } from "../service.js";

interface McpProviderApi {
  registerMcpServerDefinitionProvider?: (
    id: string,
    provider: { onDidChangeMcpServerDefinitions?: vscode.Event<void>; provideMcpServerDefinitions: () => unknown[] },
  ) => vscode.Disposable;
}
type StdioDefinition = new (
  label: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  version?: string,
) => unknown;

/** The server's command line: the editor's runtime as Node, the bundle, the agent folders of the settings. */
export function mcpServerCommand(extensionPath: string): {
  command: string;
  args: string[];
  env: Record<string, string>;
} {
  const dirs = readSettings().agentDirs.flatMap((d) => ["--agent-dir", d]);
  return {
    command: process.execPath,
    args: [join(extensionPath, "dist", "mcpServer.cjs"), ...dirs],
    // The desktop editor's runtime is Electron: this runs it as plain Node (ignored by Node itself).
    env: { ELECTRON_RUN_AS_NODE: "1" },
  };
}

/** The API is stable from VS Code 1.101 (1.100 has a proposed form of it, which a published extension cannot use). */
function stableApi(): boolean {
  const [major = 0, minor = 0] = vscode.version.split(".").map(Number);
  return major > 1 || (major === 1 && minor >= 101);
}

export function registerMcpProvider(context: vscode.ExtensionContext, logger: Logger): vscode.Disposable[] {
  const lm = vscode.lm as unknown as McpProviderApi | undefined;
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: StdioDefinition }).McpStdioServerDefinition;
  if (!stableApi() || typeof lm?.registerMcpServerDefinitionProvider !== "function" || !Definition) return [];
  const changed = new vscode.EventEmitter<void>();
  const version = String((context.extension.packageJSON as { version?: unknown }).version ?? "");
  let provider: vscode.Disposable;
  try {
    provider = lm.registerMcpServerDefinitionProvider(McpProviderId, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => {
        const { command, args, env } = mcpServerCommand(context.extensionPath);
        return [new Definition(vscode.l10n.t("Pi Sessions"), command, args, env, version)];
      },
    });
  } catch (err) {
    // An editor that refuses it (a fork without MCP) loses only this offer: the tools above still work.
    logger.warn(`the MCP server is not offered to this editor: ${err instanceof Error ? err.message : String(err)}`);
    changed.dispose();
    return [];
  }
  return [
    changed,
    provider,
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("piSessions.agentDirs")) changed.fire();
    }),
  ];
}
