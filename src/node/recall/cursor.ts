/**
 * `read_session`'s cursor: where the next window of a branch starts, in a few dozen characters whatever the ids are.
 * It names the session by a digest of its file, the branch's leaf by its position in the file, the window's start by
 * its position on the branch, and carries a digest of both ids: a cursor of another session, or one the file no
 * longer matches (rewritten, or a forged position), is refused, never followed elsewhere.
 */
import { createHash } from "node:crypto";
import type { Session } from "../../core/session/index.js";
import { branchPath, type BranchPath } from "../../core/transcript.js";
import { RecallError } from "./answer.js";

const digest = (text: string) => createHash("sha256").update(text).digest("base64url").slice(0, 12);

export function encodeCursor(session: Session, path: BranchPath, leafId: string, start: number): string {
  const leafIndex = session.entries.findIndex((e) => e.id === leafId);
  const check = digest(`${leafId}\n${path.entries[start]!.id}`);
  return Buffer.from(JSON.stringify([digest(session.file), leafIndex, start, check])).toString("base64url");
}

/** The branch and the window's start a cursor names in `session`. */
export function decodeCursor(
  text: string,
  session: Session,
  inherited: ReadonlySet<string> | undefined,
): { leaf: string; start: number; path: BranchPath } {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    parts = null;
  }
  const [file, leafIndex, start, check] = Array.isArray(parts) && parts.length === 4 ? (parts as unknown[]) : [];
  if (typeof file !== "string" || !Number.isInteger(leafIndex) || !Number.isInteger(start) || typeof check !== "string")
    throw new RecallError(`from: ${JSON.stringify(text.slice(0, 80))} is not a cursor of read_session`);
  if (file !== digest(session.file)) throw new RecallError("from: the cursor is of another session");
  const leaf = session.entries[leafIndex as number];
  const path = leaf ? branchPath(session, { leafId: leaf.id, inherited }) : null;
  const first = path?.entries[start as number];
  if (!leaf || !path || !first || digest(`${leaf.id}\n${first.id}`) !== check)
    throw new RecallError("from: the session changed since the cursor was given; read it again without `from`");
  return { leaf: leaf.id, start: start as number, path };
}
