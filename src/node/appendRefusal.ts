/** Why a session cannot take an appended entry as read (fail closed), shared by every writer of ours. */
import type { Session } from "../core/session/index.js";

/** `action` names what would be written ("compact", "rename"), for the message; null when the append may go on. */
export function appendRefusal(session: Session, bytes: Buffer, action: string): string | null {
  if (session.version < 3)
    return (
      `the session is version ${session.version}; pi migrates (rewrites) files below version 3 when it opens them, ` +
      `so ${action} only after pi has opened it`
    );
  if (!session.endsWithNewline || session.truncatedTail)
    return "the last line is incomplete (the agent is writing, or crashed)";
  const lines = bytes.toString("utf8").trimEnd().split("\n").length;
  const bad = session.diagnostics.find((d) => d.code === "malformed-json" && d.line === lines);
  if (bad) return `the last line is malformed (line ${bad.line})`;
  // pi parses lines nested deeper than our bound; we skip them, so what we append would be placed against a tree
  // we cannot see whole. Refuse rather than guess.
  const deep = session.diagnostics.find((d) => d.code === "too-deep");
  if (deep) return `line ${deep.line} is nested too deeply for us to read, so the session cannot be seen whole`;
  return null;
}
