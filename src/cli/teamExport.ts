/**
 * `pi-sessions export SESSION --database`: a session of the team database as a read-only Markdown transcript, from
 * the texts its machine sent with `sync --content` (issue #39). Written as it is read, an entry at a time, to stdout;
 * to a file with `-o` (checked as a local export's target is).
 */
import { exportSafe, formatDateTime, oneLine, truncate } from "../protocol/format.js";
import { ExportTargetError, writeExport } from "../node/exportWrite.js";
import { ioReason } from "../node/ioReason.js";
import { loadExporters } from "../node/views/exportBranch.js";
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
  return onTeamDatabase(values.database, io, async (db, team) => {
    const named = await team.teamSessionsNamed(db, ref, values.machine);
    const where = `${values.machine ? `on ${values.machine} ` : ""}in ${db.where}`;
    if (!named.length) {
      text(io).err(`pi-sessions: no session ${JSON.stringify(ref)} ${where} (list --database lists them)`);
      return EXIT_REJECTED;
    }
    if (named.length > 1) {
      text(io).err(`pi-sessions: ${JSON.stringify(ref)} names more than one session ${where}:`);
      for (const s of named.slice(0, 20))
        text(io).err(
          `  ${[s.machine, s.sessionId, formatDateTime(s.lastActivity), truncate(s.title ?? "", 40), s.file]
            .map(oneLine)
            .join("  ")}`,
        );
      text(io).err("name one by its whole id or its file, or with --machine");
      return EXIT_REJECTED;
    }
    const session = named[0]!;
    const texts = await team.teamTextCount(db, session);
    if (!texts) {
      text(io).err(
        `pi-sessions: the team database holds no text of ${session.sessionId} (${session.machine} syncs without ` +
          "--content, or the session has none)",
      );
      return EXIT_REJECTED;
    }
    const { teamEntryMarkdown, teamTranscriptHead } = await loadExporters();
    const toFile = values.output !== undefined && values.output !== "-";
    const parts: string[] = [];
    // Session text's controls become visible escapes, wherever the document goes.
    const put = (md: string) => (toFile ? parts.push(exportSafe(md)) : io.out(exportSafe(md)));
    put(teamTranscriptHead(session, texts));
    let entries = 0;
    await team.streamTeamTranscript(db, session, (batch) => {
      for (const e of batch) put(`\n${teamEntryMarkdown(e)}`);
      entries += batch.length;
    });
    if (!toFile) return EXIT_OK;
    try {
      await writeExport(values.output!, `${parts.join("\n")}\n`);
    } catch (err) {
      text(io).err(err instanceof ExportTargetError ? err.message : `${values.output}: ${ioReason(err)}`);
      return EXIT_NOT_WRITTEN;
    }
    text(io).err(`wrote ${values.output} (${entries} entries of ${session.sessionId} on ${session.machine})`);
    return EXIT_OK;
  });
}
