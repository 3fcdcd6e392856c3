/**
 * The Sessions tree. Elements are plain data with a stable id and a parent (for `reveal`); TreeItems are made on
 * demand. Element objects are interned by id so that a change can refresh exactly one session's nodes and so
 * that expansion survives refreshes. Children are built one level at a time from the core's `SessionOutline`.
 */
import { basename } from "node:path";
import * as vscode from "vscode";
import {
  contentText,
  describeEntry,
  entryLabel,
  formatBytes,
  formatCost,
  formatTokens,
  relativeTime,
  truncate,
} from "../protocol/format.js";
import { type FilterMode, type OutlineItem, SessionOutline } from "../core/outline.js";
import { type Entry, isPlainObject, pathTo, type Session } from "../core/session.js";
import { lastActivity, ownCost, sessionTitle } from "../node/store/index.js";
import { hostPaths } from "../node/roots.js";
import type { StoreSession } from "../node/store/index.js";
import { CommandId } from "./ids.js";
import type { SessionService } from "./service.js";

interface Base {
  id: string;
  parent: Element | undefined;
}
export interface GroupEl extends Base {
  kind: "group";
  group: "workspace" | "all";
}
export interface ProjectEl extends Base {
  kind: "project";
  cwd: string;
}
export interface SessionEl extends Base {
  kind: "session";
  file: string;
}
/** A row of a session's outline: a turn, a standalone entry, or a branch. */
export interface RowEl extends Base {
  kind: "row";
  file: string;
  item: OutlineItem;
}
/** An entry folded under a turn. */
export interface EntryEl extends Base {
  kind: "entry";
  file: string;
  entryId: string;
}
export interface DetailEl extends Base {
  kind: "detail";
  file: string;
  entryId: string;
  detail: "summary" | "kept" | "replaced" | "from";
}
/** A child session that forked off at this point. */
export interface ForkEl extends Base {
  kind: "fork";
  file: string;
  child: string;
}
export interface ForkedFromEl extends Base {
  kind: "forkedFrom";
  file: string;
}
export interface InfoEl extends Base {
  kind: "info";
  text: string;
  tooltip?: string;
  icon?: string;
  file?: string;
  line?: number;
  children?: InfoEl[];
}
export type Element = GroupEl | ProjectEl | SessionEl | RowEl | EntryEl | DetailEl | ForkEl | ForkedFromEl | InfoEl;

/** Written in the last minute. */
const LIVE_MS = 60_000;

/** Sessions larger than this show progress while they are read. */
const LARGE_SESSION_BYTES = 8 * 1024 * 1024;

export class SessionsTreeProvider implements vscode.TreeDataProvider<Element>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Element | Element[] | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly elements = new Map<string, Element>();
  private readonly outlines = new Map<string, SessionOutline>();
  private readonly keys = new Map<string, string>();
  private liveFiles = new Set<string>();
  private readonly liveTimer: NodeJS.Timeout;
  private readonly disposables: vscode.Disposable[] = [];
  private filterMode: FilterMode;

  constructor(
    private readonly service: SessionService,
    filter: FilterMode,
    readonly workspaceFolderPaths: () => string[] = () =>
      (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath),
  ) {
    this.filterMode = filter;
    this.disposables.push(
      service.onDidChange((set) => {
        if (!set || set.structural) return this.refreshAll();
        const files = new Set(set.changes.map((c) => c.file));
        for (const f of files) this.outlines.delete(f);
        const els = [...this.elements.values()].filter(
          (e): e is SessionEl => e.kind === "session" && files.has(e.file),
        );
        if (els.length) this.emitter.fire(els);
      }),
    );
    // The "live" marker fades a minute after the last write.
    this.liveTimer = setInterval(() => this.expireLive(), 15_000);
  }

  get filter(): FilterMode {
    return this.filterMode;
  }

  setFilter(mode: FilterMode): void {
    this.filterMode = mode;
    this.outlines.clear();
    const sessions = [...this.elements.values()].filter((e) => e.kind === "session");
    if (sessions.length) this.emitter.fire(sessions);
  }

  refreshAll(): void {
    this.outlines.clear();
    this.emitter.fire(undefined);
  }

  private expireLive(): void {
    const now = Date.now();
    const expired = [...this.liveFiles].filter((f) => {
      const s = this.service.lib.get(f);
      return !s || now - lastActivity(s) >= LIVE_MS;
    });
    if (!expired.length) return;
    for (const f of expired) this.liveFiles.delete(f);
    const els = [...this.elements.values()].filter((e) => e.kind === "session" && expired.includes(e.file));
    if (els.length) this.emitter.fire(els);
  }

  private intern<T extends Element>(el: T): T {
    const existing = this.elements.get(el.id) as T | undefined;
    if (existing && existing.kind === el.kind) {
      Object.assign(existing, el);
      return existing;
    }
    this.elements.set(el.id, el);
    return el;
  }

  // ----------------------------------------------------------------------------------------------
  // Structure

  async getChildren(el?: Element): Promise<Element[]> {
    await this.service.ensureStarted();
    if (!el) return this.roots();
    switch (el.kind) {
      case "group":
        return el.group === "workspace" ? this.workspaceChildren(el) : this.projectNodes(el);
      case "project": {
        const project = this.service.lib.projects().find((p) => p.cwd === el.cwd);
        return (project?.sessions ?? []).map((s) => this.sessionEl(s, el));
      }
      case "session":
        return this.sessionChildren(el);
      case "row":
        return this.rowChildren(el);
      case "info":
        return el.children ?? [];
      default:
        return [];
    }
  }

  getParent(el: Element): Element | undefined {
    return el.parent;
  }

  private roots(): Element[] {
    const state = this.service.state;
    if (state === "noAgentDir" || state === "noSessions") return []; // viewsWelcome explains
    this.refreshKeys();
    const out: Element[] = [];
    if (this.workspaceFolderPaths().length)
      out.push(this.intern<GroupEl>({ kind: "group", id: "ws", group: "workspace", parent: undefined }));
    out.push(this.intern<GroupEl>({ kind: "group", id: "all", group: "all", parent: undefined }));
    return out;
  }

  /** `session:<id>`, made unique when two files carry the same session id (a copied file). */
  private refreshKeys(): void {
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

  private keyOf(file: string): string {
    if (!this.keys.has(file)) this.refreshKeys();
    return this.keys.get(file) ?? `file:${file}`;
  }

  private workspaceChildren(group: GroupEl): Element[] {
    const folders = this.workspaceFolderPaths();
    const sessions = this.service.lib.workspaceSessions(folders, hostPaths());
    if (!sessions.length) {
      return [
        this.intern<InfoEl>({
          kind: "info",
          id: "ws/empty",
          parent: group,
          text: "No sessions for this workspace yet",
          tooltip: `Sessions appear here when pi or omp runs in ${folders.join(", ")}. Sessions of other folders are under All Projects.`,
          icon: "info",
        }),
      ];
    }
    return sessions.map((s) => this.sessionEl(s, group));
  }

  private projectNodes(group: GroupEl): Element[] {
    return this.service.lib
      .projects()
      .map((p) => this.intern<ProjectEl>({ kind: "project", id: `all/project:${p.cwd}`, cwd: p.cwd, parent: group }));
  }

  private sessionEl(s: StoreSession, parent: GroupEl | ProjectEl): SessionEl {
    return this.intern<SessionEl>({ kind: "session", id: `${parent.id}/${this.keyOf(s.file)}`, file: s.file, parent });
  }

  /** The session's model and its outline for the current filter (parsed on first use, then followed live). */
  async outline(file: string): Promise<SessionOutline | null> {
    const cached = this.outlines.get(file);
    if (cached) return cached;
    // A large session that is not followed yet takes a moment to read: say so in the window's progress area.
    const lib = this.service.lib;
    const size = lib.get(file)?.sizeBytes ?? 0;
    const result =
      !lib.tracker(file) && size > LARGE_SESSION_BYTES
        ? await vscode.window.withProgress(
            { location: vscode.ProgressLocation.Window, title: `Reading ${basename(file)} (${formatBytes(size)})` },
            () => lib.open(file),
          )
        : await lib.open(file);
    if (!result.ok) return null;
    const outline = new SessionOutline(result.session, this.filterMode);
    this.outlines.set(file, outline);
    return outline;
  }

  private async sessionChildren(el: SessionEl): Promise<Element[]> {
    const s = this.service.lib.get(el.file);
    if (!s) return [];
    const outline = await this.outline(el.file);
    if (!outline) {
      const r = this.service.lib.peek(el.file);
      const rejection = r && !r.ok ? r.rejection : s.summary.ok ? null : s.summary.rejection;
      const diagnostics = r && !r.ok ? r.diagnostics : s.summary.ok ? [] : s.summary.diagnostics;
      const out: Element[] = [];
      if (rejection) {
        out.push(
          this.intern<InfoEl>({
            kind: "info",
            id: `${el.id}/rejected`,
            parent: el,
            text: `Not readable: ${rejection.message}`,
            tooltip: `${el.file}, line ${rejection.line}: ${rejection.message} (${rejection.code})`,
            icon: "error",
            file: el.file,
            line: rejection.line,
          }),
        );
      }
      if (diagnostics.length) out.push(this.problemsEl(el, diagnostics));
      return out;
    }
    const out: Element[] = [];
    if (s.summary.ok && s.summary.parentSession)
      out.push(this.intern<ForkedFromEl>({ kind: "forkedFrom", id: `${el.id}/forkedFrom`, file: el.file, parent: el }));
    out.push(...outline.items(null).map((item) => this.rowEl(el, el, item)));
    // Forks whose fork point is unknown (no inherited entries) hang off the session itself.
    for (const c of s.children) {
      if (!c.forkPointId)
        out.push(
          this.intern<ForkEl>({
            kind: "fork",
            id: `${el.id}/fork:${this.keyOf(c.file)}`,
            file: el.file,
            child: c.file,
            parent: el,
          }),
        );
    }
    if (outline.session.detached.length) {
      out.push(
        this.intern<InfoEl>({
          kind: "info",
          id: `${el.id}/detached`,
          parent: el,
          text: `${outline.session.detached.length} entries in a parent cycle (reachable from no root)`,
          icon: "warning",
          children: outline.session.detached.map((id) => {
            const e = outline.session.byId.get(id)!;
            return {
              kind: "info",
              id: `${el.id}/detached/${id}`,
              parent: undefined,
              text: describeEntry(e),
              file: el.file,
              line: e.line,
            } satisfies InfoEl;
          }),
        }),
      );
    }
    if (outline.session.diagnostics.length) out.push(this.problemsEl(el, outline.session.diagnostics));
    return out;
  }

  private problemsEl(
    el: SessionEl,
    diagnostics: { line: number; severity: string; code: string; message: string }[],
  ): InfoEl {
    const info: InfoEl = this.intern<InfoEl>({
      kind: "info",
      id: `${el.id}/problems`,
      parent: el,
      text: `${diagnostics.length} problem${diagnostics.length === 1 ? "" : "s"} in the file`,
      icon: diagnostics.some((d) => d.severity === "error") ? "error" : "warning",
    });
    info.children = diagnostics.slice(0, 200).map((d, i) => ({
      kind: "info",
      id: `${el.id}/problems/${i}`,
      parent: info,
      text: `line ${d.line}: ${d.message}`,
      tooltip: `${el.file}:${d.line} (${d.code})`,
      icon: d.severity === "error" ? "error" : "warning",
      file: el.file,
      line: d.line,
    }));
    return info;
  }

  private sessionElOf(el: Element): SessionEl | undefined {
    for (let e: Element | undefined = el; e; e = e.parent) if (e.kind === "session") return e;
    return undefined;
  }

  private rowEl(sessionEl: SessionEl, parent: Element, item: OutlineItem): RowEl {
    const id = item.kind === "branch" ? `${sessionEl.id}/branch:${item.id}` : `${sessionEl.id}/entry:${item.id}`;
    return this.intern<RowEl>({ kind: "row", id, file: sessionEl.file, item, parent });
  }

  private async rowChildren(el: RowEl): Promise<Element[]> {
    const sessionEl = this.sessionElOf(el);
    const outline = await this.outline(el.file);
    if (!sessionEl || !outline) return [];
    const { item } = el;
    if (item.kind === "branch") return outline.items(item.id).map((i) => this.rowEl(sessionEl, el, i));
    const entry = outline.session.byId.get(item.id);
    if (!entry) return [];
    const out: Element[] = [];
    if (entry.type === "compaction") {
      out.push(this.detailEl(el, "summary", entry.id));
      const info = outline.session.compactions.find((c) => c.id === entry.id);
      if (info?.keptFromId) out.push(this.detailEl(el, "kept", entry.id));
      if (info?.replacesThroughId) out.push(this.detailEl(el, "replaced", entry.id));
    } else if (entry.type === "branch_summary") {
      out.push(this.detailEl(el, "summary", entry.id));
      if (typeof entry.data.fromId === "string") out.push(this.detailEl(el, "from", entry.id));
    }
    for (const id of item.folded ?? [])
      out.push(
        this.intern<EntryEl>({
          kind: "entry",
          id: `${sessionEl.id}/entry:${id}`,
          file: el.file,
          entryId: id,
          parent: el,
        }),
      );
    out.push(...(await this.forkEls(el, [item.id, ...(item.folded ?? [])])));
    return out;
  }

  private detailEl(parent: RowEl, detail: DetailEl["detail"], entryId: string): DetailEl {
    return this.intern<DetailEl>({
      kind: "detail",
      id: `${parent.id}/${detail}`,
      file: parent.file,
      entryId,
      detail,
      parent,
    });
  }

  /** Child sessions forked at one of `ids` (the fork point, or its nearest visible ancestor under a filter). */
  private async forkEls(parent: Element, ids: string[]): Promise<ForkEl[]> {
    const file = (parent as { file?: string }).file;
    const sessionEl = this.sessionElOf(parent);
    if (!file || !sessionEl) return [];
    const s = this.service.lib.get(file);
    const outline = await this.outline(file);
    if (!s || !outline || !s.children.length) return [];
    const here = new Set(ids);
    const out: ForkEl[] = [];
    for (const c of s.children) {
      if (!c.forkPointId) continue;
      const at = outline.nearestVisible(c.forkPointId);
      if (!at || !here.has(at)) continue;
      out.push(
        this.intern<ForkEl>({
          kind: "fork",
          id: `${parent.id}/fork:${this.keyOf(c.file)}`,
          file,
          child: c.file,
          parent,
        }),
      );
    }
    return out;
  }

  // ----------------------------------------------------------------------------------------------
  // Finding elements (reveal)

  /** The element for a session, preferring the This Workspace group. */
  async sessionElementFor(file: string, prefer: "workspace" | "all" = "workspace"): Promise<SessionEl | undefined> {
    await this.service.ensureStarted();
    const roots = this.roots();
    const groups = prefer === "workspace" ? roots : [...roots].reverse();
    for (const g of groups) {
      const kids = await this.getChildren(g);
      for (const k of kids) {
        if (k.kind === "session" && k.file === file) return k;
        if (k.kind === "project") {
          const sessions = await this.getChildren(k);
          const hit = sessions.find((x): x is SessionEl => x.kind === "session" && x.file === file);
          if (hit) return hit;
        }
      }
    }
    return undefined;
  }

  /** The row or folded entry that shows `entryId` under the current filter (walking down the outline). */
  async entryElementFor(sessionEl: SessionEl, entryId: string): Promise<Element | undefined> {
    const outline = await this.outline(sessionEl.file);
    if (!outline) return undefined;
    const target = outline.nearestVisible(entryId);
    if (!target) return sessionEl;
    const ancestors = new Set(pathTo(outline.session, target).map((e) => e.id));
    let level: Element[] = await this.getChildren(sessionEl);
    for (let depth = 0; depth < 10_000; depth++) {
      let next: RowEl | undefined;
      for (const k of level) {
        if (k.kind !== "row") continue;
        if (k.item.id === target) return k;
        if (k.item.kind === "turn" && k.item.folded?.includes(target)) {
          const kids = await this.getChildren(k);
          return kids.find((x) => x.kind === "entry" && x.entryId === target) ?? k;
        }
        if (k.item.kind === "branch" && ancestors.has(k.item.id)) next = k;
      }
      if (!next) return undefined;
      level = await this.getChildren(next);
    }
    return undefined;
  }

  // ----------------------------------------------------------------------------------------------
  // Presentation

  getTreeItem(el: Element): vscode.TreeItem {
    switch (el.kind) {
      case "group":
        return this.groupItem(el);
      case "project":
        return this.projectItem(el);
      case "session":
        return this.sessionItem(el);
      case "row":
        return this.rowItem(el);
      case "entry":
        return this.entryItem(el);
      case "detail":
        return this.detailItem(el);
      case "fork":
        return this.forkItem(el);
      case "forkedFrom":
        return this.forkedFromItem(el);
      case "info":
        return this.infoItem(el);
    }
  }

  private groupItem(el: GroupEl): vscode.TreeItem {
    const item = new vscode.TreeItem(
      el.group === "workspace" ? "This Workspace" : "All Projects",
      vscode.TreeItemCollapsibleState.Expanded,
    );
    item.id = el.id;
    item.contextValue = `piSessions:group:${el.group}`;
    const lib = this.service.lib;
    if (el.group === "workspace") {
      const n = lib.workspaceSessions(this.workspaceFolderPaths(), hostPaths()).length;
      item.description = `${n} session${n === 1 ? "" : "s"}`;
      item.iconPath = new vscode.ThemeIcon("root-folder");
    } else {
      const projects = lib.projects();
      item.description = `${lib.sessions.length} sessions · ${projects.length} projects`;
      item.iconPath = new vscode.ThemeIcon("globe");
      item.collapsibleState = this.workspaceFolderPaths().length
        ? vscode.TreeItemCollapsibleState.Collapsed
        : vscode.TreeItemCollapsibleState.Expanded;
    }
    return item;
  }

  private projectItem(el: ProjectEl): vscode.TreeItem {
    const project = this.service.lib.projects().find((p) => p.cwd === el.cwd);
    const item = new vscode.TreeItem(basename(el.cwd) || el.cwd, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = el.id;
    const n = project?.sessions.length ?? 0;
    item.description = `${relativeTime(project?.lastActivity ?? 0)} · ${n} session${n === 1 ? "" : "s"}`;
    item.tooltip = plainTooltip(`${el.cwd}\n${n} sessions`);
    item.iconPath = vscode.ThemeIcon.Folder;
    item.contextValue = "piSessions:project";
    return item;
  }

  private sessionItem(el: SessionEl): vscode.TreeItem {
    const s = this.service.lib.get(el.file);
    const item = new vscode.TreeItem(basename(el.file), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = el.id;
    if (!s) return item;
    const sum = s.summary;
    const live = Date.now() - lastActivity(s) < LIVE_MS;
    if (live) this.liveFiles.add(s.file);
    const flags: string[] = [];
    if (!sum.ok) {
      item.label = `${basename(el.file)}`;
      item.description = `not readable · ${sum.rejection.line ? `line ${sum.rejection.line}: ` : ""}${truncate(sum.rejection.message, 60)}`;
      item.iconPath = new vscode.ThemeIcon("error", new vscode.ThemeColor("list.errorForeground"));
      flags.push("rejected");
    } else {
      item.label = truncate(sum.partial && !sum.name && !sum.firstPrompt ? basename(s.file) : sessionTitle(s), 80);
      const parts = [relativeTime(lastActivity(s))];
      if (sum.model) parts.push(sum.model.split("/").pop()!);
      parts.push(sum.partial ? "reading…" : formatCost(ownCost(s)));
      if (live) parts.unshift("● live");
      item.description = parts.join(" · ");
      flags.push(sum.flavor);
      let icon = "comment-discussion";
      let color = sum.flavor === "omp" ? "charts.orange" : "charts.blue";
      if (s.parentState !== "none") {
        icon = "repo-forked";
        flags.push("fork");
        if (s.parentState !== "resolved") {
          flags.push(s.parentState);
          color = "list.warningForeground";
        } else color = "charts.purple";
      }
      if (live) {
        icon = "pulse";
        color = "charts.green";
        flags.push("live");
      }
      item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
      if (sum.truncatedTail) flags.push("truncated");
    }
    item.contextValue = `piSessions:session:${flags.join(":")}`;
    item.accessibilityInformation = {
      label: `${typeof item.label === "string" ? item.label : ""}, ${item.description ?? ""}`,
    };
    return item;
  }

  /** The session tooltip is built only when it is about to be shown. */
  resolveTreeItem(item: vscode.TreeItem, el: Element): vscode.TreeItem {
    if (el.kind === "session" && !item.tooltip) {
      const s = this.service.lib.get(el.file);
      if (s) item.tooltip = this.sessionTooltip(s);
    }
    return item;
  }

  private sessionTooltip(s: StoreSession): vscode.MarkdownString {
    const md = untrustedMarkdown();
    const sum = s.summary;
    const row = (k: string, v: string) => {
      md.appendMarkdown(`**${k}:** `);
      md.appendText(v);
      md.appendMarkdown("  \n");
    };
    if (sum.ok) {
      md.appendMarkdown("**");
      md.appendText(truncate(sessionTitle(s), 120));
      md.appendMarkdown("**\n\n");
      row("Id", sum.id);
      row("Agent", sum.flavor === "omp" ? `Oh My Pi (v${sum.version} file)` : `pi (v${sum.version} file)`);
    }
    row("File", s.file);
    if (sum.ok) {
      row("Cwd", sum.cwd ?? "(none)");
      row("Created", Number.isFinite(sum.created) ? new Date(sum.created).toLocaleString() : "(unknown)");
    }
    row("Modified", s.mtimeMs ? new Date(s.mtimeMs).toLocaleString() : "(unknown)");
    row("Size", formatBytes(s.sizeBytes));
    if (sum.ok && sum.partial) {
      md.appendMarkdown("\n*Still reading this session: entries, branches, compactions and cost follow.*\n");
    } else if (sum.ok) {
      row(
        "Entries",
        `${sum.entries.length}${s.inherited.size ? ` (${s.inherited.size} inherited from the parent)` : ""}`,
      );
      row("Branch points", String(sum.branchPoints));
      row("Forks", String(s.children.length));
      row("Compactions", String(sum.compactions));
      if (sum.model) row("Model", sum.model);
      row("Cost", `${formatCost(ownCost(s))} own${s.inherited.size ? " (inherited turns count for the parent)" : ""}`);
      if (sum.parentSession) row("Forked from", `${sum.parentSession.raw} (${parentStateText(s.parentState)})`);
      if (sum.truncatedTail) row("Last line", "incomplete (the agent is writing, or crashed)");
      if (sum.diagnostics.length) row("Problems", String(sum.diagnostics.length));
    } else {
      row("Not readable", `line ${sum.rejection.line}: ${sum.rejection.message}`);
    }
    return md;
  }

  private entryOf(el: { file: string }, id: string): Entry | undefined {
    return this.outlines.get(el.file)?.session.byId.get(id);
  }

  private rowItem(el: RowEl): vscode.TreeItem {
    const outline = this.outlines.get(el.file);
    const { item } = el;
    const session = outline?.session;
    const entry = session?.byId.get(item.id);
    const t = new vscode.TreeItem("", vscode.TreeItemCollapsibleState.None);
    t.id = el.id;
    if (!outline || !session || !entry) {
      t.label = item.id;
      return t;
    }
    const label = session.labels.get(item.id)?.label;
    const leafRow = outline.visibleLeafId;
    const isLeaf = leafRow === item.id && item.kind !== "branch";
    const holdsLeaf = isLeaf || (leafRow !== null && (item.folded ?? []).includes(leafRow));
    const desc: string[] = [];
    if (label) desc.push(`[${label}]`);
    const rowIds = new Set([item.id, ...(item.folded ?? [])]);
    const forks =
      item.kind === "branch"
        ? 0
        : (this.service.lib
            .get(el.file)
            ?.children.filter((c) => c.forkPointId && rowIds.has(outline.nearestVisible(c.forkPointId) ?? "")).length ??
          0);
    if (item.kind === "branch") {
      t.label = `${item.active ? "Active branch" : "Branch"} ${item.index}/${item.of}: ${entryLabel(entry)}`;
      desc.push(`${item.size} entries`, relativeTime(Date.parse(entry.timestamp ?? "")));
      t.iconPath = new vscode.ThemeIcon(
        "git-branch",
        new vscode.ThemeColor(item.active ? "charts.green" : "disabledForeground"),
      );
      t.collapsibleState = item.active
        ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.Collapsed;
      t.contextValue = `piSessions:branch${item.active ? ":active" : ""}`;
    } else if (entry.type === "compaction") {
      const info = session.compactions.find((c) => c.id === entry.id);
      const kept = info?.keptFromId ? session.byId.get(info.keptFromId) : undefined;
      const tokens =
        info?.tokensBefore != null ? `${formatTokens(info.tokensBefore)} tokens summarized` : "history summarized";
      t.label = `Compaction · ${tokens} · ${kept ? `kept from ${truncate(entryLabel(kept), 40)}` : "nothing kept"}`;
      t.iconPath = new vscode.ThemeIcon(
        "fold",
        new vscode.ThemeColor(item.active ? "charts.yellow" : "disabledForeground"),
      );
      t.collapsibleState = vscode.TreeItemCollapsibleState.Collapsed;
      t.contextValue = "piSessions:entry:compaction";
      if (info?.tokensAfter != null) desc.push(`→ ${formatTokens(info.tokensAfter)}`);
    } else if (entry.type === "branch_summary") {
      const from = typeof entry.data.fromId === "string" ? session.byId.get(entry.data.fromId) : undefined;
      t.label = `Branch summary · from ${from ? truncate(entryLabel(from), 40) : String(entry.data.fromId ?? "?")}`;
      t.iconPath = new vscode.ThemeIcon(
        "note",
        new vscode.ThemeColor(item.active ? "charts.yellow" : "disabledForeground"),
      );
      t.collapsibleState = vscode.TreeItemCollapsibleState.Collapsed;
      t.contextValue = "piSessions:entry:branchSummary";
    } else {
      t.label = entryLabel(entry);
      t.iconPath = entryIcon(entry, item.active);
      t.contextValue = `piSessions:entry:${item.kind}`;
      if (item.kind === "turn") {
        const n = item.folded?.length ?? 0;
        if (n) desc.push(`${n} ${n === 1 ? "entry" : "entries"}`);
        t.collapsibleState =
          n || forks ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None;
      } else if (forks) t.collapsibleState = vscode.TreeItemCollapsibleState.Collapsed;
    }
    if (forks) desc.push(`${forks} fork${forks === 1 ? "" : "s"}`);
    if (isLeaf)
      desc.unshift(
        session.leafId === item.id ? "● active leaf" : `● active leaf (${leafType(session)} hidden by the filter)`,
      );
    else if (holdsLeaf) desc.unshift("● leaf inside");
    if (item.kind !== "branch" && !item.active) desc.push("abandoned branch");
    t.description = desc.join(" · ");
    t.tooltip = entryTooltip(el.file, entry, label);
    if (t.collapsibleState === vscode.TreeItemCollapsibleState.None) t.command = openCommand(el.file, entry.line);
    if (isLeaf) t.contextValue += ":leaf";
    return t;
  }

  private entryItem(el: EntryEl): vscode.TreeItem {
    const outline = this.outlines.get(el.file);
    const entry = outline?.session.byId.get(el.entryId);
    const t = new vscode.TreeItem(entry ? entryLabel(entry) : el.entryId, vscode.TreeItemCollapsibleState.None);
    t.id = el.id;
    if (!outline || !entry) return t;
    const session = outline.session;
    const desc: string[] = [];
    const label = session.labels.get(entry.id)?.label;
    const isLeaf = outline.visibleLeafId === entry.id;
    if (isLeaf)
      desc.push(
        session.leafId === entry.id ? "● active leaf" : `● active leaf (${leafType(session)} hidden by the filter)`,
      );
    if (label) desc.push(`[${label}]`);
    const usage = assistantUsage(entry);
    if (usage) desc.push(usage);
    const forks =
      this.service.lib
        .get(el.file)
        ?.children.filter((c) => c.forkPointId && outline.nearestVisible(c.forkPointId) === entry.id).length ?? 0;
    if (forks) desc.push(`${forks} fork${forks === 1 ? "" : "s"} here`);
    t.description = desc.join(" · ");
    t.iconPath = entryIcon(entry, outline.activePath.has(entry.id));
    t.tooltip = entryTooltip(el.file, entry, label);
    t.command = openCommand(el.file, entry.line);
    t.contextValue = `piSessions:entry:folded${isLeaf ? ":leaf" : ""}`;
    return t;
  }

  private detailItem(el: DetailEl): vscode.TreeItem {
    const outline = this.outlines.get(el.file);
    const entry = this.entryOf(el, el.entryId);
    const t = new vscode.TreeItem(el.detail, vscode.TreeItemCollapsibleState.None);
    t.id = el.id;
    if (!outline || !entry) return t;
    const session = outline.session;
    const info = session.compactions.find((c) => c.id === entry.id);
    switch (el.detail) {
      case "summary": {
        const text = typeof entry.data.summary === "string" ? entry.data.summary : "";
        t.label = text.trim() ? `Summary: ${truncate(text, 80)}` : "Summary: (empty)";
        t.iconPath = new vscode.ThemeIcon("book");
        const md = untrustedMarkdown();
        md.appendText(text.length > 20_000 ? `${text.slice(0, 20_000)}…` : text);
        t.tooltip = md;
        t.command = openCommand(el.file, entry.line);
        break;
      }
      case "kept": {
        const kept = info?.keptFromId ? session.byId.get(info.keptFromId) : undefined;
        const n = kept ? countPath(session, kept.id, info!.replacesThroughId) : 0;
        t.label = kept ? `Kept: from ${truncate(entryLabel(kept), 50)}` : "Kept: nothing";
        t.description = kept ? `line ${kept.line} · ${n} entries kept before the compaction` : undefined;
        t.iconPath = new vscode.ThemeIcon("pass");
        if (kept)
          t.command = { command: CommandId.RevealEntry, title: "Reveal kept entry", arguments: [el.file, kept.id] };
        break;
      }
      case "replaced": {
        const through = info?.replacesThroughId ? session.byId.get(info.replacesThroughId) : undefined;
        const path = pathTo(session, entry.id);
        const keptIndex = info?.keptFromId ? path.findIndex((e) => e.id === info.keptFromId) : path.length - 1;
        const replaced = Math.max(0, keptIndex < 0 ? path.length - 1 : keptIndex);
        t.label = `Replaced: ${replaced} entries summarized`;
        t.description = through ? `through line ${through.line}` : undefined;
        t.iconPath = new vscode.ThemeIcon("archive");
        if (path[0])
          t.command = {
            command: CommandId.RevealEntry,
            title: "Reveal first replaced entry",
            arguments: [el.file, path[0].id],
          };
        break;
      }
      case "from": {
        const fromId = String(entry.data.fromId ?? "");
        const from = session.byId.get(fromId);
        t.label = from
          ? `Summarizes the branch left at: ${truncate(entryLabel(from), 50)}`
          : `Summarizes the branch left at ${fromId} (not in this file)`;
        t.iconPath = new vscode.ThemeIcon("git-branch");
        if (from) t.command = { command: CommandId.RevealEntry, title: "Reveal", arguments: [el.file, from.id] };
        break;
      }
    }
    t.contextValue = `piSessions:detail:${el.detail}`;
    return t;
  }

  private forkItem(el: ForkEl): vscode.TreeItem {
    const child = this.service.lib.get(el.child);
    const title = child ? sessionTitle(child) : basename(el.child);
    const t = new vscode.TreeItem(`Fork: ${truncate(title, 70)}`, vscode.TreeItemCollapsibleState.None);
    t.id = el.id;
    t.description = child
      ? `${child.summary.ok && child.summary.subagent ? "subagent · " : ""}${relativeTime(lastActivity(child))} · ${formatCost(ownCost(child))}`
      : undefined;
    t.iconPath = new vscode.ThemeIcon("repo-forked", new vscode.ThemeColor("charts.purple"));
    t.tooltip = plainTooltip(`A session forked off here:\n${el.child}`);
    t.command = { command: CommandId.RevealSession, title: "Reveal forked session", arguments: [el.child] };
    t.contextValue = "piSessions:fork";
    return t;
  }

  private forkedFromItem(el: ForkedFromEl): vscode.TreeItem {
    const s = this.service.lib.get(el.file);
    const t = new vscode.TreeItem("Forked from", vscode.TreeItemCollapsibleState.None);
    t.id = el.id;
    if (!s || !s.summary.ok || !s.summary.parentSession) return t;
    const raw = s.summary.parentSession.raw;
    const parent = s.parent;
    if (parent) {
      const title = sessionTitle(parent);
      t.label = `Forked from: ${truncate(title, 60)}`;
      const at = s.forkPointId && this.service.lib.peek(parent.file);
      const atEntry = at && at.ok ? at.session.byId.get(s.forkPointId!) : undefined;
      t.description = s.forkPointId ? `at ${atEntry ? truncate(entryLabel(atEntry), 40) : s.forkPointId}` : undefined;
      t.iconPath = new vscode.ThemeIcon("arrow-up", new vscode.ThemeColor("charts.purple"));
      t.command = { command: CommandId.RevealParent, title: "Reveal parent session", arguments: [el.file] };
      t.contextValue = "piSessions:forkedFrom:resolved";
    } else if (s.parentState === "external") {
      t.label = "Forked from a session outside the session roots";
      t.description = "not opened";
      t.iconPath = new vscode.ThemeIcon("warning", new vscode.ThemeColor("list.warningForeground"));
      t.contextValue = "piSessions:forkedFrom:external";
    } else {
      t.label = "Forked from a session that is gone (orphan fork)";
      t.description = truncate(raw, 60);
      t.iconPath = new vscode.ThemeIcon("warning", new vscode.ThemeColor("list.warningForeground"));
      t.contextValue = "piSessions:forkedFrom:orphan";
    }
    t.tooltip = plainTooltip(`parentSession: ${raw}\n${parentStateText(s.parentState)}`);
    return t;
  }

  private infoItem(el: InfoEl): vscode.TreeItem {
    const t = new vscode.TreeItem(
      el.text,
      el.children?.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    t.id = el.id;
    if (el.icon)
      t.iconPath = new vscode.ThemeIcon(
        el.icon,
        el.icon === "error"
          ? new vscode.ThemeColor("list.errorForeground")
          : el.icon === "warning"
            ? new vscode.ThemeColor("list.warningForeground")
            : undefined,
      );
    if (el.tooltip) t.tooltip = plainTooltip(el.tooltip);
    if (el.file && el.line) t.command = openCommand(el.file, el.line);
    t.contextValue = "piSessions:info";
    return t;
  }

  dispose(): void {
    clearInterval(this.liveTimer);
    for (const d of this.disposables) d.dispose();
    this.emitter.dispose();
  }
}

// ------------------------------------------------------------------------------------------------
// Helpers

function untrustedMarkdown(): vscode.MarkdownString {
  const md = new vscode.MarkdownString("", false);
  md.isTrusted = false;
  md.supportHtml = false;
  return md;
}

function plainTooltip(text: string): vscode.MarkdownString {
  const md = untrustedMarkdown();
  md.appendText(text);
  return md;
}

function openCommand(file: string, line: number): vscode.Command {
  return { command: CommandId.OpenEntry, title: "Open at line", arguments: [file, line] };
}

function entryIcon(entry: Entry, active: boolean): vscode.ThemeIcon {
  const dim = active ? undefined : new vscode.ThemeColor("disabledForeground");
  const m = isPlainObject(entry.data.message) ? entry.data.message : undefined;
  switch (entry.role) {
    case "user":
      return new vscode.ThemeIcon("account", active ? new vscode.ThemeColor("charts.blue") : dim);
    case "assistant":
      return new vscode.ThemeIcon(
        m && (m.stopReason === "error" || m.stopReason === "aborted") ? "warning" : "hubot",
        dim,
      );
    case "toolResult":
      return new vscode.ThemeIcon(m?.isError ? "error" : "tools", dim);
    case "bashExecution":
    case "pythonExecution":
      return new vscode.ThemeIcon("terminal", dim);
    default:
      break;
  }
  const icons: Record<string, string> = {
    model_change: "symbol-enum",
    thinking_level_change: "lightbulb",
    label: "tag",
    session_info: "edit",
    title_change: "edit",
    custom: "extensions",
    custom_message: "extensions",
    model_usage: "graph",
    reset_boundary: "clear-all",
  };
  return new vscode.ThemeIcon(icons[entry.type] ?? (entry.known ? "circle-small" : "question"), dim);
}

function entryTooltip(file: string, entry: Entry, label: string | undefined): vscode.MarkdownString {
  const md = untrustedMarkdown();
  md.appendMarkdown("**");
  md.appendText(entry.type + (entry.role ? ` · ${entry.role}` : ""));
  md.appendMarkdown("**  \n");
  md.appendText(
    `id ${entry.id} · line ${entry.line}${entry.timestamp ? ` · ${new Date(entry.timestamp).toLocaleString()}` : ""}`,
  );
  if (label) {
    md.appendMarkdown("  \n**Label:** ");
    md.appendText(label);
  }
  const m = isPlainObject(entry.data.message) ? entry.data.message : undefined;
  const text = m ? contentText(m.content) : typeof entry.data.summary === "string" ? entry.data.summary : "";
  if (text) {
    md.appendMarkdown("\n\n---\n\n");
    md.appendText(text.length > 2000 ? `${text.slice(0, 2000)}…` : text);
  }
  md.appendMarkdown("\n\n");
  md.appendText(basename(file));
  return md;
}

function leafType(session: Session): string {
  const leaf = session.leafId ? session.byId.get(session.leafId) : undefined;
  return leaf ? leaf.type.replace(/_/g, " ") : "leaf";
}

function assistantUsage(entry: Entry): string | undefined {
  const m = entry.data.message;
  if (entry.role !== "assistant" || !isPlainObject(m) || !isPlainObject(m.usage)) return undefined;
  const u = m.usage;
  const cost = isPlainObject(u.cost) && typeof u.cost.total === "number" ? u.cost.total : 0;
  const tokens = ["input", "cacheRead", "cacheWrite"].reduce(
    (n, k) => n + (typeof u[k] === "number" ? (u[k] as number) : 0),
    0,
  );
  return `${formatTokens(tokens)} ctx · ${formatCost(cost)}`;
}

function countPath(session: Session, fromId: string, throughId: string | null): number {
  const path = pathTo(session, throughId);
  const i = path.findIndex((e) => e.id === fromId);
  return i < 0 ? 0 : path.length - i;
}

function parentStateText(state: StoreSession["parentState"]): string {
  switch (state) {
    case "resolved":
      return "parent found";
    case "orphan":
      return "orphan: the parent session is not under the session roots any more";
    case "external":
      return "the parent is outside the configured session roots and is never opened";
    default:
      return "not a fork";
  }
}
