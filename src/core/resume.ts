/** The shell command that resumes a session in its agent. */

/** Quote a path for a POSIX shell when it needs it. */
function shellQuote(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

/** `pi --session <file>`, or OMP's `omp --resume <file>` (OMP reads `--resume`, `-r` and `--session` alike). */
export function resumeCommand(flavor: "pi" | "omp" | null, file: string): string {
  return flavor === "omp" ? `omp --resume ${shellQuote(file)}` : `pi --session ${shellQuote(file)}`;
}
