/** The shell command that resumes a session in its agent, quoted for the shell that will run it. */

/** The shells whose quoting differs: POSIX shells (bash, zsh, fish for these cases), PowerShell, and cmd.exe. */
export type ShellKind = "posix" | "pwsh" | "cmd";

/** The kind of a shell from its executable's path (`/bin/zsh`, `C:\…\pwsh.exe`, `cmd.exe`). */
export function shellKindOf(shellPath: string | undefined): ShellKind {
  const name = (shellPath ?? "").split(/[\\/]/).pop()!.toLowerCase();
  if (/^(pwsh|powershell)(\.exe)?$/.test(name)) return "pwsh";
  if (/^cmd(\.exe)?$/.test(name)) return "cmd";
  return "posix";
}

/** Quote one word for `shell` when it needs it. */
function shellQuote(word: string, shell: ShellKind = "posix"): string {
  if (shell === "pwsh") return /^[\w.,:/\\+=-]+$/.test(word) ? word : `'${word.replace(/'/g, "''")}'`;
  // cmd.exe: no escape inside double quotes, and Windows file names cannot hold `"`.
  if (shell === "cmd") return /^[\w.,:/\\+=-]+$/.test(word) ? word : `"${word}"`;
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export interface ResumeOptions {
  shell?: ShellKind;
  /** The agent's executable (a setting): `pi` and `omp` by default. */
  executable?: string;
}

/** `pi --session <file>`, or OMP's `omp --resume <file>` (OMP reads `--resume`, `-r` and `--session` alike). */
export function resumeCommand(flavor: "pi" | "omp" | null, file: string, options: ResumeOptions = {}): string {
  const shell = options.shell ?? "posix";
  const executable = options.executable?.trim() || (flavor === "omp" ? "omp" : "pi");
  let exe = shellQuote(executable, shell);
  // PowerShell runs a quoted string as a command only through the call operator.
  if (shell === "pwsh" && exe !== executable) exe = `& ${exe}`;
  const flag = flavor === "omp" ? "--resume" : "--session";
  return `${exe} ${flag} ${shellQuote(file, shell)}`;
}

/** A control character (a newline would end the command line typed into a terminal). */
export function hasControlCharacters(text: string): boolean {
  return /[\u0000-\u001f\u007f-\u009f]/.test(text);
}
