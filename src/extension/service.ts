/**
 * Owns the session library and the file watcher for the extension. Nothing is read until the tree asks
 * (`ensureStarted`); settings changes rebuild both.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { type ChangeSet, SessionLibrary } from "../node/library.js";
import type { Session } from "../core/session/index.js";
import type { HostPaths } from "../core/slug.js";
import { hostPaths, resolveRoots, type SessionRoot } from "../node/roots.js";
import { cacheFileFor, type StoreSession } from "../node/store/index.js";
import { SessionWatcher } from "../node/watcher.js";
import { ContextKey } from "./ids.js";
import type { Logger } from "./logging.js";
import { NotASessionError, UnreadableSessionError } from "./sessionErrors.js";

/**
 * How often every session file is stat'ed behind the watcher's back (`SessionLibrary.sweep`): a lost event shows
 * within this time. A sweep of 2,000 sessions that finds nothing costs about 20 ms, in slices.
 */
const SWEEP_MS = 5 * 60_000;

export type LibraryState = "idle" | "loading" | "noAgentDir" | "noSessions" | "ready";

export interface Settings {
  agentDirs: string[];
  includePi: boolean;
  includeOmp: boolean;
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration("piSessions");
  const dirs = c.get<unknown>("agentDirs");
  return {
    agentDirs: Array.isArray(dirs) ? dirs.filter((d): d is string => typeof d === "string" && d.trim() !== "") : [],
    includePi: c.get<boolean>("includePi", true),
    includeOmp: c.get<boolean>("includeOmp", true),
  };
}

export class SessionService implements vscode.Disposable {
  private library: SessionLibrary;
  private watcher: SessionWatcher | null = null;
  private sweepTimer: NodeJS.Timeout | undefined;
  private started: Promise<void> | null = null;
  private generation = 0;
  private readonly changeEmitter = new vscode.EventEmitter<ChangeSet | undefined>();
  /** Fires with the sessions that changed, or undefined when everything must be redrawn. */
  readonly onDidChange = this.changeEmitter.event;
  private readonly startEmitter = new vscode.EventEmitter<void>();
  /** Fires when a library has been listed and is watched (after a start, and after each reconfiguration's). */
  readonly onDidStart = this.startEmitter.event;
  state: LibraryState = "idle";
  private readonly stateEmitter = new vscode.EventEmitter<LibraryState>();
  /** Fires when the library's state changes (loading, no agent folder, no sessions, ready). */
  readonly onDidChangeState = this.stateEmitter.event;

  constructor(
    private readonly logger: Logger,
    private readonly cacheDir: string,
    private settings: Settings = readSettings(),
    /** The bundled worker that reads a cold store's files off this thread (dist/summaryWorker.cjs). */
    private readonly summaryWorker?: string,
  ) {
    this.library = this.makeLibrary();
  }

  /** The bundled worker that compares a large pair of branches: the summary worker's bundle (`{ compare }`). */
  get compareWorker(): string {
    // The bundle's own dir otherwise: the extension is dist/extension.cjs, beside its workers.
    return this.summaryWorker ?? join(__dirname, "summaryWorker.cjs");
  }

  get lib(): SessionLibrary {
    return this.library;
  }

  /** A session the store listed, or `NotASessionError`: commands open nothing outside the configured roots. */
  resolve(file: string | undefined): StoreSession {
    const s = file ? this.library.get(file) : undefined;
    if (!s) throw new NotASessionError(file || undefined);
    return s;
  }

  /** The full model of a listed session, or `NotASessionError` / `UnreadableSessionError`. */
  async open(file: string | undefined): Promise<Session> {
    const s = this.resolve(file);
    const r = await this.library.open(s.file);
    if (!r.ok) throw new UnreadableSessionError(s.file, r.rejection);
    return r.session;
  }

  /** The workspace's folders on disk (remote and virtual folders hold no sessions of this machine). */
  workspaceFolders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
  }

  /** The workspace's folders and this host's paths: what a workspace scope is matched with (`inWorkspace`). */
  workspaceScope(): { folders: string[]; host: HostPaths } {
    return { folders: this.workspaceFolders(), host: hostPaths() };
  }

  /** The sessions of the workspace's folders: the one scope the tree, search, the panels and the status bar use. */
  workspaceSessions(): StoreSession[] {
    return this.library.workspaceSessions(this.workspaceFolders(), hostPaths());
  }

  get roots(): SessionRoot[] {
    return this.library.roots;
  }

  /** Which agents' sessions are listed (the settings `includePi` and `includeOmp`). */
  get included(): { pi: boolean; omp: boolean } {
    return { pi: this.settings.includePi, omp: this.settings.includeOmp };
  }

  private makeLibrary(): SessionLibrary {
    const roots = resolveRoots({ agentDirs: this.settings.agentDirs });
    const generation = this.generation;
    const library: SessionLibrary = new SessionLibrary({
      roots,
      cacheFile: cacheFileFor(this.cacheDir, roots),
      includePi: this.settings.includePi,
      includeOmp: this.settings.includeOmp,
      ...(this.summaryWorker ? { summaryWorker: this.summaryWorker } : {}),
      onComplete: () => {
        if (generation !== this.generation) return;
        this.logger.info(`read the ${library.sessions.length} sessions in full (cost, counts, fork ownership)`);
        this.changeEmitter.fire(undefined);
      },
    });
    return library;
  }

  /** Load the library and start watching (once). */
  ensureStarted(): Promise<void> {
    this.started ??= this.start();
    return this.started;
  }

  private async start(): Promise<void> {
    const generation = this.generation;
    const library = this.library;
    this.setState("loading");
    const t0 = Date.now();
    this.logger.info(`session roots: ${library.roots.map((r) => `${r.dir} (${r.source})`).join(", ") || "none"}`);
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: vscode.l10n.t("Listing Pi sessions") },
      () => library.ensureLoaded(),
    );
    // Sessions listed from their first and last bytes are read in full in the background (costs, counts, forks).
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: vscode.l10n.t("Reading Pi sessions") },
      () => library.whenComplete(),
    );
    if (generation !== this.generation) return;
    this.logger.info(
      `listed ${library.sessions.length} sessions in ${Date.now() - t0} ms ` +
        `(${library.filesRead} files parsed, the rest from the cache)`,
    );
    for (const e of library.errors) this.logger.warn(`${e.path}: ${e.message}`);
    this.updateState();
    const watcher = new SessionWatcher(
      library.roots.map((r) => r.dir),
      (files) => void this.onFiles(files, generation),
      { onError: (err) => this.logger.warn(`watcher: ${String(err)}`) },
    );
    this.watcher = watcher;
    await watcher.start();
    if (generation !== this.generation) return;
    clearInterval(this.sweepTimer);
    this.sweepTimer = setInterval(() => void this.sweep(generation), SWEEP_MS);
    this.sweepTimer.unref();
    this.startEmitter.fire();
  }

  /** The watcher's safety net (`SessionLibrary.sweep`): what it finds is applied like the watcher's events. */
  private async sweep(generation: number): Promise<void> {
    if (generation !== this.generation) return;
    try {
      this.deliver(await this.library.sweep(), generation);
    } catch (err) {
      this.logger.error("sweeping the session roots failed", err);
    }
  }

  private async onFiles(files: string[], generation: number): Promise<void> {
    if (generation !== this.generation) return;
    try {
      this.deliver(await this.library.applyChanges(files), generation);
    } catch (err) {
      this.logger.error("applying file changes failed", err);
    }
  }

  private deliver(set: ChangeSet, generation: number): void {
    if (generation !== this.generation || set.changes.length === 0) return;
    for (const c of set.changes) this.logger.info(`${c.kind}: ${c.file}`);
    if (set.structural) this.updateState();
    this.changeEmitter.fire(set);
  }

  private updateState(): void {
    const anyRoot = this.library.roots.some((r) => existsSync(r.dir));
    this.setState(this.library.sessions.length ? "ready" : anyRoot ? "noSessions" : "noAgentDir");
  }

  private setState(state: LibraryState): void {
    const changed = this.state !== state;
    this.state = state;
    if (changed) this.stateEmitter.fire(state);
    void vscode.commands.executeCommand("setContext", ContextKey.State, state);
  }

  /** Re-list everything (the Refresh command). */
  async refresh(): Promise<void> {
    // A folder made since the roots were resolved (an agent's first run creates `sessions/`) moves where they are.
    const roots = resolveRoots({ agentDirs: this.settings.agentDirs });
    if (roots.map((r) => r.dir).join("\n") !== this.library.roots.map((r) => r.dir).join("\n"))
      await this.reconfigure(this.settings);
    await this.ensureStarted();
    await this.library.load();
    this.updateState();
    this.changeEmitter.fire(undefined);
  }

  /** Settings changed: new roots, new library, new watcher. */
  async reconfigure(settings: Settings = readSettings()): Promise<void> {
    this.settings = settings;
    this.generation++;
    // Swap synchronously, so that nothing reads the old library after this point.
    const old = this.watcher;
    this.watcher = null;
    clearInterval(this.sweepTimer);
    this.library.dispose();
    this.library = this.makeLibrary();
    this.started = null;
    this.setState("idle");
    this.changeEmitter.fire(undefined);
    await old?.close();
  }

  /** Take a file's change in now (after our own append), without waiting for the watcher. */
  async refreshFile(file: string): Promise<void> {
    await this.ensureStarted();
    const set = await this.library.applyChanges([file]);
    if (set.changes.length) this.changeEmitter.fire(set);
  }

  /** Deliver pending watcher events now (tests; the Refresh command). */
  flushWatcher(): void {
    this.watcher?.flush();
  }

  dispose(): void {
    this.generation++;
    clearInterval(this.sweepTimer);
    this.library.dispose();
    void this.watcher?.close();
    this.changeEmitter.dispose();
    this.startEmitter.dispose();
    this.stateEmitter.dispose();
  }
}
