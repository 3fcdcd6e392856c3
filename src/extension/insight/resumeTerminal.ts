/**
 * "Resume in Terminal": an integrated terminal in the session's cwd running `pi --session <file>` (or `omp --resume
 * <file>`), quoted for the terminal's shell, with the agent's executable from the settings. Refused in Restricted
 * Mode: it runs a program a setting names.
 */
import { existsSync, statSync } from "node:fs";
import * as vscode from "vscode";
import which from "which";
import { commandLine, hasControlCharacters, resumeArgs, shellKindOf } from "../../core/resume.js";
import { oneLine, truncate } from "../../protocol/format.js";
import { type StoreSession } from "../../node/store/index.js";
import { targetOf } from "../commands/target.js";
import type { Command } from "../commands/command.js";
import { CommandId } from "../ids.js";
import { pickSession } from "../panelCommands.js";
import type { SessionService } from "../service.js";
import { displayTitle } from "../titles.js";

/**
 * The session's folder, when it is an existing local directory. A UNC path (`\\host\share`) is not even looked at:
 * asking Windows about it would connect to that host.
 */
function localDirectory(path: string | null): string | undefined {
  if (!path || /^[\\/]{2}/.test(path)) return undefined;
  try {
    return existsSync(path) && statSync(path).isDirectory() ? path : undefined;
  } catch {
    return undefined;
  }
}

/** The terminal's name: the agent and the session's title, one line, short. */
function terminalName(s: StoreSession): string {
  const agent = s.summary.ok && s.summary.flavor === "omp" ? "omp" : "pi";
  return `${agent}: ${truncate(oneLine(displayTitle(s)), 40)}`;
}

async function resumeInTerminal(s: StoreSession): Promise<vscode.Terminal | undefined> {
  if (!vscode.workspace.isTrusted)
    throw new Error(
      vscode.l10n.t("Resume in Terminal runs the agent, which needs a trusted workspace (Restricted Mode is on)"),
    );
  if (!s.summary.ok) throw new Error(vscode.l10n.t("{0} is not a readable session", s.file));
  const flavor = s.summary.flavor;
  // A newline in the path would end the command line typed into the shell.
  if (hasControlCharacters(s.file))
    throw new Error(vscode.l10n.t("The session's path holds control characters; use Copy Resume Command instead"));
  const executable = await checkedExecutable(flavor === "omp" ? "omp" : "pi");
  if (executable === undefined) return undefined;
  const resume = resumeArgs(flavor, s.file, executable);
  const line = commandLine(resume, shellKindOf(vscode.env.shell));
  // Without a shell, Windows starts only a .exe or .com, and a .cmd goes through cmd.exe with its own rules: there the
  // agent is never started without a line we could quote.
  if (line === null && process.platform === "win32")
    throw new Error(
      vscode.l10n.t(
        "Resume in Terminal cannot quote this session's path for the terminal's shell; use Copy Resume Command instead",
      ),
    );
  const options: vscode.TerminalOptions = {
    name: terminalName(s),
    cwd: localDirectory(s.summary.cwd),
    iconPath: new vscode.ThemeIcon("terminal"),
  };
  // A shell whose quoting we know gets the typed line (the shell stays when the agent exits); any other runs the
  // agent directly, its arguments passed as they are.
  const terminal = vscode.window.createTerminal(
    line === null ? { ...options, shellPath: resume.executable, shellArgs: resume.args } : options,
  );
  terminal.show();
  if (line !== null) terminal.sendText(line, true);
  return terminal;
}

/**
 * The agent's executable from its setting, found before a terminal runs it (the setting's path, else a name on
 * `PATH`): when it is not there the user chooses the executable, opens the setting, or runs it anyway (a shell's
 * startup files may add to `PATH` what the extension host does not see). Undefined: cancelled.
 */
async function checkedExecutable(agent: "pi" | "omp"): Promise<string | undefined> {
  const key = agent === "omp" ? "ompPath" : "piPath";
  const config = vscode.workspace.getConfiguration("piSessions");
  const executable = config.get<string>(key, agent).trim() || agent;
  if (await which(executable, { nothrow: true })) return executable;
  const choose = vscode.l10n.t("Choose the Executable…");
  const setting = vscode.l10n.t("Open Setting");
  const anyway = vscode.l10n.t("Run Anyway");
  const answer = await vscode.window.showWarningMessage(
    vscode.l10n.t(
      "{0} was not found (setting piSessions.{1}, then PATH). Choose where {2} is installed, or run it anyway.",
      JSON.stringify(executable),
      key,
      agent,
    ),
    choose,
    setting,
    anyway,
  );
  if (answer === anyway) return executable;
  if (answer === setting) {
    await vscode.commands.executeCommand("workbench.action.openSettings", `piSessions.${key}`);
    return undefined;
  }
  if (answer !== choose) return undefined;
  const picked = await vscode.window.showOpenDialog({
    title: vscode.l10n.t("Where is {0}?", agent),
    canSelectFiles: true,
    canSelectFolders: false,
    canSelectMany: false,
  });
  const path = picked?.[0]?.fsPath;
  if (!path) return undefined;
  await config.update(key, path, vscode.ConfigurationTarget.Global);
  return path;
}

export function resumeCommand(service: SessionService): Command {
  return {
    id: CommandId.ResumeInTerminal,
    execute: async (arg?: unknown) => {
      await service.ensureStarted();
      const file =
        targetOf(arg).file ?? (await pickSession(service, vscode.l10n.t("Resume which session in a terminal?")))?.file;
      if (!file) return undefined;
      return resumeInTerminal(service.resolve(file));
    },
  };
}
