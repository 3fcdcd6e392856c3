/**
 * Watches the session roots with chokidar and reports changed session files in coalesced batches: a burst of
 * appends (an agent streams many entries a second) becomes one batch after `debounceMs` of quiet, and a steady
 * stream is flushed at least every `maxWaitMs`. Roots that do not exist yet are picked up when they appear.
 */
import { existsSync } from "node:fs";
import { basename } from "node:path";
import { type FSWatcher, watch } from "chokidar";

export interface WatcherOptions {
  debounceMs?: number;
  maxWaitMs?: number;
  /** How often to look for roots that did not exist yet. */
  rootPollMs?: number;
  onError?: (err: unknown) => void;
}

const isSessionFile = (p: string) => p.endsWith(".jsonl") && !basename(p).startsWith(".");

export class SessionWatcher {
  private watcher: FSWatcher | null = null;
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private firstPendingAt = 0;
  private rootTimer: NodeJS.Timeout | null = null;
  private readonly watched = new Set<string>();
  private closed = false;

  constructor(
    private readonly roots: string[],
    private readonly onBatch: (files: string[]) => void,
    private readonly options: WatcherOptions = {},
  ) {}

  /** Resolves once the existing roots are being watched. */
  async start(): Promise<void> {
    const watcher = watch([], {
      ignoreInitial: true,
      followSymlinks: false,
      depth: 2, // <root>/<slug>/<session>/<nested>.jsonl
      ignored: (path, stats) => basename(path).startsWith(".") || (stats?.isFile() === true && !isSessionFile(path)),
    });
    this.watcher = watcher;
    for (const event of ["add", "change", "unlink"] as const) {
      watcher.on(event, (path: string) => {
        if (isSessionFile(path)) this.queue(path);
      });
    }
    watcher.on("error", (err) => this.options.onError?.(err));
    const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
    // chokidar only reports "ready" for paths it was given: with no existing root there is nothing to wait for.
    if (this.addExistingRoots() > 0) await ready;
    this.rootTimer = setInterval(() => this.addExistingRoots(), this.options.rootPollMs ?? 5000);
    this.rootTimer.unref();
  }

  /** Start watching roots that exist now; returns how many were added. */
  private addExistingRoots(): number {
    let added = 0;
    for (const root of this.roots) {
      if (this.watched.has(root) || !existsSync(root)) continue;
      this.watched.add(root);
      this.watcher?.add(root);
      added++;
    }
    return added;
  }

  private queue(path: string): void {
    if (this.closed) return;
    if (this.pending.size === 0) this.firstPendingAt = Date.now();
    this.pending.add(path);
    if (this.timer) clearTimeout(this.timer);
    const debounce = this.options.debounceMs ?? 150;
    const maxWait = this.options.maxWaitMs ?? 1000;
    const wait = Math.max(0, Math.min(debounce, this.firstPendingAt + maxWait - Date.now()));
    this.timer = setTimeout(() => this.flush(), wait);
  }

  /** Deliver the pending batch now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.size === 0) return;
    const files = [...this.pending];
    this.pending.clear();
    this.onBatch(files);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.rootTimer) clearInterval(this.rootTimer);
    await this.watcher?.close();
  }
}
