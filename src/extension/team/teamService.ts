/**
 * The team database in VS Code (issue #39): where it is (a connection string in SecretStorage, else the
 * environment's `PI_SESSIONS_DATABASE_URL`), Sync Now and the optional background sync over the loaded library, and
 * the Team scope of Usage & Cost. The database code (with the `pg` client) is dist/team.cjs, loaded on first use.
 * Every message that leaves here (a log line, an error, the dashboard's banner) is scrubbed of the connection's
 * secrets first; the dashboard keeps the last good team numbers (globalState: numbers and names, never the URL) to
 * show with their time when the database cannot be read.
 */
import { hostname } from "node:os";
import * as vscode from "vscode";
import { cacheDir } from "../../node/cacheDir.js";
import type { SyncResult, TeamConnection, TeamSessionRow } from "../../node/team/index.js";
import { loadTeam } from "../../node/team/load.js";
import { teamTranscriptDocument } from "../../node/views/teamTranscript.js";
import { emptyTeamModel, teamDashboardModel } from "../../node/views/teamDashboard.js";
import { formatCount, relativeTime } from "../../protocol/format.js";
import type { DashboardModel } from "../../protocol/views.js";
import type { Logger } from "../logging.js";
import type { SessionService } from "../service.js";
import { machineNameProblem } from "../../node/team/machineName.js";

/** The SecretStorage key of the connection string. */
const TEAM_SECRET = "piSessions.teamDatabase";
const LAST_GOOD = "piSessions.team.lastGood";

export interface TeamSettings {
  machine: string;
  sendContent: boolean;
  redactPaths: boolean;
  syncIntervalMinutes: number;
}

export function readTeamSettings(): TeamSettings {
  const c = vscode.workspace.getConfiguration("piSessions.team");
  const named = (c.get<string>("machine") ?? "").trim();
  const minutes = Number(c.get<number>("syncIntervalMinutes", 0));
  return {
    machine: named || hostname(),
    sendContent: c.get<boolean>("sendContent", false) === true,
    redactPaths: c.get<boolean>("redactPaths", false) === true,
    syncIntervalMinutes: Number.isFinite(minutes) && minutes > 0 ? Math.min(Math.max(minutes, 5), 1440) : 0,
  };
}

/** What the status bar's hover says of the team database. */
export interface TeamStatus {
  where?: string;
  lastSync?: { at: number; result: SyncResult; machine: string };
  /** The last sync's or read's failure (scrubbed), and when. */
  lastError?: { at: number; message: string };
  syncing: boolean;
}

/** The hover's line about the team database (null: none is set, nothing has happened yet). */
export function teamStatusLine(s: TeamStatus): string | null {
  if (s.syncing) return vscode.l10n.t("Team: syncing to {0}…", s.where ?? "");
  if (s.lastError && (!s.lastSync || s.lastError.at > s.lastSync.at))
    return vscode.l10n.t("Team: the last sync failed {0}: {1}", relativeTime(s.lastError.at), s.lastError.message);
  if (s.lastSync)
    return vscode.l10n.t(
      "Team: {0} synced {1} to {2} ({3} sessions sent)",
      s.lastSync.machine,
      relativeTime(s.lastSync.at),
      s.where ?? "",
      formatCount(s.lastSync.result.sent),
    );
  return s.where ? vscode.l10n.t("Team: {0}, not synced in this window yet", s.where) : null;
}

type Range = { since?: string | null; until?: string | null };
type Team = Awaited<ReturnType<typeof loadTeam>>;

export class TeamService implements vscode.Disposable {
  readonly status: TeamStatus = { syncing: false };
  private readonly statusEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeStatus = this.statusEmitter.event;
  private running: Promise<SyncResult> | undefined;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly memento: vscode.Memento,
    private readonly service: SessionService,
    private readonly logger: Logger,
    /** This extension's version, recorded with the machine's syncs. */
    private readonly toolVersion: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** The connection string: the one the user set, else the environment's. */
  async url(): Promise<string | undefined> {
    const stored = await this.secrets.get(TEAM_SECRET);
    const url = stored?.trim() || this.env.PI_SESSIONS_DATABASE_URL?.trim();
    return url || undefined;
  }

  async setUrl(url: string | undefined): Promise<void> {
    if (url) await this.secrets.store(TEAM_SECRET, url);
    else await this.secrets.delete(TEAM_SECRET);
    delete this.status.lastError;
    delete this.status.lastSync;
    this.status.where = url ? (await loadTeam()).describeDatabase(url) : undefined;
    await this.memento.update(LAST_GOOD, undefined);
    this.statusEmitter.fire();
  }

  /** Connect to `url` and ask it one query: "" when it answers, else why not (scrubbed). */
  async check(url: string): Promise<string> {
    const team = await loadTeam();
    try {
      await team.withTeam(url, this.env, (db) => db.query("SELECT 1"));
      return "";
    } catch (err) {
      return team.scrub(err instanceof Error ? err.message : String(err), url, this.env);
    }
  }

  /** Send the loaded library's sessions (one sync at a time: a second caller waits for the running one). */
  sync(): Promise<SyncResult> {
    this.running ??= this.syncOnce().finally(() => {
      this.running = undefined;
      this.status.syncing = false;
      this.statusEmitter.fire();
    });
    return this.running;
  }

  private async syncOnce(): Promise<SyncResult> {
    const url = await this.url();
    if (!url) throw new Error(vscode.l10n.t("no team database: run Set Team Database… first"));
    this.status.syncing = true;
    this.statusEmitter.fire();
    const team = await loadTeam();
    const settings = readTeamSettings();
    await this.service.ensureStarted();
    await this.service.lib.whenComplete();
    try {
      // Inside: a machine name that cannot be used is a failed sync, in the status bar like any other.
      const problem = machineNameProblem(settings.machine);
      if (problem) throw new Error(vscode.l10n.t("piSessions.team.machine {0}: {1}", settings.machine, problem));
      return await team.withTeam(url, this.env, async (db) => {
        this.status.where = db.where;
        const result = await team.syncStore(db, this.service.lib.sessions, {
          machine: settings.machine,
          content: settings.sendContent,
          redactPaths: settings.redactPaths,
          cacheDir: cacheDir(),
          toolVersion: this.toolVersion,
        });
        this.status.lastSync = { at: Date.now(), result, machine: settings.machine };
        delete this.status.lastError;
        this.logger.info(
          `team sync to ${db.where} as ${settings.machine}: ${result.sent} of ${result.sessions} sessions sent, ` +
            `${result.records} records, ${result.removed} removed`,
        );
        return result;
      });
    } catch (err) {
      throw this.failed(err, url, team.scrub);
    }
  }

  /** The Team scope of Usage & Cost: read now, else the last good numbers with why they are not current. */
  async dashboard(range: Range): Promise<DashboardModel> {
    const url = await this.url();
    if (!url) return emptyTeamModel(range, { database: "", unset: true });
    const team = await loadTeam();
    const key = `${range.since ?? ""}..${range.until ?? ""}`;
    try {
      const model = await team.withTeam(url, this.env, (db) => teamDashboardModel(team, db, range));
      await this.memento.update(LAST_GOOD, { key, model });
      return model;
    } catch (err) {
      const error = this.failed(err, url, team.scrub).message;
      const last = this.memento.get<{ key: string; model: DashboardModel }>(LAST_GOOD);
      if (last?.key === key && last.model.team) return { ...last.model, team: { ...last.model.team, error } };
      return emptyTeamModel(range, { database: team.describeDatabase(url, this.env), error });
    }
  }

  /** The sessions whose text the database holds (their machines sync with --content), most recent first. */
  async sessionsWithText(limit: number): Promise<TeamSessionRow[]> {
    return this.onDatabase((team, db) => team.teamSessionsList(db, { limit, withText: true }));
  }

  /** A session's transcript as Markdown, null when the database no longer holds its text. */
  async transcript(session: { machine: string; file: string }): ReturnType<typeof teamTranscriptDocument> {
    return this.onDatabase((team, db) => teamTranscriptDocument(team, db, session));
  }

  /** Run `fn` on the database; a failure is thrown scrubbed (and logged, and in the status bar's hover). */
  private async onDatabase<T>(fn: (team: Team, db: TeamConnection) => Promise<T>): Promise<T> {
    const url = await this.url();
    if (!url) throw new Error(vscode.l10n.t("no team database: run Set Team Database… first"));
    const team = await loadTeam();
    try {
      return await team.withTeam(url, this.env, (db) => fn(team, db));
    } catch (err) {
      // A read that failed is the command's error, not the sync's (the status bar's hover says the sync's).
      throw this.failed(err, url, team.scrub, false);
    }
  }

  /** A failure as an Error whose message holds no secret; logged, and kept for the status bar's hover (`status`). */
  private failed(
    err: unknown,
    url: string,
    scrub: (t: string, u: string, e: NodeJS.ProcessEnv) => string,
    status = true,
  ): Error {
    const message = scrub(err instanceof Error ? err.message : String(err), url, this.env);
    this.logger.warn(`team database: ${message}`);
    if (status) {
      this.status.lastError = { at: Date.now(), message };
      this.statusEmitter.fire();
    }
    return new Error(message);
  }

  dispose(): void {
    this.statusEmitter.dispose();
  }
}
