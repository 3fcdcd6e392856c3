/** Node-side file access for the parser core. */
import { readFile } from "node:fs/promises";
import { type ParseOptions, type ParseResult, parseSession } from "../core/session.js";

export type ReadResult = ParseResult;

/** Read and parse one session file. An I/O failure is a rejection (`unreadable`, line 0), never thrown. */
export async function readSessionFile(file: string, options?: ParseOptions): Promise<ReadResult> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { ok: false, file, rejection: { line: 0, code: "unreadable", message: e.code ? `${e.code}: ${e.message}` : String(err) }, diagnostics: [] };
  }
  return parseSession(file, bytes, options);
}
