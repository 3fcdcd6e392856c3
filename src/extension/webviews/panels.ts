/**
 * The webview panels: one manager opens, revives (WebviewPanelSerializer) and refreshes them. Each panel is a
 * PanelState (what it is about) rendered from a view model; the webview says "ready" before anything is posted, and
 * every message it sends is validated before it is acted on.
 */
import { writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename } from "node:path";
import * as vscode from "vscode";
import { truncate } from "../../protocol/format.js";
import { describeEntry } from "../../core/entryText.js";
import {
  type Facts,
  fromWebviewSchema,
  type PanelKind,
  type PanelState,
  panelStateSchema,
  type ToWebview,
} from "../../protocol/messages.js";
import type { DashboardModel, PanelModel } from "../../protocol/views.js";
import { ownCost } from "../../node/store/index.js";
import type { StoreSession } from "../../node/store/index.js";
import { checkpointModel } from "../../node/views/checkpoint.js";
import { agentDirOfRoot, describeBlobImages } from "../../node/blobs.js";
import { contextModel } from "../../node/views/context.js";
import { dashboardModel, exportTable } from "../../node/views/dashboard.js";
import { lineageMembers, lineageModel } from "../../node/views/lineage.js";
import { sessionUsageModel } from "../../node/views/sessionUsage.js";
import { CommandId, PanelViewType } from "../ids.js";
import type { Logger } from "../logging.js";
import type { SessionService } from "../service.js";
import { renderHtml, webviewOptions } from "./html.js";
import { compareAnswer, compareEnds, diffFinalTexts } from "./compareSides.js";
import type { DiffTexts } from "./diffTexts.js";
import { hostPaths } from "../../node/roots.js";
import { displayTitle } from "../titles.js";

export interface OpenPanel {
  kind: PanelKind;
  state: PanelState;
  panel: vscode.WebviewPanel;
  /** The last model posted, and what the page reported rendering for it (null until it has). */
  model: PanelModel | null;
  facts: Facts | null;
  seq: number;
  ready: boolean;
  dirty: boolean;
  timer?: NodeJS.Timeout;
}

const keyOf = (s: PanelState) =>
  s.panel === "usage"
    ? "usage"
    : `${s.panel}:${s.file ?? ""}:${s.entryId ?? ""}` +
      (s.panel === "compare" ? `:${s.otherFile ?? ""}:${s.otherEntryId ?? ""}` : "");

export class PanelManager implements vscode.Disposable {
  readonly panels: OpenPanel[] = [];
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly service: SessionService,
    private readonly logger: Logger,
    private readonly workspaceFolders: () => string[],
    private readonly diffs: DiffTexts,
  ) {
    this.disposables.push(
      service.onDidChange((set) => {
        for (const p of this.panels) {
          if (
            !set ||
            set.structural ||
            p.kind === "usage" ||
            p.kind === "lineage" ||
            set.changes.some((c) => c.file === p.state.file || c.file === p.state.otherFile)
          )
            this.schedule(p);
        }
      }),
    );
    for (const kind of Object.keys(PanelViewType) as PanelKind[]) {
      this.disposables.push(
        vscode.window.registerWebviewPanelSerializer(PanelViewType[kind], {
          deserializeWebviewPanel: async (panel, raw) => {
            const parsed = panelStateSchema.safeParse(raw);
            if (!parsed.success || parsed.data.panel !== kind) {
              logger.warn(`not restoring a ${kind} panel: its saved state is not valid`);
              panel.dispose();
              return;
            }
            this.attach(panel, parsed.data);
          },
        }),
      );
    }
  }

  /** Open a panel (or reveal the one already showing the same thing). */
  show(state: PanelState): OpenPanel {
    const existing = this.panels.find((p) => keyOf(p.state) === keyOf(state));
    if (existing) {
      // Keep what the page chose (a usage range) unless the caller says otherwise.
      existing.state = {
        ...existing.state,
        ...Object.fromEntries(Object.entries(state).filter(([, v]) => v !== undefined)),
      } as PanelState;
      existing.panel.reveal();
      void this.post(existing);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(
      PanelViewType[state.panel],
      "Pi Sessions",
      vscode.ViewColumn.Active,
      webviewOptions(this.extensionUri),
    );
    return this.attach(panel, state);
  }

  private attach(panel: vscode.WebviewPanel, state: PanelState): OpenPanel {
    panel.webview.options = webviewOptions(this.extensionUri);
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, "media", "pi-sessions.svg");
    const p: OpenPanel = {
      kind: state.panel,
      state,
      panel,
      model: null,
      facts: null,
      seq: 0,
      ready: false,
      dirty: false,
    };
    this.panels.push(p);
    panel.title = this.title(state);
    panel.webview.html = renderHtml(panel.webview, this.extensionUri, state.panel, panel.title, state, {
      stylesheet: state.panel === "compare" ? "compare.css" : undefined,
    });
    // A panel revived after a reload may come before the listing: name it once the session is known.
    void this.service.ensureStarted().then(() => {
      if (this.panels.includes(p)) panel.title = this.title(p.state);
    });
    const subs = [
      panel.webview.onDidReceiveMessage((raw: unknown) => void this.receive(p, raw)),
      panel.onDidChangeViewState(() => {
        if (panel.visible && p.dirty) this.schedule(p);
      }),
    ];
    panel.onDidDispose(() => {
      for (const s of subs) s.dispose();
      if (p.timer) clearTimeout(p.timer);
      this.panels.splice(this.panels.indexOf(p), 1);
    });
    return p;
  }

  private title(state: PanelState): string {
    const s = state.file ? this.service.lib.get(state.file) : undefined;
    const name = s ? truncate(displayTitle(s), 40) : state.file ? basename(state.file) : "";
    switch (state.panel) {
      case "usage":
        return vscode.l10n.t("Usage & Cost");
      case "sessionUsage":
        return vscode.l10n.t("Usage: {0}", name);
      case "checkpoint":
        return vscode.l10n.t("Checkpoint {0}", state.entryId ?? "");
      case "lineage":
        return vscode.l10n.t("Lineage: {0}", name);
      case "context":
        return vscode.l10n.t("Context: {0}", name);
      case "compare":
        return vscode.l10n.t("Compare: {0}", name);
    }
  }

  private schedule(p: OpenPanel): void {
    if (!p.ready) return;
    if (!p.panel.visible) {
      p.dirty = true;
      return;
    }
    if (p.timer) clearTimeout(p.timer);
    p.timer = setTimeout(() => void this.post(p), 300);
  }

  private async post(p: OpenPanel): Promise<void> {
    if (!p.ready) return;
    p.dirty = false;
    let message: ToWebview;
    try {
      const model = await this.model(p.state);
      p.model = model;
      message = { type: "model", seq: ++p.seq, model };
      p.facts = null;
    } catch (err) {
      this.logger.error(`${p.kind} panel`, err);
      message = { type: "error", message: err instanceof Error ? err.message : String(err) };
    }
    if (this.panels.includes(p)) await p.panel.webview.postMessage(message);
  }

  private async receive(p: OpenPanel, raw: unknown): Promise<void> {
    const parsed = fromWebviewSchema.safeParse(raw);
    if (!parsed.success) {
      this.logger.warn(`${p.kind} panel sent a message that is not valid; ignored`);
      return;
    }
    const msg = parsed.data;
    switch (msg.type) {
      case "ready":
        p.ready = true;
        await this.post(p);
        return;
      case "rendered":
        if (msg.seq === p.seq) p.facts = msg.facts;
        return;
      case "revealSession":
        await vscode.commands.executeCommand(CommandId.RevealSession, msg.file);
        return;
      case "revealEntry":
        await vscode.commands.executeCommand(CommandId.RevealEntry, msg.file, msg.entryId);
        return;
      case "inspectCheckpoint":
        this.show({ panel: "checkpoint", file: msg.file, entryId: msg.entryId });
        return;
      case "showContext":
        this.show({ panel: "context", file: msg.file, entryId: msg.entryId });
        return;
      case "showSessionUsage":
        this.show({ panel: "sessionUsage", file: msg.file });
        return;
      case "diffFinalTexts":
        if (p.kind !== "compare") return;
        await diffFinalTexts(this.service, this.diffs, p.state, msg.path).catch((err: unknown) => {
          this.logger.warn(`diff of final texts: ${String(err)}`);
          void vscode.window.showWarningMessage(err instanceof Error ? err.message : String(err));
        });
        return;
      case "setRange":
        p.state = { ...p.state, scope: msg.scope, since: msg.since, until: msg.until };
        await this.post(p);
        return;
      case "export":
        await this.exportFromPanel(p, msg.format, msg.table);
        return;
    }
  }

  /** A dashboard table as CSV or JSON: to `target`, or to a file the user picks. */
  async exportFromPanel(
    p: OpenPanel,
    format: "csv" | "json",
    table: "models" | "projects" | "sessions" | "days",
    target?: vscode.Uri,
  ): Promise<vscode.Uri | undefined> {
    if (p.model?.kind !== "usage") return undefined;
    const text = exportTable(p.model as DashboardModel, table, format);
    const uri =
      target ??
      (await vscode.window.showSaveDialog({
        title: vscode.l10n.t("Export {0} usage", table),
        defaultUri: vscode.Uri.joinPath(
          vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(homedir()),
          `pi-usage-${table}.${format}`,
        ),
        filters: format === "csv" ? { CSV: ["csv"] } : { JSON: ["json"] },
      }));
    if (!uri) return undefined;
    await writeFile(uri.fsPath, text, "utf8");
    this.logger.info(`exported ${table} usage to ${uri.fsPath}`);
    void vscode.window.showInformationMessage(vscode.l10n.t("Exported {0} usage to {1}", table, basename(uri.fsPath)));
    return uri;
  }

  private session(file: string | undefined): StoreSession {
    const s = file ? this.service.lib.get(file) : undefined;
    if (!s)
      throw new Error(
        vscode.l10n.t("{0} is not a session under the configured session roots", file ?? vscode.l10n.t("(no file)")),
      );
    return s;
  }

  private async opened(file: string | undefined) {
    const s = this.session(file);
    const r = await this.service.lib.open(s.file);
    if (!r.ok)
      throw new Error(
        vscode.l10n.t("{0} cannot be read: line {1}: {2}", basename(s.file), r.rejection.line, r.rejection.message),
      );
    return { s, session: r.session };
  }

  /** The view model of a panel state (pure functions over the library). */
  async model(state: PanelState): Promise<PanelModel> {
    await this.service.ensureStarted();
    const lib = this.service.lib;
    switch (state.panel) {
      case "usage": {
        await lib.whenComplete();
        const folders = this.workspaceFolders();
        return dashboardModel(lib.sessions, {
          scope: state.scope ?? (folders.length ? "workspace" : "all"),
          since: state.since ?? null,
          until: state.until ?? null,
          folders,
          host: hostPaths(),
        });
      }
      case "sessionUsage": {
        const { s, session } = await this.opened(state.file);
        return sessionUsageModel(session, s.inherited, displayTitle(s));
      }
      case "checkpoint": {
        const { s, session } = await this.opened(state.file);
        if (!state.entryId) throw new Error(vscode.l10n.t("no compaction entry given"));
        // A fork's copy of its parent's compaction has the parent's id: ownership says it was inherited.
        return checkpointModel(session, state.entryId, { copiedFromParent: s.inherited.has(state.entryId) });
      }
      case "context": {
        const { s, session } = await this.opened(state.file);
        // OMP images stored as blobs: sized from the agent dir of the session's store root, or marked missing.
        const model = contextModel(session, state.entryId ?? null, displayTitle(s));
        return describeBlobImages(model, agentDirOfRoot(s.root.dir));
      }
      case "compare": {
        const [a, b] = await compareEnds(this.service, state);
        const answer = await compareAnswer(this.service, a, b, { kind: "model" });
        if (!("model" in answer)) throw new Error(vscode.l10n.t("the compare worker answered another question"));
        return answer.model;
      }
      case "lineage": {
        await lib.whenComplete();
        const focus = this.session(state.file);
        // Fork points are described from the parents' entries: read the parents in the graph.
        for (const m of lineageMembers(focus)) if (m.children.length) await lib.open(m.file).catch(() => undefined);
        return lineageModel(focus, {
          title: displayTitle,
          ownCost,
          keyOf: (s) => s.file,
          forkLabel: (c) => {
            if (!c.forkPointId)
              return c.summary.ok && c.summary.subagent ? vscode.l10n.t("subagent") : vscode.l10n.t("new conversation");
            const r = c.parent ? lib.peek(c.parent.file) : undefined;
            const e = r?.ok ? r.session.byId.get(c.forkPointId) : undefined;
            return vscode.l10n.t("at {0}", e ? truncate(describeEntry(e), 40) : c.forkPointId);
          },
        });
      }
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    for (const p of [...this.panels]) p.panel.dispose();
  }
}
