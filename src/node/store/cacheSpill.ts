/**
 * The metadata cache's details lines written to a file of their own as summaries are kept, before the cache is saved
 * (issue #38: "the cache saves as it goes"). A cold pass of a heavy store held every session's details on the main
 * thread until its one save at the end (146 MB for 8,000 sessions); written here as they come, each summary reads
 * them back from this file, and the save copies the file after the listing that carries their checksums. One file per
 * cache and save, owner-only, made new (`wx+`); removed once saved, and by a later load when its process is gone.
 */
import * as nodeFs from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { EncodedLine, LineSource } from "./cacheLines.js";

const NEWLINE = Buffer.from("\n");

export class DetailSpill {
  /** [start, length] of each line, in the order written (the cache's index of its details lines). */
  readonly index: [number, number][] = [];
  private handle: nodeFs.FileHandle | null = null;
  /** Where its lines are read from (its own descriptor, closed by `remove`). */
  source: LineSource | null = null;
  private bytes = 0;
  private tries = 0;

  /** `base`: the cache file's name; the spill is `<base>.<pid>.<n>.details`, `n` from `next`. */
  constructor(
    private readonly base: string,
    private readonly next: () => number,
  ) {}

  get path(): string {
    return `${this.base}.${process.pid}.${this.tries}.details`;
  }

  /** Appends a line (its newline added); returns its number. Calls must not overlap (the cache chains them). */
  async append(line: EncodedLine): Promise<number> {
    this.handle ??= await this.open();
    await this.handle.writev([...line.pieces, NEWLINE], this.bytes);
    this.index.push([this.bytes, line.length]);
    this.bytes += line.length + 1;
    return this.index.length - 1;
  }

  /**
   * A new file of its own (`wx+`: never through a name someone else made); a name in use (a file left by an earlier
   * process that had this process's number) is passed over for the next.
   */
  private async open(): Promise<nodeFs.FileHandle> {
    for (let attempt = 0; ; attempt++) {
      this.tries = this.next();
      try {
        const handle = await nodeFs.open(this.path, "wx+", 0o600);
        this.source = { fd: handle.fd };
        return handle;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 100) throw err;
      }
    }
  }

  /** Every line written, appended to `to`, a MB at a time. */
  async copyTo(to: nodeFs.FileHandle): Promise<void> {
    if (!this.handle) return;
    const buffer = Buffer.allocUnsafe(Math.min(this.bytes, 1 << 20));
    for (let at = 0; at < this.bytes;) {
      const { bytesRead } = await this.handle.read(buffer, 0, Math.min(buffer.length, this.bytes - at), at);
      if (!bytesRead) throw new Error(`${this.path}: the cache's details ended early while it was saved`);
      await to.write(buffer, 0, bytesRead);
      at += bytesRead;
    }
  }

  async remove(): Promise<void> {
    if (!this.handle) return;
    await this.handle.close();
    this.handle = null;
    this.source = null;
    await nodeFs.rm(this.path, { force: true });
  }
}

/**
 * The temporary files of saves of `cacheFile` (`<name>.<pid>.<n>.tmp` and `.details`) whose process is gone and that
 * have not changed for an hour: what a process killed while it listed or saved left behind (a cold pass's details
 * are hundreds of MB). The hour spares a live one of a process this one cannot see (another host sharing the dir).
 */
export async function removeLeftovers(cacheFile: string): Promise<void> {
  const name = basename(cacheFile);
  let names: string[];
  try {
    names = await nodeFs.readdir(dirname(cacheFile));
  } catch {
    return;
  }
  for (const n of names) {
    if (!n.startsWith(`${name}.`)) continue;
    const m = /^\.(\d+)\.\d+\.(tmp|details|tmp\.details)$/.exec(n.slice(name.length));
    if (!m || alive(Number(m[1]))) continue;
    const path = join(dirname(cacheFile), n);
    const changed = await nodeFs.lstat(path).then(
      (st) => st.mtimeMs,
      () => Date.now(),
    );
    if (Date.now() - changed < LEFTOVER_AGE_MS) continue;
    await nodeFs.rm(path, { force: true }).catch(() => undefined);
  }
}

const LEFTOVER_AGE_MS = 60 * 60 * 1000;

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: a process of another user has that number.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
