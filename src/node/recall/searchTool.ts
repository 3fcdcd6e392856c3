/** `search_sessions`: the search index's hits for a query, in a scope, with the forks that carry each. */
import { truncate } from "../../protocol/format.js";
import { sessionTitle, type StoreSession } from "../store/index.js";
import { jsonAnswer, QUOTED_NOTE, RecallError, type ToolAnswer } from "./answer.js";
import type { SearchArgs } from "./schemas.js";
import { inScope, type RecallSource, scopeOf, sessionIdOf } from "./source.js";

const DEFAULT_HITS = 10;
/** Forks named per hit at most (`alsoInCount` says how many carry it). */
const ALSO_IN_MAX = 20;

export async function searchSessions(args: SearchArgs, source: RecallSource): Promise<ToolAnswer> {
  const scope = await scopeOf(args, source);
  const sessions = await source.sessions();
  const byFile = new Map<string, StoreSession>(sessions.map((s) => [s.file, s]));
  const files = scope.folders ? inScope(sessions, scope).map((s) => s.file) : null;
  const limit = args.limit ?? DEFAULT_HITS;
  const { answer, partial } = await source.search(args.query, limit, files);
  if (!answer.ok)
    throw new RecallError(`the query ${JSON.stringify(args.query)} cannot be searched: ${answer.message}`);
  const hits = answer.hits.map((h) => {
    const s = byFile.get(h.file);
    return {
      session: h.sessionId || (s ? sessionIdOf(s) : null),
      file: h.file,
      title: truncate(s ? sessionTitle(s) : h.title, 300),
      entry: h.entryId || null,
      kind: h.tool ? `${h.role}:${h.tool}` : h.role,
      time: h.timestamp,
      onActiveBranch: h.active,
      snippet: h.snippet,
      alsoInCount: h.alsoIn.length,
      alsoIn: h.alsoIn.slice(0, ALSO_IN_MAX).map((file) => {
        const fork = byFile.get(file);
        return { session: fork ? sessionIdOf(fork) : null, file };
      }),
    };
  });
  const state = answer.state;
  const progress = partial
    ? `the index is still being built (${state.sessions} sessions indexed, ${state.pending} to go): results are partial`
    : `index of ${state.sessions} sessions`;
  const summary =
    `${hits.length === 1 ? "1 hit" : `${hits.length} hits`} for ${JSON.stringify(args.query)} in ${scope.label}; ` +
    `${progress}. Snippets mark matched words with « ». Read a hit with read_session { session, entry }. ` +
    QUOTED_NOTE;
  return jsonAnswer(summary, {
    query: args.query,
    scope: scope.folders ?? "all",
    partial,
    indexed: { sessions: state.sessions, pending: state.pending },
    hits,
  });
}
