/**
 * `list_sessions`, `file_history` and `session_usage`: what the listing knows (titles, times, cost, lineage, the
 * files each turn touched, usage records), answered from the summaries; `file_history` reads the few sessions whose
 * turns it names, for the prompt behind each.
 */
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { parseDay } from "../../core/periods.js";
import { promptLines } from "../../core/promptBehind.js";
import { formatCost, formatTokens, truncate } from "../../protocol/format.js";
import { usageReport } from "../report.js";
import { lastActivity, ownCost, sessionTitle, type StoreSession } from "../store/index.js";
import { byTimeDesc, pathKey, sessionTouches } from "../touches.js";
import { jsonAnswer, QUOTED_NOTE, RecallError, type ToolAnswer } from "./answer.js";
import type { FileHistoryArgs, ListArgs, UsageArgs } from "./schemas.js";
import { inScope, type RecallSource, scopeOf, sessionIdOf } from "./source.js";

const DEFAULT_LIST = 20;
const DEFAULT_TURNS = 30;
/** Sessions `file_history` reads for the prompts behind its turns (the newest turns' sessions first). */
const PROMPT_SESSIONS = 20;

/** The most characters of a title or a folder in a row (a session can name itself with a megabyte). */
const FIELD_MAX = 300;

const isoOf = (ms: number) => (Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null);

/** Midnight of a day in local time, in ms. */
function dayStart(day: string): number {
  const parsed = parseDay(day);
  if (!parsed) throw new RecallError(`${JSON.stringify(day)} is not a day (YYYY-MM-DD)`);
  return new Date(`${parsed}T00:00:00`).getTime();
}

export async function listSessions(args: ListArgs, source: RecallSource): Promise<ToolAnswer> {
  const scope = await scopeOf(args, source);
  const since = args.since === undefined ? -Infinity : dayStart(args.since);
  const listed = inScope(await source.sessions(), scope)
    .filter((s) => lastActivity(s) >= since)
    .sort((a, b) => lastActivity(b) - lastActivity(a) || a.file.localeCompare(b.file));
  const limit = args.limit ?? DEFAULT_LIST;
  const rows = listed.slice(0, limit).map((s) => row(s));
  const more = listed.length > rows.length ? ` (the newest ${rows.length} of ${listed.length})` : "";
  return jsonAnswer(
    `${listed.length === 1 ? "1 session" : `${listed.length} sessions`}${more} in ${scope.label}, newest first; ` +
      `cost is each session's own (a fork's copied turns count in its parent). ${QUOTED_NOTE}`,
    { scope: scope.folders ?? "all", total: listed.length, sessions: rows },
  );
}

function row(s: StoreSession) {
  const sum = s.summary;
  return {
    session: sessionIdOf(s),
    file: s.file,
    title: truncate(sessionTitle(s), FIELD_MAX),
    agent: sum.ok ? sum.flavor : null,
    cwd: sum.ok && sum.cwd !== null ? truncate(sum.cwd, FIELD_MAX) : null,
    lastActive: isoOf(lastActivity(s)),
    model: sum.ok ? sum.model : null,
    cost: Math.round(ownCost(s) * 1e6) / 1e6,
    entries: sum.ok ? sum.entries.length : 0,
    forkOf: s.parent ? { session: sessionIdOf(s.parent), title: truncate(sessionTitle(s.parent), FIELD_MAX) } : null,
    unreadable: sum.ok ? null : `line ${sum.rejection.line}: ${sum.rejection.message}`,
  };
}

/** The file a `file_history` call names: absolute, `~/…`, or relative to the (first) workspace folder. */
async function targetOf(path: string, source: RecallSource, workspace: string | undefined): Promise<string> {
  if (path === "~" || path.startsWith("~/")) return resolve(homedir(), path.slice(2));
  if (isAbsolute(path)) return resolve(path);
  const base = workspace ?? (await source.workspace())[0];
  if (!base) throw new RecallError(`path ${JSON.stringify(path)} is relative and no workspace is known: give it whole`);
  return resolve(base, path);
}

export async function fileHistory(args: FileHistoryArgs, source: RecallSource): Promise<ToolAnswer> {
  const scope = await scopeOf(args, source);
  const target = await targetOf(args.path, source, args.workspace);
  const key = pathKey(target);
  const home = homedir();
  const touches = inScope(await source.sessions(), scope)
    .flatMap((s) => sessionTouches(s, { home }))
    .filter(([k]) => k === key)
    .map(([, t]) => t)
    .sort(byTimeDesc);
  const shown = touches.slice(0, args.limit ?? DEFAULT_TURNS);
  const prompts = new Map<string, (id: string) => string>();
  for (const file of [...new Set(shown.map((t) => t.session.file))].slice(0, PROMPT_SESSIONS)) {
    const parsed = await source.open(shown.find((t) => t.session.file === file)!.session);
    if (parsed.ok) prompts.set(file, promptLines(parsed.session, 300));
  }
  const turns = shown.map((t) => ({
    time: isoOf(t.time),
    kind: t.kind,
    tool: t.tool,
    session: sessionIdOf(t.session),
    title: truncate(sessionTitle(t.session), FIELD_MAX),
    entry: t.entryId,
    prompt: prompts.get(t.session.file)?.(t.entryId) || null,
    onActiveBranch: t.onActivePath,
  }));
  const more = touches.length > turns.length ? ` (the newest ${turns.length})` : "";
  return jsonAnswer(
    `${touches.length === 1 ? "1 agent turn" : `${touches.length} agent turns`}${more} read, edited or wrote ` +
      `${JSON.stringify(target)} in ${scope.label}, newest first. Read one with read_session { session, entry }. ` +
      QUOTED_NOTE,
    { path: target, scope: scope.folders ?? "all", total: touches.length, turns },
  );
}

export async function sessionUsage(args: UsageArgs, source: RecallSource): Promise<ToolAnswer> {
  const day = (value: string | undefined) => {
    if (value === undefined) return undefined;
    const parsed = parseDay(value);
    if (!parsed) throw new RecallError(`${JSON.stringify(value)} is not a day (YYYY-MM-DD)`);
    return parsed;
  };
  const since = day(args.since);
  const until = day(args.until);
  if (since && until && since > until) throw new RecallError(`since ${since} is after until ${until}`);
  const scope = await scopeOf(args, source);
  const by = args.by ?? "day";
  const { cells: _cells, ...report } = usageReport(inScope(await source.sessions(), scope), { by, since, until });
  const t = report.total;
  const range = since || until ? ` from ${since ?? "the start"} to ${until ?? "today"}` : "";
  return jsonAnswer(
    `Usage by ${by} in ${scope.label}${range}: ${report.rows.length} rows, ${formatCost(t.cost)} and ` +
      `${formatTokens(t.totalTokens)} tokens in all; a fork's copied turns count once, in the session that made them.`,
    { scope: scope.folders ?? "all", ...report },
  );
}
