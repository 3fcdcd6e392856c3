/**
 * The team database (issue #39): its public surface, bundled apart with the `pg` client (dist/team.cjs,
 * scripts/build.mjs), loaded by `pi-sessions sync`, the CLI's `--database` options and the extension's Team scope
 * only when they run (`loadTeam`).
 */
export {
  connectTeam,
  databaseUrl,
  describeDatabase,
  scrub,
  TeamError,
  type TeamConnection,
  withTeam,
} from "./connect.js";
export { migrate, SchemaError } from "./schema.js";
export { syncStore, type SyncOptions, type SyncResult } from "./sync.js";
export {
  teamDailyByModel,
  teamSearch,
  teamSessionsList,
  teamUsageReport,
  type TeamGroupBy,
  type TeamHit,
  type TeamSessionRow,
  type TeamUsageReport,
} from "./read.js";
export { inTeamSnapshot, streamTeamTranscript, teamSessionsNamed, teamTextCount } from "./transcript.js";
