/**
 * The live session library behind the explorer: the store (listing from the metadata cache), full session models
 * for the sessions a user expands, and incremental updates from the file watcher. No `vscode` import: the
 * extension wraps it, and plain-Node tests drive it on real files.
 */
import { dirname } from "node:path";
import { SessionChangedError } from "../core/bodySource.js";
import type { HostPaths } from "../core/slug.js";
import { extendSummary, summarize } from "../core/summary.js";
import type { ParseResult } from "../core/session/index.js";
import type { SessionRoot } from "./roots.js";
import {
  belongsToWorkspace,
  computeOwnership,
  computeOwnershipInSlices,
  discover,
  FamilyIndex,
  lastActivity,
  linkLineage,
  loadStore,
  newStoreSession,
  placeFile,
  type StoreSession,
} from "./store/index.js";
import { attachOmpHistory } from "./ompHistory.js";
import { SessionTracker } from "./tracker.js";
import { yieldToEventLoop } from "./readSession.js";

export interface LibraryOptions {
  roots: SessionRoot[];
  cacheFile: string | null;
  includePi?: boolean;
  includeOmp?: boolean;
  /** Called when the background pass has read the sessions the first listing only probed. */
  onComplete?: () => void;
  /**
   * The bundled worker of parallel reads (dist/summaryWorker.cjs): the background pass then reads in worker threads,
   * never on this thread. Without it, this thread reads, in slices.
   */
  summaryWorker?: string;
}

export type SessionChange = { file: string; kind: "added" | "changed" | "removed" };

export interface ChangeSet {
  changes: SessionChange[];
  /** True when the list of sessions or their lineage changed (group nodes must refresh, not only sessions). */
  structural: boolean;
}

export interface Project {
  /** The project's working directory, or a placeholder for sessions without one. */
  cwd: string;
  sessions: StoreSession[];
  lastActivity: number;
}

export class SessionLibrary {
  private sessionsByFile = new Map<string, StoreSession>();
  private readonly trackers = new Map<string, SessionTracker>();
  /** Sessions the settings leave out (their agent), with the size and time they had then (`sweep` skips them). */
  private readonly leftOut = new Map<string, string>();
  /** First reads under way (`firstRead`). */
  private readonly opening = new Map<string, Promise<unknown>>();
  private loaded: Promise<void> | null = null;
  errors: { path: string; message: string }[] = [];
  /** Session files parsed in full by the last `load` (0 when the cache answered everything). */
  filesRead = 0;

  constructor(private readonly options: LibraryOptions) {}

  get roots(): SessionRoot[] {
    return this.options.roots;
  }

  private completion: Promise<void> = Promise.resolve();
  /** Stops the current background pass. */
  private pass: AbortController | null = null;
  /** `projects()` as of the last change (the tree asks for it once per project row). */
  private projectList: Project[] | null = null;
  /** Fork families as of the last change. */
  private familyIndex: FamilyIndex | null = null;

  /**
   * Resolves when every session is fully summarized. The first listing of a cold store paints from each file's first
   * and last few KB; the full summaries (cost, counts, fork ownership) follow in the background.
   */
  whenComplete(): Promise<void> {
    return this.ensureLoaded().then(() => this.completion);
  }

  /** Load once; later calls wait for the same load. */
  ensureLoaded(): Promise<void> {
    this.loaded ??= this.load();
    return this.loaded;
  }

  /** (Re)list every session under the roots. Trackers of sessions still present are kept. */
  async load(): Promise<void> {
    const workerFile = this.options.summaryWorker;
    const store = await loadStore({
      roots: this.options.roots,
      cacheFile: this.options.cacheFile,
      probe: true,
      ompHistory: true,
      ...(workerFile ? { parallel: { workerFile, mode: "full" as const, minBytes: 0 } } : {}),
    });
    this.errors = store.errors;
    this.filesRead = store.filesRead;
    const next = new Map<string, StoreSession>();
    this.leftOut.clear();
    for (const s of store.sessions) {
      if (this.included(s)) next.set(s.file, s);
      else this.leftOut.set(s.file, stamp(s.sizeBytes, s.mtimeMs));
    }
    for (const file of this.trackers.keys()) if (!next.has(file)) this.trackers.delete(file);
    this.preferLive(next);
    // Linked before they are shown, in slices: an editor's event loop is not held for the whole listing.
    await yieldToEventLoop();
    await this.relinkInSlices([...next.values()]);
    this.sessionsByFile = next;
    this.loaded = Promise.resolve();
    // A new load replaces the background pass of the one before (its workers stop; it updates nothing).
    this.pass?.abort();
    const pass = (this.pass = new AbortController());
    this.completion = store.partial.length
      ? // Linked here, not by the store as well: 30–40 ms each on 8,000 sessions, in one turn of the event loop.
        store.complete(undefined, pass.signal, false).then(async () => {
          if (pass.signal.aborted) return;
          this.preferLive();
          await this.relinkInSlices([...this.sessionsByFile.values()]);
          if (pass.signal.aborted) return;
          this.options.onComplete?.();
        })
      : Promise.resolve();
  }

  /** Stop the background pass (its worker threads end). */
  dispose(): void {
    this.pass?.abort();
  }

  /** A session followed live is newer than the cache's (or the background pass's) view of it. */
  private preferLive(sessions = this.sessionsByFile): void {
    for (const [file, tracker] of this.trackers) {
      const s = sessions.get(file);
      try {
        if (s && tracker.sizeBytes === s.sizeBytes) s.summary = summarize(tracker.result());
      } catch (err) {
        // The file changed again since the tracker read it: the listing's summary stands until its next event.
        if (!(err instanceof SessionChangedError)) throw err;
      }
    }
  }

  private included(s: StoreSession): boolean {
    const kind = s.summary.ok ? s.summary.flavor : s.root.agent;
    if (kind === "pi" && this.options.includePi === false) return false;
    if (kind === "omp" && this.options.includeOmp === false) return false;
    return true;
  }

  private relink(): void {
    this.projectList = null;
    this.familyIndex = null;
    const all = [...this.sessionsByFile.values()];
    linkLineage(all, this.options.roots);
    computeOwnership(all);
  }

  /** `relink` of a whole listing: ownership computed in slices, then set at once. */
  private async relinkInSlices(all: StoreSession[]): Promise<void> {
    linkLineage(all, this.options.roots);
    await yieldToEventLoop();
    await computeOwnershipInSlices(all);
    this.projectList = null;
    this.familyIndex = null;
  }

  get sessions(): StoreSession[] {
    return [...this.sessionsByFile.values()];
  }

  get(file: string): StoreSession | undefined {
    return this.sessionsByFile.get(file);
  }

  /**
   * The full model of a listed session, read once and then followed incrementally. A second caller while the first
   * read runs waits for it (the model is whole only once it ends).
   */
  async open(file: string): Promise<ParseResult> {
    const s = this.sessionsByFile.get(file);
    if (!s) throw new Error(`${file} is not a session under the configured roots`);
    let tracker = this.trackers.get(file);
    if (!tracker) {
      const fresh = (tracker = new SessionTracker(file));
      this.trackers.set(file, fresh);
      await this.firstRead(
        file,
        fresh.update().then(() => this.absorb(s, fresh)),
      );
    } else await this.opening.get(file);
    return tracker.result();
  }

  /** Whether the session's model is in memory, whole (read once and followed since). */
  isFollowed(file: string): boolean {
    return this.trackers.has(file) && !this.opening.has(file);
  }

  /** A tracker's first read (by `open` or a watcher's event): until it ends, `open` waits for it. */
  private firstRead(file: string, read: Promise<unknown>): Promise<unknown> {
    const done = read.finally(() => {
      if (this.opening.get(file) === done) this.opening.delete(file);
    });
    this.opening.set(file, done);
    return done;
  }

  /** The model if it is already loaded (no I/O). */
  peek(file: string): ParseResult | undefined {
    return this.trackers.get(file)?.result();
  }

  tracker(file: string): SessionTracker | undefined {
    return this.trackers.get(file);
  }

  private absorb(s: StoreSession, tracker: SessionTracker, change?: string): void {
    // An append extends the summary (new entries only); anything else summarizes again.
    s.summary = change === "appended" ? extendSummary(s.summary, tracker.result()) : summarize(tracker.result());
    s.sizeBytes = Math.max(0, tracker.sizeBytes);
    s.mtimeMs = tracker.mtimeMs;
  }

  /**
   * Apply changed paths reported by the watcher. A followed session reads only its appended bytes; a session
   * seen for the first time is read once and followed from then on. Paths outside the roots are ignored.
   */
  async applyChanges(paths: string[]): Promise<ChangeSet> {
    await this.ensureLoaded();
    const changes: SessionChange[] = [];
    const added: StoreSession[] = [];
    let structural = false;
    for (const file of paths) {
      try {
        const placed = placeFile(file, this.options.roots);
        const known = this.sessionsByFile.get(file);
        let tracker = this.trackers.get(file);
        // A path the store would not list (outside the roots, a second path of a listed file, not a session name) is
        // never read: a watcher event is no reason to open it.
        let first = false;
        if (placed && !tracker) {
          tracker = new SessionTracker(file);
          this.trackers.set(file, tracker);
          first = true;
        }
        const update = placed && tracker ? tracker.update() : undefined;
        if (first && update) void this.firstRead(file, update).catch(() => undefined); // awaited below
        const change = update ? (await update).change : "unchanged";
        if (!placed || !tracker || tracker.sizeBytes < 0) {
          this.trackers.delete(file);
          if (known) {
            this.sessionsByFile.delete(file);
            changes.push({ file, kind: "removed" });
            structural = true;
          }
          continue;
        }
        // Unchanged, unless the listing is older than the model (a Refresh that overlapped this file's event).
        if (
          change === "unchanged" &&
          known &&
          known.sizeBytes === tracker.sizeBytes &&
          known.mtimeMs === tracker.mtimeMs
        )
          continue;
        const before = known?.summary;
        const s = known ?? newStoreSession({ ...placed, file, size: 0 }, summarize(tracker.result()));
        this.absorb(s, tracker, known ? change : undefined);
        if (!this.included(s)) {
          // Left out by the settings (its agent): not followed, and not read again until it changes.
          this.trackers.delete(file);
          this.leftOut.set(file, stamp(tracker.sizeBytes, tracker.mtimeMs));
          if (known) {
            this.sessionsByFile.delete(file);
            changes.push({ file, kind: "removed" });
            structural = true;
          }
          continue;
        }
        if (!known) {
          this.sessionsByFile.set(file, s);
          added.push(s);
          changes.push({ file, kind: "added" });
          structural = true;
          continue;
        }
        changes.push({ file, kind: "changed" });
        // An append changes neither lineage nor ownership; a rewrite may change the id or the parent.
        const after = s.summary;
        if (
          change === "replaced" ||
          before?.ok !== after.ok ||
          (before.ok && after.ok && (before.id !== after.id || before.parentSession?.raw !== after.parentSession?.raw))
        ) {
          structural = true;
        }
      } catch (err) {
        // A body read back from a file that changed again under us: the next event for it reads it afresh.
        if (!(err instanceof SessionChangedError)) throw err;
      }
    }
    // A new Oh My Pi session takes its title and recap from history.db, as the listing gives them.
    if (added.length) await attachOmpHistory(added);
    if (structural) this.relink();
    else if (changes.length) {
      // activity order changed
      this.projectList = null;
      this.familyIndex = null;
    }
    return { changes, structural };
  }

  /**
   * The safety net under the watcher, which can lose events (a full inotify queue, a network file system, a sleep):
   * every file under the roots is stat'ed, in slices, and those whose size or time differ from the listing, new ones
   * and vanished ones are taken in as if the watcher had reported them. Nothing is read when nothing changed.
   */
  async sweep(): Promise<ChangeSet> {
    await this.ensureLoaded();
    const { files } = await discover(this.options.roots);
    const found = new Set<string>();
    const paths: string[] = [];
    for (const f of files) {
      found.add(f.file);
      const s = this.sessionsByFile.get(f.file);
      const now = stamp(f.size, Number(f.mtimeNs / 1_000_000n));
      // Listed and changed; or new, or unreadable before (read as a watcher's event would have it), unless the
      // settings left it out as it is now.
      if (s ? stamp(s.sizeBytes, s.mtimeMs) !== now : this.leftOut.get(f.file) !== now) paths.push(f.file);
    }
    for (const file of this.sessionsByFile.keys()) if (!found.has(file)) paths.push(file);
    return paths.length ? this.applyChanges(paths) : { changes: [], structural: false };
  }

  /** Sessions whose cwd (or slug folder) belongs to one of the workspace folders, newest first. */
  workspaceSessions(folders: string[], host: HostPaths): StoreSession[] {
    if (!folders.length) return [];
    return this.sessions.filter((s) => folders.some((f) => belongsToWorkspace(s, f, host))).sort(byActivity);
  }

  /** Fork families of every listed session (family parents, forks, subagents, latest activity). */
  families(): FamilyIndex {
    this.familyIndex ??= new FamilyIndex(this.sessions);
    return this.familyIndex;
  }

  /** Every session grouped by project cwd; projects and their sessions newest first. */
  projects(): Project[] {
    this.projectList ??= this.groupProjects();
    return this.projectList;
  }

  /** The project `s` is listed under (`projects()`): its cwd, else its folder-mates' (an unreadable file, a header
   * without a cwd), else its folder's slug. */
  projectOf(s: StoreSession): string {
    this.projects(); // groups once per change, filling `projectByFile`
    return this.projectByFile.get(s.file) ?? projectKey(s);
  }

  private projectByFile = new Map<string, string>();

  private groupProjects(): Project[] {
    const groups = new Map<string, StoreSession[]>();
    // A file without a cwd of its own belongs with the sessions of its folder, when they agree on one.
    const folderCwds = new Map<string, Set<string>>();
    for (const s of this.sessions)
      if (s.summary.ok && s.summary.cwd) {
        const dir = dirname(s.file);
        let set = folderCwds.get(dir);
        if (!set) folderCwds.set(dir, (set = new Set()));
        set.add(s.summary.cwd);
      }
    this.projectByFile = new Map();
    for (const s of this.sessions) {
      const mates = (s.summary.ok && s.summary.cwd) || folderCwds.get(dirname(s.file));
      const cwd = typeof mates === "string" ? mates : mates?.size === 1 ? [...mates][0]! : projectKey(s);
      this.projectByFile.set(s.file, cwd);
      let list = groups.get(cwd);
      if (!list) groups.set(cwd, (list = []));
      list.push(s);
    }
    return [...groups.entries()]
      .map(([cwd, sessions]) => {
        sessions.sort(byActivity);
        return { cwd, sessions, lastActivity: lastActivity(sessions[0]!) };
      })
      .sort((a, b) => b.lastActivity - a.lastActivity || a.cwd.localeCompare(b.cwd));
  }
}

function byActivity(a: StoreSession, b: StoreSession): number {
  return lastActivity(b) - lastActivity(a) || a.file.localeCompare(b.file);
}

/** A file's size and modification time (ms), as one comparable key. */
const stamp = (size: number, mtimeMs: number) => `${size}:${mtimeMs}`;

/** The project a session is listed under: its working directory, else its folder's slug in parentheses. */
function projectKey(s: StoreSession): string {
  return (s.summary.ok && s.summary.cwd) || (s.slug ? `(${s.slug})` : "(no project)");
}
