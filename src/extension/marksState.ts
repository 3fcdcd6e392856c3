/**
 * The pins and archives the Sessions view shows (src/node/manage/marks.ts keeps them: OMP's pins in OMP's
 * session-pins.json, the rest in session-marks.json in the cache dir the CLI shares). Read when the library loads and
 * again when either file changes (a pin from `omp` or the CLI shows here too); "Show Archived" is remembered.
 */
import { basename, dirname, join } from "node:path";
import * as vscode from "vscode";
import { type Marks, SessionMarks } from "../node/manage/marks.js";
import { OMP_PINS_FILE } from "../node/manage/ompPins.js";
import type { FamilyIndex, StoreSession } from "../node/store/index.js";
import { ContextKey } from "./ids.js";
import type { SessionService } from "./service.js";

const SHOW_ARCHIVED_KEY = ContextKey.ShowArchived;

export class MarksState implements vscode.Disposable {
  private marks: Marks = { pinned: new Set(), archived: new Set() };
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;
  private watchers: vscode.Disposable[] = [];
  private watched = "";
  private readonly disposables: vscode.Disposable[] = [];
  private readonly store: SessionMarks;

  constructor(
    private readonly service: SessionService,
    stateDir: string,
    private readonly memento: vscode.Memento,
  ) {
    this.store = new SessionMarks(stateDir, () => service.roots);
    this.disposables.push(service.onDidStart(() => void this.reload()));
    void vscode.commands.executeCommand("setContext", SHOW_ARCHIVED_KEY, this.showArchived);
  }

  get showArchived(): boolean {
    return this.memento.get<boolean>(SHOW_ARCHIVED_KEY, false);
  }

  async setShowArchived(on: boolean): Promise<void> {
    await this.memento.update(SHOW_ARCHIVED_KEY, on);
    await vscode.commands.executeCommand("setContext", SHOW_ARCHIVED_KEY, on);
    this.emitter.fire();
  }

  isPinned(s: StoreSession): boolean {
    return s.summary.ok && this.marks.pinned.has(s.summary.id);
  }

  isArchived(s: StoreSession): boolean {
    return s.summary.ok && this.marks.archived.has(s.summary.id);
  }

  /** The sessions a group lists: the archived ones only with "Show Archived". */
  visible(list: readonly StoreSession[]): StoreSession[] {
    return this.showArchived ? [...list] : list.filter((s) => !this.isArchived(s));
  }

  /** The archived sessions of `list` (what "Archived (N)" holds). */
  archived(list: readonly StoreSession[]): StoreSession[] {
    return list.filter((s) => this.isArchived(s));
  }

  /** Rows with a pinned session in their family first, each part in the order it had. */
  pinnedFirst(rows: readonly StoreSession[], families: FamilyIndex, among: readonly StoreSession[]): StoreSession[] {
    const pinnedRoots = new Set(among.filter((s) => this.isPinned(s)).map((s) => families.root(s)));
    if (!pinnedRoots.size) return [...rows];
    const pinned = (s: StoreSession) => pinnedRoots.has(families.root(s));
    return [...rows.filter(pinned), ...rows.filter((s) => !pinned(s))];
  }

  async setPinned(s: StoreSession, on: boolean): Promise<boolean> {
    const changed = await this.store.setPinned(target(s), on);
    await this.reload();
    return changed;
  }

  async setArchived(s: StoreSession, on: boolean): Promise<boolean> {
    const changed = await this.store.setArchived(target(s), on);
    await this.reload();
    return changed;
  }

  /** Read the marks again (and watch the files they are in, which may be new). */
  async reload(): Promise<void> {
    try {
      this.marks = await this.store.read();
    } catch {
      // An unreadable marks file lists nothing as marked; a write names the file and why.
      this.marks = { pinned: new Set(), archived: new Set() };
    }
    this.watch();
    this.emitter.fire();
  }

  private watch(): void {
    const files = [
      this.store.file,
      ...this.service.roots
        .filter((r) => basename(r.dir) === "sessions")
        .map((r) => join(dirname(r.dir), OMP_PINS_FILE)),
    ];
    if (files.join("\n") === this.watched) return;
    this.watched = files.join("\n");
    for (const w of this.watchers) w.dispose();
    this.watchers = files.map((file) => {
      const w = vscode.workspace.createFileSystemWatcher(
        new vscode.RelativePattern(vscode.Uri.file(dirname(file)), basename(file)),
      );
      const again = () => void this.reload();
      w.onDidChange(again);
      w.onDidCreate(again);
      w.onDidDelete(again);
      return w;
    });
  }

  dispose(): void {
    for (const d of [...this.watchers, ...this.disposables]) d.dispose();
    this.emitter.dispose();
  }
}

function target(s: StoreSession) {
  if (!s.summary.ok) throw new Error(vscode.l10n.t("{0} cannot be read, so it has no session id to mark", s.file));
  return { id: s.summary.id, file: s.file, flavor: s.summary.flavor === "omp" ? ("omp" as const) : ("pi" as const) };
}
