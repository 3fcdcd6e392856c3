/**
 * Every open of a session path goes through here. A path may name a FIFO, a device or a directory (a watcher event,
 * a CLI argument such as /dev/zero): opening a FIFO for reading blocks until a writer comes, and reading a device
 * never ends. So a path is opened non-blocking, checked to be a regular file on the same handle (`fstat`, not a
 * `stat` before the open, which a rename could race), and read only up to the size that `fstat` gave.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";

/** Opening non-blocking makes a FIFO open return at once instead of waiting for a writer. */
export const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

class NotRegularFileError extends Error {
  readonly code = "ENOTREG";
  constructor(readonly path: string) {
    super(`${path} is not a regular file`);
    this.name = "NotRegularFileError";
  }
}

export interface FileIdentity {
  size: number;
  mtimeNs: bigint;
  ino: bigint;
  dev: bigint;
}

/** Open a regular file for reading; a FIFO, device, socket or directory is refused without blocking. */
export async function openRegular(path: string): Promise<{ handle: FileHandle; id: FileIdentity }> {
  const handle = await open(path, READ_FLAGS);
  try {
    const st = await handle.stat({ bigint: true });
    if (!st.isFile()) throw new NotRegularFileError(path);
    return { handle, id: { size: Number(st.size), mtimeNs: st.mtimeNs, ino: st.ino, dev: st.dev } };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** Read `length` bytes at `position` through the handle (fewer only at end of file). */
export async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await handle.read(buf, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got === length ? buf : buf.subarray(0, got);
}

/** The whole of a regular file, at most the size `fstat` reported when it was opened. */
export async function readRegularFile(path: string): Promise<{ bytes: Buffer; id: FileIdentity }> {
  const { handle, id } = await openRegular(path);
  try {
    return { bytes: await readAt(handle, 0, id.size), id };
  } finally {
    await handle.close();
  }
}

/** Fill `buf` from `position` of an open file; fewer bytes (the count returned) only at the end of the file. */
export function readFullySync(fd: number, buf: Uint8Array, position: number): number {
  let got = 0;
  while (got < buf.length) {
    const r = readSync(fd, buf, got, buf.length - got, position + got);
    if (r === 0) break;
    got += r;
  }
  return got;
}

/** `openRegular`, synchronously: the descriptor and the file's identity (the caller closes it). */
export function openRegularSync(path: string): { fd: number; id: FileIdentity } {
  const fd = openSync(path, READ_FLAGS);
  try {
    const st = fstatSync(fd, { bigint: true });
    if (!st.isFile()) throw new NotRegularFileError(path);
    return { fd, id: { size: Number(st.size), mtimeNs: st.mtimeNs, ino: st.ino, dev: st.dev } };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** `readRegularFile` for the synchronous listing calls (a few KB at each end of a file). */
export function readRegularRangeSync(path: string, ranges: [position: number, length: number][]): Buffer[] {
  const { fd, id: st } = openRegularSync(path);
  try {
    return ranges.map(([position, length]) => {
      const buf = Buffer.alloc(Math.max(0, Math.min(length, st.size - position)));
      return buf.subarray(0, readFullySync(fd, buf, position));
    });
  } finally {
    closeSync(fd);
  }
}

/** A small settings or credentials file, read whole: refused when it is not a regular file or over `maxBytes`. */
export function readSmallFileSync(path: string, maxBytes = 1024 * 1024): string {
  const [bytes] = readRegularRangeSync(path, [[0, maxBytes + 1]]);
  if (bytes!.length > maxBytes) throw new Error(`${path} is larger than ${maxBytes} bytes`);
  return bytes!.toString("utf8");
}
