/**
 * The optional background sync (`piSessions.team.syncIntervalMinutes`, off by default): every N minutes, only while
 * the editor is idle (no edit, selection or focus change for two minutes, or the window in the background), the
 * library is not loading and no sync runs. A failure is logged and shown in the status bar's hover, never as a
 * notification: a database that is down for a day must not interrupt the user every N minutes.
 */
import * as vscode from "vscode";
import type { Logger } from "../logging.js";
import type { SessionService } from "../service.js";
import { readTeamSettings, type TeamService } from "./teamService.js";

/** How long without the user's activity counts as idle. */
const IDLE_MS = 2 * 60_000;
/** How often an idle tick is looked for once a sync is due. */
const RETRY_MS = 30_000;

export class TeamSchedule implements vscode.Disposable {
  private timer: NodeJS.Timeout | undefined;
  private lastActivity = Date.now();
  private lastRun = Date.now();
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly team: TeamService,
    private readonly service: SessionService,
    private readonly logger: Logger,
  ) {
    const active = () => (this.lastActivity = Date.now());
    this.subscriptions = [
      vscode.workspace.onDidChangeTextDocument(active),
      vscode.window.onDidChangeTextEditorSelection(active),
      vscode.window.onDidChangeActiveTextEditor(active),
      vscode.window.onDidChangeWindowState(active),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("piSessions.team.syncIntervalMinutes")) this.reschedule();
      }),
    ];
    this.reschedule();
  }

  private reschedule(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const minutes = readTeamSettings().syncIntervalMinutes;
    if (minutes > 0) this.timer = setInterval(() => void this.tick(minutes * 60_000), RETRY_MS);
  }

  private idle(): boolean {
    const away = !vscode.window.state.focused;
    return (away || Date.now() - this.lastActivity >= IDLE_MS) && this.service.state !== "loading";
  }

  private async tick(intervalMs: number): Promise<void> {
    if (Date.now() - this.lastRun < intervalMs || this.team.status.syncing || !this.idle()) return;
    if (!(await this.team.url())) return;
    this.lastRun = Date.now();
    await this.team.sync().catch((err: unknown) => {
      // Already scrubbed, logged and in the hover (TeamService.failed): nothing more to say here.
      this.logger.info(`background team sync skipped this time: ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    for (const s of this.subscriptions) s.dispose();
  }
}
