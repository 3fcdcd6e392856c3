/**
 * The live session in the status bar: while a session of this workspace is being written (the tree's "live" state:
 * written in the last minute), "π 63% · $1.24": its context fill (the latest assistant message's prompt tokens
 * against the model's window) and its own cost. The hover adds the model, tokens, the last compaction and where pi
 * compacts; a click opens the transcript. With no live session, a team sync that runs or failed shows alone
 * ("π team", a click opens the Team scope), so a background sync's trouble is seen; otherwise the item is hidden,
 * as it is by `piSessions.statusBar.enabled`.
 */
import * as vscode from "vscode";
import {
  compactionPercent,
  type ContextFill,
  contextFill,
  type OmpCompactionThreshold,
  ompThresholdOf,
  ompThresholdPercent,
} from "../../core/contextWindows.js";
import {
  formatCost,
  formatDateTime,
  formatPercent,
  formatTokens,
  oneLine,
  relativeTime,
  truncate,
} from "../../protocol/format.js";
import { agentDirOf, type CompactionSettings, piCompactionSettings } from "../../node/piSettings.js";
import { lastWritten, ownCost, type StoreSession } from "../../node/store/index.js";
import { CommandId } from "../ids.js";
import type { SessionService } from "../service.js";
import { LIVE_MS } from "../tree/index.js";
import { displayTitle } from "../titles.js";
import { teamStatusLine, type TeamService } from "../team/teamService.js";

/** How often a shown item checks whether its session went quiet. */
const CHECK_MS = 5_000;

function statusBarEnabled(): boolean {
  return vscode.workspace.getConfiguration("piSessions").get<boolean>("statusBar.enabled", true);
}

export class LiveStatus implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  /** The session shown, while it is live. */
  file: string | undefined;
  /** How long after its last write a session counts as live (the tree's minute; tests shorten it). */
  liveMs = LIVE_MS;
  /** Whether the item is shown (a status bar item cannot be asked). */
  shown = false;
  private readonly timer: NodeJS.Timeout;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly service: SessionService,
    private readonly team?: TeamService,
  ) {
    this.item = vscode.window.createStatusBarItem("piSessions.live", vscode.StatusBarAlignment.Left, 50);
    this.item.name = vscode.l10n.t("Pi Session (live)");
    this.timer = setInterval(() => this.update(), CHECK_MS);
    this.subscriptions = [
      service.onDidChange((set) => {
        const written = set?.changes.filter((c) => c.kind !== "removed").map((c) => c.file) ?? [];
        const mine = new Set(this.workspaceSessions().map((s) => s.file));
        const live = written.filter((f) => mine.has(f));
        if (live.length) this.file = live[live.length - 1];
        this.update();
      }),
      service.onDidStart(() => this.pickLive()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.pickLive()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("piSessions.statusBar.enabled")) this.update();
      }),
      ...(team ? [team.onDidChangeStatus(() => this.update())] : []),
    ];
  }

  private workspaceSessions(): StoreSession[] {
    return this.service.workspaceSessions();
  }

  /** The newest session of the workspace written within the live window, if any (shown by the next update). */
  private pickLive(): void {
    const now = Date.now();
    let best: StoreSession | undefined;
    for (const s of this.workspaceSessions())
      if (s.summary.ok && now - lastWritten(s) < this.liveMs && (!best || lastWritten(s) > lastWritten(best))) best = s;
    const changed = this.file !== best?.file;
    this.file = best?.file;
    if (!changed) return;
    if (this.file) this.update();
    else this.idle();
  }

  private hide(): void {
    this.item.hide();
    this.shown = false;
  }

  /** No live session: the team sync alone while it runs or after it failed, else nothing. */
  private idle(): void {
    const status = this.team?.status;
    const failed = status?.lastError && (!status.lastSync || status.lastError.at > status.lastSync.at);
    const line = status && (status.syncing || failed) ? teamStatusLine(status) : null;
    if (!line) return this.hide();
    this.item.text = `${status!.syncing ? "$(sync~spin)" : "$(warning)"} ${vscode.l10n.t("π team")}`;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = false;
    md.supportHtml = false;
    md.appendText(line);
    this.item.tooltip = md;
    this.item.command = { command: CommandId.ShowTeamUsage, title: vscode.l10n.t("Show Team Usage") };
    this.item.show();
    this.shown = true;
  }

  update(): void {
    if (!statusBarEnabled()) return this.hide();
    let s = this.file ? this.service.lib.get(this.file) : undefined;
    if (!s?.summary.ok || Date.now() - lastWritten(s) >= this.liveMs) {
      // This one went quiet (or went away): another session of the workspace may still be written.
      if (this.file !== undefined) this.pickLive();
      s = this.file ? this.service.lib.get(this.file) : undefined;
      if (!s?.summary.ok || Date.now() - lastWritten(s) >= this.liveMs) return this.idle();
    }
    const fill = s.summary.partial ? null : contextFill(s.summary.usage);
    const cost = formatCost(ownCost(s));
    this.item.text = fill
      ? `π ${fill.percent === null ? formatTokens(fill.tokens) : formatPercent(fill.percent)} · ${cost}`
      : `π ${cost}`;
    this.item.tooltip = this.tooltip(s, fill);
    this.item.command = {
      command: CommandId.OpenTranscript,
      title: vscode.l10n.t("Open Transcript"),
      arguments: [s.file],
    };
    this.item.show();
    this.shown = true;
  }

  private tooltip(s: StoreSession, fill: ContextFill | null): vscode.MarkdownString {
    const md = new vscode.MarkdownString(undefined, false);
    md.isTrusted = false;
    md.supportHtml = false;
    const sum = s.summary.ok ? s.summary : null;
    md.appendText(`${truncate(oneLine(displayTitle(s)), 80)}\n\n`);
    md.appendText(vscode.l10n.t("Live: written {0}", relativeTime(lastWritten(s))) + "\n");
    if (fill) {
      md.appendText(vscode.l10n.t("Model: {0}", `${fill.provider}/${fill.model}`) + "\n");
      md.appendText(
        (fill.window
          ? vscode.l10n.t(
              "Context: {0} of {1} tokens ({2})",
              formatTokens(fill.tokens),
              formatTokens(fill.window),
              formatPercent(fill.percent!),
            )
          : vscode.l10n.t("Context: {0} tokens (the model's window is unknown)", formatTokens(fill.tokens))) + "\n",
      );
    } else if (sum?.model) md.appendText(vscode.l10n.t("Model: {0}", sum.model) + "\n");
    md.appendText(vscode.l10n.t("Cost: {0}", formatCost(ownCost(s))) + "\n");
    const compaction = this.lastCompaction(s);
    md.appendText(
      (compaction === null ? vscode.l10n.t("No compaction yet") : vscode.l10n.t("Last compaction: {0}", compaction)) +
        "\n",
    );
    const threshold = sum?.flavor === "omp" && fill?.window ? this.ompThreshold(s) : null;
    if (threshold) {
      const at = ompThresholdPercent(fill!.window, threshold);
      if (at !== null)
        md.appendText(vscode.l10n.t("Compacts near {0} (this agent's own threshold)", formatPercent(at)));
    } else if (sum?.flavor === "pi" && fill?.window) {
      const settings = this.settingsOf(agentDirOf(s.root.dir), sum.cwd);
      const at = settings.enabled ? compactionPercent(fill.window, settings.reserveTokens) : null;
      md.appendText(
        settings.enabled
          ? at === null
            ? vscode.l10n.t("pi's reserve is larger than this window")
            : vscode.l10n.t("Compacts near {0}", formatPercent(at))
          : vscode.l10n.t("pi's auto-compaction is off"),
      );
    }
    const teamLine = this.team ? teamStatusLine(this.team.status) : null;
    if (teamLine) md.appendText(`\n\n${teamLine}`);
    return md;
  }

  /** pi's compaction settings, read at most once a minute per folder (the item is updated every few seconds). */
  private readonly settings = new Map<string, { at: number; value: CompactionSettings }>();
  private settingsOf(agentDir: string | null, cwd: string | null): CompactionSettings {
    const key = `${agentDir ?? ""}\n${cwd ?? ""}`;
    const hit = this.settings.get(key);
    if (hit && Date.now() - hit.at < 60_000) return hit.value;
    const value = piCompactionSettings(agentDir, cwd);
    if (this.settings.size > 20) this.settings.clear();
    this.settings.set(key, { at: Date.now(), value });
    return value;
  }

  /** An OMP subagent's own compaction threshold (`session_init`), from the opened model if the library follows it. */
  private ompThreshold(s: StoreSession): OmpCompactionThreshold | null {
    const r = this.service.lib.peek(s.file);
    return r?.ok ? ompThresholdOf(r.session) : null;
  }

  /** When the session's latest compaction was written, from the opened model if the library follows it. */
  private lastCompaction(s: StoreSession): string | null {
    if (!s.summary.ok || s.summary.compactions === 0) return null;
    const r = this.service.lib.peek(s.file);
    const last = r?.ok ? r.session.compactions.at(-1) : undefined;
    const ts = last ? r!.ok && r!.session.byId.get(last.id)?.timestamp : undefined;
    return ts ? formatDateTime(ts) : vscode.l10n.t("{0} in this session", s.summary.compactions);
  }

  dispose(): void {
    clearInterval(this.timer);
    for (const d of this.subscriptions) d.dispose();
    this.item.dispose();
  }
}
