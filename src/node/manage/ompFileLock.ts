/**
 * Oh My Pi's cross-process lock (`withFileLock` in `@oh-my-pi/pi-utils`, native in `pi-natives`), as OMP 18 takes it
 * around its read-modify-write of `session-pins.json`. On Linux it is an abstract Unix datagram socket named
 * `omp-file-lock-` + two XXH64 digests (seeds "OMP-LOCK" and "PI-FILEL") of `path.resolve(file) + ".lock"`, bound for
 * as long as OMP holds the lock; the kernel frees it when OMP exits. Node cannot bind a datagram Unix socket (and a
 * stream socket of the same name does not exclude it), so we cannot take this lock: we see it in /proc/net/unix, wait
 * while it is held, and check the file around our own write (pins.ts). Elsewhere (macOS: `flock`; Windows: a named
 * mutex) Node can see neither, and the checks around the write are all there is.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import xxhash from "xxhash-wasm";

const HIGH_SEED = 0x4f4d502d4c4f434bn;
const LOW_SEED = 0x50492d46494c454cn;

let hasher: ReturnType<typeof xxhash> | null = null;

/** The abstract socket name OMP binds while it holds the lock on `file`. */
export async function ompLockName(file: string): Promise<string> {
  const { h64Raw } = await (hasher ??= xxhash());
  const bytes = new TextEncoder().encode(`${resolve(file)}.lock`);
  const hex = (seed: bigint) => h64Raw(bytes, seed).toString(16).padStart(16, "0");
  return `omp-file-lock-${hex(HIGH_SEED)}${hex(LOW_SEED)}`;
}

/** Whether OMP holds its lock on `file` now; false where it cannot be seen (not Linux, no /proc). */
async function ompLockHeld(file: string): Promise<boolean> {
  if (process.platform !== "linux") return false;
  const table = await readFile("/proc/net/unix", "latin1").catch(() => "");
  if (!table) return false;
  const name = ` @${await ompLockName(file)}`;
  return table.split("\n").some((line) => line.endsWith(name));
}

/**
 * The same, synchronously, for a name from `ompLockName`: what the pins writer checks in the same tick as its
 * rename, so that no OMP read-modify-write (which takes far longer than that tick) can begin and end in between.
 */
export function ompLockNameHeldSync(name: string): boolean {
  if (process.platform !== "linux") return false;
  let table: string;
  try {
    table = readFileSync("/proc/net/unix", "latin1");
  } catch {
    return false;
  }
  return table.includes(` @${name}\n`) || table.endsWith(` @${name}`);
}

/** Wait (up to `waitMs`; OMP waits 50 × 100 ms) until OMP does not hold its lock on `file`; false if it still does. */
export async function ompLockFree(file: string, waitMs = 5000): Promise<boolean> {
  const until = Date.now() + waitMs;
  while (await ompLockHeld(file)) {
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}
