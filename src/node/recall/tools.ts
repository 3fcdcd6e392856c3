/**
 * The recall tools, one entry point for both front doors: a call by name with arguments already checked against
 * the tool's schema (src/node/recall/schemas.ts) answers from a `RecallSource`. A refusal or a failure is a tool
 * error with a message, never a throw: an MCP server or an extension host must not fall over on one call.
 */
import { errorAnswer, RecallError, type ToolAnswer } from "./answer.js";
import { readSession } from "./readTool.js";
import type { FileHistoryArgs, ListArgs, ReadArgs, SearchArgs, ToolName, UsageArgs } from "./schemas.js";
import { searchSessions } from "./searchTool.js";
import type { RecallSource } from "./source.js";
import { fileHistory, listSessions, sessionUsage } from "./storeTools.js";

type Handlers = { [N in ToolName]: (args: never, source: RecallSource) => Promise<ToolAnswer> };

const HANDLERS: Handlers = {
  search_sessions: searchSessions as (args: SearchArgs, source: RecallSource) => Promise<ToolAnswer>,
  read_session: readSession as (args: ReadArgs, source: RecallSource) => Promise<ToolAnswer>,
  list_sessions: listSessions as (args: ListArgs, source: RecallSource) => Promise<ToolAnswer>,
  file_history: fileHistory as (args: FileHistoryArgs, source: RecallSource) => Promise<ToolAnswer>,
  session_usage: sessionUsage as (args: UsageArgs, source: RecallSource) => Promise<ToolAnswer>,
};

export async function callTool(name: ToolName, args: unknown, source: RecallSource): Promise<ToolAnswer> {
  try {
    return await (HANDLERS[name] as (a: unknown, s: RecallSource) => Promise<ToolAnswer>)(args, source);
  } catch (err) {
    if (err instanceof RecallError) return errorAnswer(`${name}: ${err.message}`);
    const reason = err instanceof Error ? err.message : String(err);
    return errorAnswer(`${name} failed: ${reason}`);
  }
}

export { TOOL_NAMES, TOOLS, type ToolName } from "./schemas.js";
export type { ToolAnswer } from "./answer.js";
export { findSession, type RecallSearchAnswer, type RecallSource } from "./source.js";
