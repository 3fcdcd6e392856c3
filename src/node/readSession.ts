/** Node-side file access for the parser core. */
import { type ParseOptions, type ParseResult, SessionReader } from "../core/session/index.js";
import { openRegular } from "./fileAccess.js";
import { CHUNK_BYTES, ChunkFeeder, FileBodySource } from "./fileBodies.js";
import { ioReason } from "./ioReason.js";

export type ReadResult = ParseResult;

/** Large contents are parsed this many bytes at a time, with the event loop let run in between. */
const SLICE_BYTES = 4 * 1024 * 1024;

export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `bytes` cut after a newline about every `size` bytes (views, not copies). A line longer than `size` stays whole;
 * the last slice may end without a newline.
 */
export function* wholeLineSlices(bytes: Uint8Array, size = SLICE_BYTES): Generator<Uint8Array> {
  let at = 0;
  while (bytes.length - at > size) {
    let nl = bytes.lastIndexOf(10, at + size - 1);
    if (nl < at) nl = bytes.indexOf(10, at + size);
    if (nl < 0) break;
    yield bytes.subarray(at, nl + 1);
    at = nl + 1;
  }
  if (at < bytes.length) yield bytes.subarray(at);
}

/**
 * `parseSession` for the extension host: the same answer, but a large file is fed in slices with the event loop
 * let run between them, so a 100 MB session never blocks the host for more than one slice.
 */
export async function parseSessionSliced(
  file: string,
  bytes: Uint8Array,
  options?: ParseOptions,
  sliceBytes = SLICE_BYTES,
): Promise<ParseResult> {
  const reader = new SessionReader(file, options);
  let firstLine = 1;
  let ends = true;
  let slices = 0;
  for (const slice of wholeLineSlices(bytes, sliceBytes)) {
    if (slices++ > 0) await yieldToEventLoop();
    const fed = reader.feedChunk(slice, firstLine);
    firstLine += fed.lines;
    ends = fed.endsWithNewline;
  }
  if (slices === 0) ends = reader.feedChunk(bytes).endsWithNewline;
  return reader.result(ends);
}

/**
 * Read and parse one session file, in chunks with the event loop let run between them. Large records' bodies are
 * read back from the file when they are needed (node/fileBodies.ts), so the session holds no copy of the file. An
 * I/O failure, or a path that is not a regular file (a FIFO, a device), is a rejection (`unreadable`, line 0), never
 * thrown and never a blocked read. Bytes appended after the open are not read.
 */
export async function readSessionFile(file: string, options?: ParseOptions): Promise<ReadResult> {
  const fed = await feedFile(file, options ?? {}, {});
  return "reader" in fed ? fed.reader.result(fed.endsWithNewline) : fed;
}

/** What a caller of `streamSessionFile` sees of each chunk, before its lines are fed (and when they were). */
export interface ChunkHooks {
  /** The chunk's bytes (valid only during the call) and their offset in the file. */
  beforeChunk?: (bytes: Buffer, at: number) => void;
  /** After the chunk's lines were fed: the caller may let the event loop run. */
  afterChunk?: () => Promise<void> | void;
}

/**
 * A file streamed through a reader whose entries go to `options.onEntry` (none is kept), with `hooks` around each
 * chunk: the file's header facts (or its rejection), and the file as it was opened (size, inode, mtime).
 */
export async function streamSessionFile(
  file: string,
  options: ParseOptions & { onEntry: NonNullable<ParseOptions["onEntry"]> },
  hooks: ChunkHooks,
): Promise<{ streamed: ReturnType<SessionReader["streamed"]>; id?: FileId; endsWithNewline: boolean }> {
  const fed = await feedFile(file, options, hooks);
  if (!("reader" in fed)) return { streamed: fed, endsWithNewline: false };
  return { streamed: fed.reader.streamed(), id: fed.id, endsWithNewline: fed.endsWithNewline };
}

type FileId = Awaited<ReturnType<typeof openRegular>>["id"];

/** Open a session file safely and feed it through a reader in chunks, the event loop let run between them. */
async function feedFile(
  file: string,
  options: ParseOptions,
  hooks: ChunkHooks,
): Promise<{ reader: SessionReader; id: FileId; endsWithNewline: boolean } | Extract<ReadResult, { ok: false }>> {
  const unreadable = (err: unknown): Extract<ReadResult, { ok: false }> => ({
    ok: false,
    file,
    rejection: { line: 0, code: "unreadable", message: ioReason(err) },
    diagnostics: [],
  });
  let opened;
  try {
    opened = await openRegular(file);
  } catch (err) {
    return unreadable(err);
  }
  const { handle, id } = opened;
  const reader = new SessionReader(file, options);
  const source = new FileBodySource(file, options);
  source.identify(id.dev, id.ino);
  const feeder = new ChunkFeeder(reader, source);
  let at = 0;
  // Two buffers, reused (the reader keeps no chunk: bodies are read back from the file): the next chunk is read while
  // this one is parsed, and each await lets the event loop run.
  const bufs = [0, 1].map(() => Buffer.allocUnsafe(Math.min(CHUNK_BYTES, id.size)));
  const readInto = (i: number, from: number) =>
    handle.read(bufs[i]!, 0, Math.min(CHUNK_BYTES, id.size - from), from).then((r) => r.bytesRead);
  let next = id.size > 0 ? readInto(0, 0) : null;
  try {
    for (let i = 0; next; i ^= 1) {
      const bytesRead = await next;
      if (bytesRead === 0) break;
      const chunk = bufs[i]!.subarray(0, bytesRead);
      hooks.beforeChunk?.(chunk, at);
      at += bytesRead;
      next = at < id.size ? readInto(i ^ 1, at) : null;
      feeder.push(chunk);
      await hooks.afterChunk?.();
    }
  } catch (err) {
    await next?.catch(() => 0);
    return unreadable(err);
  } finally {
    await next?.catch(() => 0);
    await handle.close().catch(() => undefined);
  }
  feeder.finish();
  return { reader, id, endsWithNewline: feeder.endsWithNewline };
}
