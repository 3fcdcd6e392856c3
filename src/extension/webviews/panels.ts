/**
 * The webview panels: one manager opens, revives and refreshes them, over one `WebviewHost` per panel kind
 * (webviewHost.ts: serialization, the ready handshake, validation, debounce, dispose). Each panel is a `PanelState`
 * (what it is about) rendered from the view model its kind's provider builds (panelProviders.ts).
 */
import { writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename } from "node:path";
import * as vscode from "vscode";
import { openLink } from "./openLink.js";
import type { ChangeSet } from "../../node/library.js";
import {
  type Facts,
  type FromWebview,
  fromWebviewSchema,
  PANEL_KINDS,
  type PanelKind,
  type PanelState,
  type PanelStateOf,
  panelStateSchema,
  type ToWebview,
} from "../../protocol/messages.js";
import type { DashboardModel, PanelModel } from "../../protocol/views.js";
import { exportTable } from "../../node/views/dashboard.js";
import { CommandId, PanelViewType } from "../ids.js";
import type { Logger } from "../logging.js";
import type { TeamService } from "../team/teamService.js";
import type { SessionService } from "../service.js";
import { diffFinalTexts } from "./compareSides.js";
import type { DiffTexts } from "./diffTexts.js";
import { type PanelProvider, panelProviders, type PanelProviders } from "./panelProviders.js";
import { type HostedPage, WebviewHost } from "./webviewHost.js";

export interface OpenPanel extends HostedPage<PanelState> {
  kind: PanelKind;
  /** The last model posted, and what the page reported rendering for it (null until it has). */
  model: PanelModel | null;
  facts: Facts | null;
}

/** An open panel of one kind. */
export type PanelOf<K extends PanelKind> = OpenPanel & { kind: K; state: PanelStateOf<K> };

/** Changes come in bursts (an agent writing): a panel is rebuilt this long after the last one. */
const REFRESH_MS = 300;

const keyOf = (s: PanelState) =>
  s.panel === "usage"
    ? "usage"
    : `${s.panel}:${s.file ?? ""}:${"entryId" in s ? (s.entryId ?? "") : ""}` +
      (s.panel === "compare" ? `:${s.otherFile ?? ""}:${s.otherEntryId ?? ""}` : "");

export class PanelManager implements vscode.Disposable {
  private readonly hosts = new Map<PanelKind, WebviewHost<PanelState, FromWebview, OpenPanel>>();
  private readonly providers: PanelProviders;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    extensionUri: vscode.Uri,
    private readonly service: SessionService,
    private readonly logger: Logger,
    private readonly diffs: DiffTexts,
    team?: TeamService,
  ) {
    this.providers = panelProviders(service, team);
    for (const kind of PANEL_KINDS) this.hosts.set(kind, this.hostFor(extensionUri, kind));
    this.disposables.push(
      ...this.hosts.values(),
      service.onDidChange((set) => {
        for (const p of this.panels) if (this.affected(p, set)) this.schedule(p);
      }),
    );
  }

  private hostFor(extensionUri: vscode.Uri, kind: PanelKind): WebviewHost<PanelState, FromWebview, OpenPanel> {
    return new WebviewHost(extensionUri, this.logger, {
      viewType: PanelViewType[kind],
      page: kind,
      stateSchema: panelStateSchema.refine((s) => s.panel === kind, `not a ${kind} panel`),
      messageSchema: fromWebviewSchema,
      restorable: true,
      html: kind === "compare" ? { stylesheet: "compare.css" } : {},
      create: (panel, state) => {
        // A panel revived after a reload may come before the listing: start it, and name the panel once it is known.
        void this.service.ensureStarted().then(() => this.hosts.get(kind)?.retitle());
        return { kind, state, panel, model: null, facts: null, seq: 0, ready: false, dirty: false };
      },
      title: (p) => this.provider(p.state).title(p.state),
      receive: (p, msg) => this.receive(p, msg),
      shown: (p) => {
        if (p.dirty) this.schedule(p);
      },
    });
  }

  private provider<S extends PanelState>(state: S): PanelProvider<S["panel"]> {
    return this.providers[state.panel] as unknown as PanelProvider<S["panel"]>;
  }

  private affected(p: OpenPanel, set: ChangeSet | undefined): boolean {
    return !set || this.provider(p.state).affectedBy(p.state, set);
  }

  /** Every open panel, of every kind. */
  get panels(): OpenPanel[] {
    return [...this.hosts.values()].flatMap((h) => h.pages);
  }

  /** The open panel of `kind` that `where` accepts, with its state typed (what tests and commands look up). */
  find<K extends PanelKind>(kind: K, where: (p: PanelOf<K>) => unknown = () => true): PanelOf<K> | undefined {
    return this.panels.find((p): p is PanelOf<K> => p.kind === kind && Boolean(where(p as PanelOf<K>)));
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
    return this.hosts.get(state.panel)!.open(state, "Pi Sessions");
  }

  /** Rebuild a panel's model now (or when it is next shown): a change the store's events do not carry. */
  refresh(p: OpenPanel): void {
    this.schedule(p);
  }

  private schedule(p: OpenPanel): void {
    if (!p.ready) return;
    if (!p.panel.visible) {
      p.dirty = true;
      return;
    }
    this.hosts.get(p.kind)!.debounce(p, REFRESH_MS, () => this.post(p));
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
    await this.hosts.get(p.kind)!.post(p, message);
  }

  private async receive(p: OpenPanel, msg: FromWebview): Promise<void> {
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
      case "openLink":
        await openLink(msg.url);
        return;
      case "diffFinalTexts":
        if (p.state.panel !== "compare") return;
        await diffFinalTexts(this.service, this.diffs, p.state, msg.path).catch((err: unknown) => {
          this.logger.warn(`diff of final texts: ${String(err)}`);
          void vscode.window.showWarningMessage(err instanceof Error ? err.message : String(err));
        });
        return;
      case "setRange":
        if (p.state.panel !== "usage") return;
        p.state = { ...p.state, scope: msg.scope, since: msg.since, until: msg.until };
        await this.post(p);
        return;
      case "export":
        await this.exportFromPanel(p, msg.format, msg.table);
        return;
      case "team":
        await vscode.commands.executeCommand(msg.action === "sync" ? CommandId.SyncTeam : CommandId.SetTeamDatabase);
        return;
    }
  }

  /** A dashboard table as CSV or JSON: to `target`, or to a file the user picks. */
  async exportFromPanel(
    p: OpenPanel,
    format: "csv" | "json",
    table: "models" | "projects" | "sessions" | "days" | "machines",
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

  /** The view model of a panel state (pure functions over the library). */
  async model(state: PanelState): Promise<PanelModel> {
    await this.service.ensureStarted();
    return this.provider(state).model(state);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
