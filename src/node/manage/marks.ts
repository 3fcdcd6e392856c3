/**
 * Pins and archives, by session id. Oh My Pi's sessions are pinned in OMP's own pins file (ompPins.ts), so `omp`
 * shows the same pins; pi has no pin file, so pi's pins, and every archive (no agent has one), are ours: one file,
 * `session-marks.json` in the cache dir the CLI and the extension share (cacheDir.ts), so both show the same marks.
 * An archive hides a session from the listing and never touches its file.
 */
import { randomUUID } from "node:crypto";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ensurePrivateDir } from "../cacheDir.js";
import type { SessionRoot } from "../roots.js";
import { withLock } from "../sessionLock.js";
import { PinsFileError, readOmpPins, setOmpPin } from "./ompPins.js";

const MARKS_FILE = "session-marks.json";

export interface Marks {
  pinned: ReadonlySet<string>;
  archived: ReadonlySet<string>;
}

/** What a mark is set on: the session's id, its file, its agent. */
export interface MarkTarget {
  id: string;
  file: string;
  flavor: "pi" | "omp";
}

interface MarksFile {
  version: 1;
  pinned: string[];
  archived: string[];
}

const EMPTY: MarksFile = { version: 1, pinned: [], archived: [] };

/** The OMP agent dir a session belongs to: the parent of the `sessions` root it is under (else none). */
export function ompAgentDirOf(file: string, roots: readonly SessionRoot[]): string | null {
  const root = roots.find((r) => file.startsWith(`${r.dir}/`) && basename(r.dir) === "sessions");
  return root ? dirname(root.dir) : null;
}

export class SessionMarks {
  constructor(
    /** The folder our marks file is in (the shared cache dir). */
    private readonly stateDir: string,
    private readonly roots: () => readonly SessionRoot[],
  ) {}

  /** Our marks file. */
  get file(): string {
    return join(this.stateDir, MARKS_FILE);
  }

  /** Every mark: ours, and the pins of every OMP agent dir under the roots. */
  async read(): Promise<Marks> {
    const ours = await this.readOurs();
    const pinned = new Set(ours.pinned);
    const agentDirs = new Set(this.roots().flatMap((r) => (basename(r.dir) === "sessions" ? [dirname(r.dir)] : [])));
    for (const dir of agentDirs) for (const id of await readOmpPins(dir)) pinned.add(id);
    return { pinned, archived: new Set(ours.archived) };
  }

  /** Pin or unpin; whether anything changed. OMP's sessions in OMP's pins file (and out of ours, if an old pin is). */
  async setPinned(t: MarkTarget, on: boolean): Promise<boolean> {
    const agentDir = t.flavor === "omp" ? ompAgentDirOf(t.file, this.roots()) : null;
    if (!agentDir) return this.update("pinned", t.id, on);
    const changed = await setOmpPin(agentDir, t.id, on);
    return (!on && (await this.update("pinned", t.id, false))) || changed;
  }

  setArchived(t: MarkTarget, on: boolean): Promise<boolean> {
    return this.update("archived", t.id, on);
  }

  private async readOurs(): Promise<MarksFile> {
    let text: string;
    try {
      text = await readFile(this.file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return EMPTY;
      throw new PinsFileError(this.file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    try {
      const value = JSON.parse(text) as Partial<MarksFile>;
      const ids = (v: unknown) => (Array.isArray(v) ? v.filter((id): id is string => typeof id === "string") : []);
      return { version: 1, pinned: ids(value.pinned), archived: ids(value.archived) };
    } catch (err) {
      throw new PinsFileError(this.file, `is not JSON (${(err as Error).message})`);
    }
  }

  private async update(kind: "pinned" | "archived", id: string, on: boolean): Promise<boolean> {
    ensurePrivateDir(this.stateDir);
    const busy = () => new PinsFileError(this.file, "another Pi Session Explorer writer is changing the marks");
    return withLock(this.file, "writer", 5000, busy, async () => {
      const marks = await this.readOurs();
      if (marks[kind].includes(id) === on) return false;
      marks[kind] = on ? [...marks[kind], id] : marks[kind].filter((x) => x !== id);
      const tmp = `${this.file}.${process.pid}.${randomUUID()}.tmp`;
      try {
        await writeFile(tmp, `${JSON.stringify(marks, null, 2)}\n`, { encoding: "utf8", mode: 0o600, flag: "wx" });
        await rename(tmp, this.file);
      } catch (err) {
        await rm(tmp, { force: true }).catch(() => undefined);
        throw new PinsFileError(this.file, `could not be written (${(err as NodeJS.ErrnoException).code ?? err})`);
      }
      return true;
    });
  }
}
