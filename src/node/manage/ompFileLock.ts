/**
 * Oh My Pi's cross-process lock (`withFileLock` in `@oh-my-pi/pi-utils`, native in `pi-natives`), as OMP 18 takes it
 * around its read-modify-write of `session-pins.json`. On Linux it is an abstract Unix datagram socket named
 * `omp-file-lock-` + two XXH64 digests (seeds "OMP-LOCK" and "PI-FILEL") of `path.resolve(file) + ".lock"`, bound for
 * as long as OMP holds the lock; the kernel frees it when OMP exits. Node cannot bind a datagram Unix socket (and a
 * stream socket of the same name does not exclude it): a `python3` child takes it for us (`withOmpLock`). Without
 * Python we see the lock in /proc/net/unix, wait while it is held, and check the file around our own write
 * (ompPins.ts). Elsewhere (macOS: `flock`; Windows: a named mutex) Node can see neither, and the checks around the
 * write are all there is.
 */
import { type ChildProcess, spawn } from "node:child_process";
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

/**
 * Hold OMP's lock on `file` while `fn` runs, where it can be held: Node cannot bind a datagram Unix socket, but
 * Python (on nearly every Linux system) can, so a small `python3` child binds the abstract name, says so, and keeps
 * it until its stdin closes (it exits then, and the kernel frees the name; also if we die). `held` tells `fn` whether
 * OMP is excluded; without Python it is not, and `fn` must check around its write (ompPins.ts does).
 */
export async function withOmpLock<T>(file: string, fn: (held: boolean) => Promise<T>, waitMs = 5000): Promise<T> {
  if (process.platform !== "linux") return fn(false);
  const name = await ompLockName(file);
  const until = Date.now() + waitMs;
  for (;;) {
    const holder = await bindWithPython(name);
    if (holder === "unavailable") return fn(false);
    if (holder !== "busy") {
      try {
        return await fn(true);
      } finally {
        holder.stdin?.end();
      }
    }
    if (Date.now() >= until) throw new Error(`Oh My Pi holds its lock on ${file}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const HOLDER = [
  "import socket, sys",
  "s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)",
  "try:",
  "    s.bind('\\0' + sys.argv[1])",
  "except OSError:",
  "    print('busy', flush=True); sys.exit(0)",
  "print('held', flush=True)",
  "sys.stdin.read()",
].join("\n");

/** A `python3` holding the abstract socket `name`; "busy" when another holds it; "unavailable" without Python. */
function bindWithPython(name: string): Promise<ChildProcess | "busy" | "unavailable"> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn("python3", ["-c", HOLDER, name], { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      resolve("unavailable");
      return;
    }
    let said = "";
    child.on("error", () => resolve("unavailable"));
    child.on("exit", () => resolve(said.startsWith("busy") ? "busy" : "unavailable"));
    child.stdout!.on("data", (d: Buffer) => {
      said += d.toString("utf8");
      if (said.startsWith("held")) resolve(child);
      else if (said.startsWith("busy")) resolve("busy");
    });
  });
}
