/** `pi-sessions mcp`. */
import type { Command } from "commander";
import { type CliContext, collect, STORE_HELP, example } from "./shared.js";
export function defineMcp(program: Command, { io, version, done }: CliContext): void {
  example(
    program
      .command("mcp")
      .summary("serve the recall tools to agents over the Model Context Protocol (stdio)")
      .description(
        "An MCP server on stdin/stdout with five read-only tools: search_sessions, read_session, list_sessions, " +
          "file_history and session_usage. Agents (pi with pi-mcp, Oh My Pi, Claude Code, VS Code) call them to " +
          "search and read their earlier sessions. Only sessions under the agent dirs are reachable. A call covers " +
          "the workspace (--workspace, else the folders the client names as its roots) unless it asks for all. " +
          "The search index is the one `pi-sessions search` keeps, brought up to date before each search; logs go " +
          `to stderr.\n\n${STORE_HELP}`,
      )
      .option("--agent-dir <dir>", "read this agent dir instead of the defaults (repeatable)", collect)
      .option("--session-dir <dir>", "also read this flat session dir (repeatable)", collect)
      .option("--workspace <path>", "the default scope of every call: sessions of this folder (repeatable)", collect)
      .option("--no-cache", "bypass the metadata cache")
      .action(async (o) => done(await (await import("../mcp.js")).mcpCommand(o, version, io))),
    ["pi-sessions mcp", "pi-sessions mcp --workspace ~/src/app --agent-dir ~/.pi/agent"],
  );
}
