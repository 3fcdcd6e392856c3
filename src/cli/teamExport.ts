/**
 * `pi-sessions export SESSION --database`: a session of the team database as a read-only Markdown transcript, from
 * the texts its machine sent with `sync --content` (issue #39). Written as it is read, an entry at a time, to stdout;
 * to a file with `-o` (checked as a local export's target is).
 */
import { formatDateTime, oneLine, truncate } from "../protocol/format.js";
import { ExportTargetError, writeExport } from "../node/exportWrite.js";
import { ioReason } from "../node/ioReason.js";
import type { TeamConnection } from "../node/team/index.js";
import { writeTeamTranscript } from "../node/views/teamTranscript.js";
import { EXIT_NOT_WRITTEN, EXIT_OK, EXIT_REJECTED, type Io, text, UsageError } from "./args.js";
import { onTeamDatabase } from "./team.js";

interface TeamExportValues {
  database?: string;
  machine?: string;
  format: string;
  output?: string;
  leaf?: string;
}

export async function teamExportCommand(ref: string, values: TeamExportValues, io: Io): Promise<number> {
  if (values.format !== "md") throw new UsageError("--database exports Markdown only: leave out --format html");
  if (values.leaf !== undefined)
    throw new UsageError("--leaf picks a branch of a local file: the team database holds no branches");
  if (!ref.trim()) throw new UsageError("name a session: its id, the start of its id, or its file");
  if (values.output !== undefined && /\.jsonl$/i.test(values.output))
    throw new UsageError(`-o ${JSON.stringify(values.output)}: an export is not written over a .jsonl file`);
  if (values.machine !== undefined && !values.machine.trim()) throw new UsageError("--machine takes a machine's name");
  if (values.output === "") throw new UsageError("-o takes a file name (or - for stdout)");
  return onTeamDatabase(values.database, io, (db, team) =>
    // The session, its count and its texts as of one moment (a sync committing meanwhile is not half seen).
    team.inTeamSnapshot(db, async () => {
      const named = await team.teamSessionsNamed(db, ref, values.machine);
      const session = named.length === 1 ? named[0]! : null;
      if (!session) return notOne(named, ref, `${values.machine ? `on ${values.machine} ` : ""}in ${db.where}`, io);
      const texts = await team.teamTextCount(db, session);
      if (!texts) {
        text(io).err(
          `pi-sessions: the team database holds no text of ${oneLine(session.sessionId)} ` +
            `(${oneLine(session.machine)} syncs without --content, or the session has none)`,
        );
        return EXIT_REJECTED;
      }
      return write(team, db, session, texts, values.output, io);
    }),
  );
}

type Team = Parameters<Parameters<typeof onTeamDatabase>[2]>[1];
type Named = Awaited<ReturnType<Team["teamSessionsNamed"]>>;

/** No session, or more than one: said on stderr, each candidate on a line of its own. */
function notOne(named: Named, ref: string, where: string, io: Io): number {
  if (!named.length) {
    text(io).err(`pi-sessions: no session ${oneLine(JSON.stringify(ref))} ${where} (list --database lists them)`);
    return EXIT_REJECTED;
  }
  text(io).err(`pi-sessions: ${oneLine(JSON.stringify(ref))} names more than one session ${where}:`);
  for (const s of named.slice(0, 20))
    text(io).err(
      `  ${[s.machine, s.sessionId, formatDateTime(s.lastActivity), truncate(s.title ?? "", 40), s.file]
        .map(oneLine)
        .join("  ")}`,
    );
  text(io).err("name one by its whole id or its file, or with --machine");
  return EXIT_REJECTED;
}

/**
 * The document: to stdout an entry at a time as the cursor reads it (a failure midway leaves what was written and
 * the exit code), or to `output` whole once read (nothing written on a failure).
 */
async function write(
  team: Team,
  db: TeamConnection,
  session: Named[number],
  texts: number,
  output: string | undefined,
  io: Io,
): Promise<number> {
  const toFile = output !== undefined && output !== "-";
  const parts: string[] = [];
  const { entries } = await writeTeamTranscript(team, db, session, texts, (md) => {
    if (toFile) parts.push(md);
    else io.out(md);
    return true;
  });
  if (!toFile) return EXIT_OK;
  try {
    await writeExport(output, `${parts.join("\n")}\n`);
  } catch (err) {
    text(io).err(err instanceof ExportTargetError ? err.message : `${output}: ${ioReason(err)}`);
    return EXIT_NOT_WRITTEN;
  }
  text(io).err(`wrote ${output} (${entries} entries of ${oneLine(session.sessionId)} on ${oneLine(session.machine)})`);
  return EXIT_OK;
}
