/** Shared test helpers: temporary files, JSONL text, polling. No fixture paths here (see fixtures.ts), so the
 * in-host integration bundle can import it too. */
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseSession, type Session, type SessionReader } from "../../src/core/session/index.js";

export function parseText(text: string, file = "mem.jsonl") {
  return parseSession(file, text);
}

export function parseOk(text: string, file = "mem.jsonl"): Session {
  const result = parseSession(file, text);
  if (!result.ok) throw new Error(`rejected: ${result.rejection.code} ${result.rejection.message}`);
  return result.session;
}

/** A scratch directory, removed after the callback (after its promise settles, for an async callback). */
export function withTempDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "pse-test-"));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  let result: T;
  try {
    result = fn(dir);
  } catch (err) {
    remove();
    throw err;
  }
  if (result instanceof Promise) return result.finally(remove) as T;
  remove();
  return result;
}

export function tempCopy(dir: string, file: string): string {
  const target = join(dir, basename(file));
  copyFileSync(file, target);
  return target;
}

/** Build JSONL text from records. */
export function jsonl(...records: unknown[]): string {
  return records.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n") + "\n";
}

/** Round-trip through JSON so `undefined` keys drop out, as in a file or an oracle. */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Each physical line of `bytes` with its newline (the last one may lack it). */
function physicalLines(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  while (start < bytes.length) {
    const nl = bytes.indexOf(10, start);
    const end = nl < 0 ? bytes.length : nl + 1;
    out.push(bytes.slice(start, end));
    start = end;
  }
  return out;
}

/**
 * Feed `bytes` to a reader in chunks of whole lines, `sizes` lines at a time (cycled), calling `between` after each
 * chunk. Returns whether the content ends with a newline (for `result()`).
 */
export function feedInChunks(reader: SessionReader, bytes: Uint8Array, sizes: number[], between?: () => void): boolean {
  const lines = physicalLines(bytes);
  let at = 0;
  let ends = true;
  for (let k = 0; at < lines.length; k++) {
    const n = sizes[k % sizes.length]!;
    const group = lines.slice(at, at + n);
    const chunk = new Uint8Array(group.reduce((sum, l) => sum + l.length, 0));
    let o = 0;
    for (const l of group) {
      chunk.set(l, o);
      o += l.length;
    }
    ends = reader.feedChunk(chunk, at + 1).endsWithNewline;
    at += n;
    between?.();
  }
  if (lines.length === 0) ends = reader.feedChunk(new Uint8Array(0)).endsWithNewline;
  return ends;
}

/** Every file under `dir` (recursively, sorted) whose name ends with `suffix`. */
export function listFiles(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listFiles(full, suffix));
    else if (name.endsWith(suffix)) out.push(full);
  }
  return out;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Poll `probe` until it returns something truthy; fail naming `what` after the timeout. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
  intervalMs = 50,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}
