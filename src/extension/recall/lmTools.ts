/**
 * The recall tools as VS Code language-model tools (`contributes.languageModelTools`), for agent mode and any chat
 * participant: the same tools and answers as `pi-sessions mcp`, from the extension's loaded library and index. A
 * call that reaches beyond this window's folders (every project's sessions, another folder, a session of another
 * project) asks the user first: it puts text of other projects in front of the model.
 */
import * as vscode from "vscode";
import * as z from "zod";
import { hostPaths } from "../../node/roots.js";
import { belongsToWorkspace } from "../../node/store/index.js";
import { callTool, findSession, TOOL_NAMES, TOOLS, type ToolName } from "../../node/recall/tools.js";
import type { ExtensionRecallSource } from "./recallSource.js";

/** What a call reaches beyond the window's folders, in words; null when it stays inside them. */
async function beyondWorkspace(name: ToolName, input: Record<string, unknown>, source: ExtensionRecallSource) {
  const folders = await source.workspace();
  const host = hostPaths();
  if (typeof input.workspace === "string" && !folders.includes(input.workspace))
    return vscode.l10n.t("the sessions of {0}", input.workspace);
  if (input.scope === "all" || (!folders.length && name !== "read_session"))
    return vscode.l10n.t("the sessions of every project");
  if (name === "read_session" && typeof input.session === "string") {
    // The session the call will read, found by the tool's own rule (a call it would refuse asks nothing).
    let s;
    try {
      s = findSession(await source.sessions(), input.session, source.rootDirs());
    } catch {
      return null;
    }
    if (!folders.some((f) => belongsToWorkspace(s, f, host)))
      return vscode.l10n.t("a session of another project ({0})", s.summary.ok ? (s.summary.cwd ?? s.file) : s.file);
  }
  return null;
}

function progressMessage(name: ToolName, input: Record<string, unknown>): string {
  switch (name) {
    case "search_sessions":
      return vscode.l10n.t("Searching Pi sessions for {0}", JSON.stringify(String(input.query ?? "")));
    case "read_session":
      return vscode.l10n.t("Reading Pi session {0}", String(input.session ?? ""));
    case "list_sessions":
      return vscode.l10n.t("Listing Pi sessions");
    case "file_history":
      return vscode.l10n.t("Finding the agent turns that touched {0}", String(input.path ?? ""));
    case "session_usage":
      return vscode.l10n.t("Adding up Pi session usage");
  }
}

function tool(name: ToolName, source: ExtensionRecallSource): vscode.LanguageModelTool<Record<string, unknown>> {
  const schema = z.object(TOOLS[name].input).strict();
  return {
    async prepareInvocation(options) {
      const beyond = await beyondWorkspace(name, options.input, source);
      return {
        invocationMessage: progressMessage(name, options.input),
        ...(beyond
          ? {
              confirmationMessages: {
                title: vscode.l10n.t("Let the agent read other projects' sessions?"),
                message: vscode.l10n.t("{0} reads {1}, outside this window's folders.", TOOLS[name].title, beyond),
              },
            }
          : {}),
      };
    },
    async invoke(options) {
      // VS Code checks the input against package.json's schema; checked again here, by the tool's own.
      const args = schema.safeParse(options.input);
      if (!args.success)
        throw new Error(`${name}: ${args.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
      const answer = await callTool(name, args.data, source);
      // A tool error is thrown with its message: VS Code gives it to the model as the tool's failure.
      if (answer.isError) throw new Error(answer.text);
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(answer.text)]);
    },
  };
}

/** Register every recall tool (`vscode.lm` is missing in editors without language-model support: nothing then). */
export function registerRecallTools(source: ExtensionRecallSource): vscode.Disposable[] {
  if (typeof vscode.lm?.registerTool !== "function") return [];
  return TOOL_NAMES.map((name) => vscode.lm.registerTool(name, tool(name, source)));
}
