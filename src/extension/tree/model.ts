/**
 * The Sessions tree's model (GitHub Pull Requests' `PrsTreeModel` shape): the state the tree shows besides the
 * library, apart from the nodes that render it. Each session's outline for the filter (parsed once, however many
 * ask), large sessions' tail-first previews, the stable keys of session nodes, the "live" marks, the filter and the
 * fork display. It says what changed (`onDidChange`); the provider (provider.ts) re-renders those nodes.
 */
import { basename } from "node:path";
import * as vscode from "vscode";
import { type FilterMode, SessionOutline } from "../../core/outline.js";
import { lastWritten } from "../../node/store/index.js";
import { readTailPreview } from "../../node/tailPreview.js";
import { formatBytes } from "../../protocol/format.js";
import type { SessionService } from "../service.js";
import type { ForkDisplay } from "./node.js";
import { LIVE_MS } from "./present.js";

/** Sessions larger than this show progress while they are read. */
const LARGE_SESSION_BYTES = 8 * 1024 * 1024;
/**
 * Sessions larger than this show the latest turns of their active branch at once, read from the end of the file
 * (`readTailPreview`), until their parse ends: it takes half a second and more from here (a 1 GB session: seconds).
 */
const PREVIEW_BYTES = 64 * 1024 * 1024;

/** What the tree must show again: everything, these sessions, or these sessions and their families. */
export type TreeChange =
  { kind: "all" } | { kind: "sessions"; match: (file: string) => boolean } | { kind: "families"; files: Set<string> };

export class SessionsTreeModel implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TreeChange>();
  readonly onDidChange = this.emitter.event;
  private readonly outlines = new Map<string, SessionOutline>();
  /** Outlines being built (one parse per session, however many ask). */
  private readonly loading = new Map<string, Promise<SessionOutline | null>>();
  /** Tail-first outlines of large sessions whose parse has not ended (`preview`). */
  private readonly previews = new Map<string, SessionOutline>();
  private readonly keys = new Map<string, string>();
  private readonly liveFiles = new Set<string>();
  private readonly liveTimer: NodeJS.Timeout;
  private readonly disposables: vscode.Disposable[] = [];
  private filterMode: FilterMode;
  private forkDisplayMode: ForkDisplay = readForkDisplay();

  constructor(
    private readonly service: SessionService,
    filter: FilterMode,
  ) {
    this.filterMode = filter;
    this.disposables.push(
      service.onDidChange((set) => {
        if (!set || set.structural) return this.refreshAll();
        const files = new Set(set.changes.map((c) => c.file));
        for (const f of files) {
          this.outlines.delete(f);
          this.previews.delete(f);
        }
        this.emitter.fire({ kind: "families", files });
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration("piSessions.forks.display")) return;
        this.forkDisplayMode = readForkDisplay();
        this.refreshAll();
      }),
    );
    // The "live" marker fades a minute after the last write.
    this.liveTimer = setInterval(() => this.expireLive(), 15_000);
  }

  get filter(): FilterMode {
    return this.filterMode;
  }

  get forkDisplay(): ForkDisplay {
    return this.forkDisplayMode;
  }

  setFilter(mode: FilterMode): void {
    this.filterMode = mode;
    this.outlines.clear();
    this.previews.clear();
    this.emitter.fire({ kind: "sessions", match: () => true });
  }

  refreshAll(): void {
    this.outlines.clear();
    this.previews.clear();
    this.loading.clear(); // reads of a library replaced meanwhile are not joined
    this.emitter.fire({ kind: "all" });
  }

  markLive(file: string): void {
    this.liveFiles.add(file);
  }

  private expireLive(): void {
    const now = Date.now();
    const expired = new Set(
      [...this.liveFiles].filter((f) => {
        const s = this.service.lib.get(f);
        return !s || now - lastWritten(s) >= LIVE_MS;
      }),
    );
    if (!expired.size) return;
    for (const f of expired) this.liveFiles.delete(f);
    this.emitter.fire({ kind: "sessions", match: (file) => expired.has(file) });
  }

  /** `session:<id>`, made unique when two files carry the same session id (a copied file). */
  refreshKeys(): void {
    this.keys.clear();
    const used = new Set<string>();
    const sessions = this.service.lib.sessions.sort((a, b) => a.file.localeCompare(b.file));
    for (const s of sessions) {
      let key = s.summary.ok ? `session:${s.summary.id}` : `file:${s.file}`;
      if (used.has(key)) key = `${key}@${s.file}`;
      used.add(key);
      this.keys.set(s.file, key);
    }
  }

  keyOf(file: string): string {
    if (!this.keys.has(file)) this.refreshKeys();
    return this.keys.get(file) ?? `file:${file}`;
  }

  loadedOutline(file: string): SessionOutline | undefined {
    return this.outlines.get(file) ?? this.previews.get(file);
  }

  /** The session's model and its outline for the current filter (parsed on first use, then followed live). */
  outline(file: string): Promise<SessionOutline | null> {
    const cached = this.outlines.get(file);
    if (cached) return Promise.resolve(cached);
    let pending = this.loading.get(file);
    if (!pending) {
      const read = this.readOutline(file).finally(() => {
        if (this.loading.get(file) === read) this.loading.delete(file);
      });
      this.loading.set(file, (pending = read));
    }
    return pending;
  }

  private async readOutline(file: string): Promise<SessionOutline | null> {
    // A large session that is not followed yet takes a moment to read: say so in the window's progress area.
    const lib = this.service.lib;
    const size = lib.get(file)?.sizeBytes ?? 0;
    const title = vscode.l10n.t("Reading {0} ({1})", basename(file), formatBytes(size));
    let result;
    try {
      result =
        !lib.isFollowed(file) && size > LARGE_SESSION_BYTES
          ? await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title }, () => lib.open(file))
          : await lib.open(file);
    } finally {
      if (lib === this.service.lib) this.previews.delete(file);
    }
    if (!result.ok) return null;
    const outline = new SessionOutline(result.session, this.filterMode);
    // A library replaced meanwhile (new settings) reads its own: this one is answered, not kept.
    if (lib === this.service.lib) this.outlines.set(file, outline);
    return outline;
  }

  /**
   * For a large session not read yet: the latest turns of its active branch, read from the end of the file, while
   * the whole of it is read in the background; its nodes are rendered again when that ends. Null otherwise.
   */
  async preview(file: string): Promise<SessionOutline | null> {
    const lib = this.service.lib;
    if (this.outlines.has(file)) return null;
    const known = this.previews.get(file);
    if (known) return known;
    if (lib.isFollowed(file) || (lib.get(file)?.sizeBytes ?? 0) <= PREVIEW_BYTES) return null;
    let session;
    try {
      session = await readTailPreview(file);
    } catch {
      session = null; // the full read reports why the file cannot be read
    }
    if (!session) return null;
    const outline = new SessionOutline(session, this.filterMode);
    this.previews.set(file, outline);
    const shown = () => this.emitter.fire({ kind: "sessions", match: (f) => f === file });
    void this.outline(file).then(shown, shown);
    return outline;
  }

  dispose(): void {
    clearInterval(this.liveTimer);
    for (const d of this.disposables) d.dispose();
    this.emitter.dispose();
  }
}

function readForkDisplay(): ForkDisplay {
  return vscode.workspace.getConfiguration("piSessions").get<string>("forks.display") === "flat" ? "flat" : "nested";
}
