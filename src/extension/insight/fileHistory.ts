/**
 * The agent history of every file, for the CodeLens and the Agent History view: built from the listing's summaries
 * (src/node/touches.ts), never by reading sessions when an editor asks. Rebuilt, debounced, when the library changes
 * (a live session's appended turn, a new or removed session).
 */
import { homedir } from "node:os";
import * as vscode from "vscode";
import type { ChangeSet } from "../../node/library.js";
import { byTimeDesc, type FileTouch, indexTouches, pathKey, sessionTouches } from "../../node/touches.js";
import type { Logger } from "../logging.js";
import type { SessionService } from "../service.js";

/** A burst of watcher events becomes one rebuild. */
const REBUILD_MS = 300;

export class FileHistory implements vscode.Disposable {
  private index: Map<string, FileTouch[]> | null = null;
  private building: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private readonly emitter = new vscode.EventEmitter<void>();
  /** Fired after the index was rebuilt. */
  readonly onDidChange = this.emitter.event;
  private readonly subscriptions: vscode.Disposable[];
  /** The quick pick of a file's turns while it is open (tests wait for it to be filled). */
  activePick: vscode.QuickPick<vscode.QuickPickItem> | undefined;

  constructor(
    private readonly service: SessionService,
    private readonly logger: Logger,
  ) {
    this.subscriptions = [this.service.onDidChange((set) => this.schedule(set))];
  }

  /** Files whose sessions changed since the last update; null: rebuild everything (a structural change). */
  private pending: Set<string> | null = new Set();

  private schedule(set: ChangeSet | undefined): void {
    if (this.index === null && this.building === null) return; // nobody asked yet
    this.generation++;
    if (!set || set.structural) this.pending = null;
    else if (this.pending) for (const c of set.changes) this.pending.add(c.file);
    clearTimeout(this.timer);
    this.timer = setTimeout(
      () => void (this.pending && this.index ? this.update(this.pending) : this.rebuild()),
      REBUILD_MS,
    );
  }

  /**
   * An append to a listed session (the usual change while an agent works): only its touches are replaced. Lineage did
   * not change (that change is structural), so no other session's ownership did.
   */
  private update(files: Set<string>): void {
    const index = this.index!;
    this.pending = new Set();
    const home = homedir();
    for (const [key, list] of index) {
      const kept = list.filter((t) => !files.has(t.session.file));
      if (kept.length === list.length) continue;
      if (kept.length) index.set(key, kept);
      else index.delete(key);
    }
    const added = new Map<string, FileTouch[]>();
    for (const file of files) {
      const s = this.service.lib.get(file);
      if (!s) continue;
      for (const [key, touch] of sessionTouches(s, { home })) {
        let list = added.get(key);
        if (!list) added.set(key, (list = []));
        list.push(touch);
      }
    }
    // New arrays: a quick pick may still hold the old ones.
    for (const [key, list] of added) index.set(key, [...(index.get(key) ?? []), ...list].sort(byTimeDesc));
    this.emitter.fire();
  }

  /** Counts the changes scheduled: a rebuild clears what is pending only if none came while it waited. */
  private generation = 0;

  private async rebuild(): Promise<void> {
    const generation = this.generation;
    try {
      await this.service.ensureStarted();
      // Listed sessions first paint from their head and tail; touches need the full summaries.
      await this.service.lib.whenComplete();
      const t0 = Date.now();
      if (generation === this.generation) this.pending = new Set();
      this.index = indexTouches(this.service.lib.sessions, { home: homedir() });
      this.logger.info(`file history: ${this.index.size} files touched by agents (${Date.now() - t0} ms)`);
      this.emitter.fire();
    } catch (err) {
      this.logger.error("building the file history failed", err);
    }
  }

  /** The touches of a file, newest first; null until the history is built (the first call starts it). */
  touchesOf(fsPath: string): FileTouch[] | null {
    if (!this.index) {
      this.building ??= this.rebuild();
      return null;
    }
    return this.index.get(pathKey(fsPath)) ?? [];
  }

  /** The touches of a file once the history is built. */
  async touchesWhenReady(fsPath: string): Promise<FileTouch[]> {
    this.building ??= this.rebuild();
    await this.building;
    return this.touchesOf(fsPath) ?? [];
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const s of this.subscriptions) s.dispose();
    this.emitter.dispose();
  }
}
