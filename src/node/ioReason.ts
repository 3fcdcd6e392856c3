/**
 * The reason of a file-system error, without the path: Node's messages repeat both the code and the path
 * ("ENOENT: no such file or directory, open '/x'"), and every report here already names the file once.
 */
export function ioReason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  const reason = err.message.replace(/^[A-Z][A-Z0-9_]+: /, "").replace(/, [a-z]+ '[^']*'( -> '[^']*')?$/, "");
  return code && !reason.includes(code) ? `${reason} (${code})` : reason;
}

/**
 * An error whose message is the whole story for the user (it names the file and the reason): reported as one line,
 * never as an internal error with a stack.
 */
export class PlainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PlainError";
  }
}
