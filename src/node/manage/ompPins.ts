/**
 * Oh My Pi's pins: `<agentDir>/session-pins.json`, a JSON array of session ids (OMP's `session-pins.ts`). Written as
 * OMP writes it: under OMP's own lock (ompFileLock.ts; taken for us by a `python3` child on Linux), a read-modify-write
 * with a temporary file beside it (0600) renamed over it, tab-indented. Our writers exclude each other with our writer
 * lock on the same file as well. Without Python, OMP's lock cannot be taken from Node: the new file is written aside,
 * then in one synchronous step OMP's lock is checked free, the file checked unchanged and the new one renamed over
 * it, and the file is read again after (once OMP's lock is free) to see that our change is there (a change an OMP
 * toggle overwrote is made again). That narrows the race with an OMP toggle to that step; it cannot close it (a busy
 * machine can pause us inside the step), which is why the lock is taken where Python can take it.
 */
import { randomUUID } from "node:crypto";
import { readFileSync, renameSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { withLock } from "../sessionLock.js";
import { ompLockFree, ompLockName, ompLockNameHeldSync, withOmpLock } from "./ompFileLock.js";

export const OMP_PINS_FILE = "session-pins.json";

/** A pins file we do not overwrite: the message names it and why. */
export class PinsFileError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}; nothing was written`);
    this.name = "PinsFileError";
  }
}

const readText = (file: string) =>
  readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return null;
    throw new PinsFileError(file, `cannot be read (${err.code ?? String(err)})`);
  });

/** The ids a pins file holds, as OMP reads it (a missing file: none). Anything but an array of strings is refused. */
function parsePins(file: string, text: string | null): string[] {
  if (text === null) return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new PinsFileError(file, `is not JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(value)) throw new PinsFileError(file, "is not a list of session ids");
  return value.filter((id): id is string => typeof id === "string");
}

/** The session ids pinned in OMP's `agentDir` (none when it has no pins file, or one OMP could not read either). */
export async function readOmpPins(agentDir: string): Promise<Set<string>> {
  const file = join(agentDir, OMP_PINS_FILE);
  try {
    return new Set(parsePins(file, await readText(file)));
  } catch {
    return new Set();
  }
}

/** Pin (`on`) or unpin `sessionId` in OMP's pins of `agentDir`; whether the file changed. */
export async function setOmpPin(agentDir: string, sessionId: string, on: boolean): Promise<boolean> {
  const file = join(agentDir, OMP_PINS_FILE);
  const busy = () => new PinsFileError(file, "another Pi Session Explorer writer is changing the pins");
  await mkdir(agentDir, { recursive: true });
  return withLock(file, "writer", 15_000, busy, () =>
    withOmpLock(file, (held) => (held ? setHeld(file, sessionId, on) : setUnheld(file, sessionId, on))).catch(
      (err: unknown) => {
        throw err instanceof PinsFileError ? err : new PinsFileError(file, (err as Error).message);
      },
    ),
  );
}

/** With OMP's lock held by us: a plain read-modify-write, a temporary file renamed over it. */
async function setHeld(file: string, sessionId: string, on: boolean): Promise<boolean> {
  const before = await readText(file);
  const ids = parsePins(file, before);
  if (ids.includes(sessionId) === on) return false;
  const next = on ? [...ids, sessionId] : ids.filter((id) => id !== sessionId);
  if (!(await replaceIfUnchanged(file, before, JSON.stringify(next, null, "\t"), true)))
    throw new PinsFileError(file, "changed while Oh My Pi's lock was held by us");
  return true;
}

/** Without OMP's lock (no Python): around OMP's lock, checked before and read back after. */
async function setUnheld(file: string, sessionId: string, on: boolean): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (!(await ompLockFree(file))) break;
    const before = await readText(file);
    const ids = parsePins(file, before);
    if (ids.includes(sessionId) === on) return attempt > 0;
    const next = on ? [...ids, sessionId] : ids.filter((id) => id !== sessionId);
    if (!(await replaceIfUnchanged(file, before, JSON.stringify(next, null, "\t"), false))) continue;
    if (!(await ompLockFree(file))) break;
    if (parsePins(file, await readText(file)).includes(sessionId) === on) return true;
  }
  throw new PinsFileError(file, "Oh My Pi kept changing the pins; try again");
}

/**
 * Rename a new file over `file` if it is still `before` (null: absent) and, unless we hold it (`ours`), OMP's lock is
 * free; whether it was.
 */
async function replaceIfUnchanged(file: string, before: string | null, text: string, ours: boolean): Promise<boolean> {
  const lockName = await ompLockName(file);
  const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  let replaced = false;
  try {
    await writeFile(tmp, text, { encoding: "utf8", mode: 0o600, flag: "wx" });
    // One synchronous step, microseconds long (see above).
    if ((ours || !ompLockNameHeldSync(lockName)) && readNow(file) === before) {
      renameSync(tmp, file);
      replaced = true;
    }
    return replaced;
  } catch (err) {
    throw new PinsFileError(file, `could not be written (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  } finally {
    if (!replaced) await rm(tmp, { force: true }).catch(() => undefined);
  }
}

function readNow(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}
