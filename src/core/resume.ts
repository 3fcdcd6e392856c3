/**
 * The command that resumes a session in its agent: its executable and arguments, and the line typed into a shell,
 * quoted for that shell. A shell whose quoting we do not know (nu, xonsh, elvish…) gets no line: the caller runs
 * the agent directly, with no shell in between.
 */

/** Shells by quoting: POSIX shells, fish, PowerShell, cmd.exe; `unknown` for any other. */
export type ShellKind = "posix" | "fish" | "pwsh" | "cmd" | "unknown";

const POSIX_SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "busybox"]);

/** The kind of a shell from its executable's path (`/bin/zsh`, `C:\…\pwsh.exe`, `cmd.exe`). */
export function shellKindOf(shellPath: string | undefined): ShellKind {
  const name = (shellPath ?? "")
    .split(/[\\/]/)
    .pop()!
    .toLowerCase()
    .replace(/\.exe$/, "");
  if (POSIX_SHELLS.has(name)) return "posix";
  if (name === "fish") return "fish";
  if (name === "pwsh" || name === "powershell") return "pwsh";
  if (name === "cmd") return "cmd";
  return "unknown";
}

/** PowerShell reads these as single quotes too (and doubles any of them inside a quoted string). */
const PWSH_QUOTES = /['\u2018\u2019\u201a\u201b]/g;

/** One word quoted for `shell` when it needs it; null when it cannot be (cmd.exe and a `%` or `"`). */
function quoteWord(word: string, shell: Exclude<ShellKind, "unknown">): string | null {
  switch (shell) {
    case "posix":
      return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
    case "fish":
      // Inside fish's single quotes a backslash escapes `'` and `\`.
      return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/[\\']/g, "\\$&")}'`;
    case "pwsh":
      // No comma bare (PowerShell makes an array of it).
      return /^[\w./\\:+=-]+$/.test(word) ? word : `'${word.replace(PWSH_QUOTES, "$&$&")}'`;
    case "cmd":
      // cmd.exe expands `%VAR%` even inside double quotes, and has no escape for `"` there.
      if (/[%"]/.test(word)) return null;
      return /^[\w./\\:+=-]+$/.test(word) ? word : `"${word}"`;
  }
}

export interface ResumeArgs {
  executable: string;
  args: string[];
}

/** `pi --session <file>`, or OMP's `omp --resume <file>` (OMP reads `--resume`, `-r` and `--session` alike). */
export function resumeArgs(flavor: "pi" | "omp" | null, file: string, executable?: string): ResumeArgs {
  return {
    executable: executable?.trim() || (flavor === "omp" ? "omp" : "pi"),
    args: [flavor === "omp" ? "--resume" : "--session", file],
  };
}

/** The line to type into `shell`; null when that shell's quoting is not known or cannot hold a word. */
export function commandLine({ executable, args }: ResumeArgs, shell: ShellKind): string | null {
  if (shell === "unknown") return null;
  const words = [executable, ...args].map((w) => quoteWord(w, shell));
  if (words.some((w) => w === null)) return null;
  // PowerShell runs a quoted string as a command only through the call operator.
  if (shell === "pwsh" && words[0] !== executable) words[0] = `& ${words[0]}`;
  return words.join(" ");
}

/**
 * The shell Copy Resume Command quotes for: the user's default terminal shell when its quoting is known; else
 * PowerShell on Windows (its default terminal there, where POSIX quotes would not hold) and POSIX elsewhere.
 */
export function clipboardShell(defaultShell: ShellKind, windows: boolean): Exclude<ShellKind, "unknown"> {
  if (defaultShell !== "unknown") return defaultShell;
  return windows ? "pwsh" : "posix";
}

/** The resume command for a POSIX shell (the CLI's and the tree's tooltip).*/
export function resumeCommand(flavor: "pi" | "omp" | null, file: string): string {
  return commandLine(resumeArgs(flavor, file), "posix")!;
}

/** A control character (a newline would end the command line typed into a terminal). */
export function hasControlCharacters(text: string): boolean {
  return /[\u0000-\u001f\u007f-\u009f]/.test(text);
}
