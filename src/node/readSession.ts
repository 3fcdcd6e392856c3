/** Node-side file access for the parser core. */
import { readFile } from "node:fs/promises";
import { type ParseOptions, type ParseResult, parseSession } from "../core/session.js";

export type ReadResult = ParseResult | { ok: false; file: string; ioError: string };

/** Read and parse one session file. I/O failures are returned, never thrown. */
export async function readSessionFile(file: string, options?: ParseOptions): Promise<ReadResult> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { ok: false, file, ioError: e.code ? `${e.code}: ${e.message}` : String(err) };
  }
  return parseSession(file, bytes, options);
}
