/**
 * A machine's name in the team database: letters, digits and `. _ @ -`, at most 63 bytes in UTF-8, so that a
 * PostgreSQL role can be named as the machine (docs/team.md's grants compare `machine` with `current_user`, and
 * PostgreSQL cuts identifiers at 63 bytes). Kept apart from the team bundle: the editor checks it before loading it.
 */
const MACHINE = /^[\p{L}\p{N}._@-]+$/u;
const MAX_BYTES = 63;

/** Why `name` cannot name a machine, or null when it can. */
export function machineNameProblem(name: string): string | null {
  if (!MACHINE.test(name)) return "letters, digits, . _ @ - only";
  if (Buffer.byteLength(name, "utf8") > MAX_BYTES) return `at most ${MAX_BYTES} bytes (a PostgreSQL role's name)`;
  return null;
}
