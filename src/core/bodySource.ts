/**
 * Where a large record's bytes are read back from when its body is needed. The parser keeps only the envelope and
 * facts of a large record; its body is parsed again, on demand, from the file itself (node/fileBodies.ts), so no
 * reader holds a copy of the file. Pure: the core names the contract, the Node layer does the I/O.
 */

export interface BodySource {
  /** The file the bytes come from (for errors). */
  readonly file: string;
  /**
   * The bytes [start, end) of the file, or null when the file is no longer the one that was parsed (another inode, a
   * shorter file, unreadable). The caller still checks that the bytes are the record it expects.
   */
  read(start: number, end: number): Uint8Array | null;
  /**
   * The record with this id and type as the file holds it now (the file changed since it was parsed: parse it again),
   * or undefined when it no longer holds it. `line` picks among records that reuse an id.
   */
  recover(id: string, line: number, type: string): Record<string, unknown> | undefined;
}

/** A record's body could not be read back: the file changed and no longer holds it. */
export class SessionChangedError extends Error {
  constructor(
    readonly file: string,
    readonly entryId: string,
  ) {
    super(`${file} changed since it was read: entry ${entryId} is no longer in it; read the session again`);
    this.name = "SessionChangedError";
  }
}
