/**
 * A session of the team database as Markdown: written as it is read (the CLI's `export --database`), or as one
 * document for the editor's Open Team Session… (found, counted and read in one snapshot; null when the database holds
 * no text of it).
 */
import { exportSafe } from "../../protocol/format.js";
import type { TeamTranscriptSession } from "../../core/export/teamMarkdown.js";
import type { TeamConnection } from "../team/index.js";
import type { loadTeam } from "../team/load.js";
import { loadExporters } from "./exportBranch.js";

type Team = Awaited<ReturnType<typeof loadTeam>>;

/** Markdown an editor is given at most: a preview of more is slow, and the CLI writes any length to a file. */
const DOCUMENT_CHARS = 16 * 1024 * 1024;

/**
 * A session's transcript as Markdown, written a piece at a time through `put` (the head, then each entry, session
 * text's controls made visible escapes, as in every export) until `put` answers false. Inside `inTeamSnapshot`.
 */
export async function writeTeamTranscript(
  team: Team,
  db: TeamConnection,
  row: TeamTranscriptSession,
  texts: number,
  put: (markdown: string) => boolean,
): Promise<{ entries: number; cut: boolean }> {
  const { teamEntryMarkdown, teamTranscriptHead } = await loadExporters();
  let entries = 0;
  let cut = !put(exportSafe(teamTranscriptHead(row, texts)));
  if (!cut)
    await team.streamTeamTranscript(db, row, (batch) => {
      for (const e of batch) {
        if (!put(exportSafe(`\n${teamEntryMarkdown(e)}`))) {
          cut = true;
          return false;
        }
        entries++;
      }
      return true;
    });
  return { entries, cut };
}

export async function teamTranscriptDocument(
  team: Team,
  db: TeamConnection,
  session: { machine: string; file: string },
  maxChars = DOCUMENT_CHARS,
): Promise<{ markdown: string; entries: number; sessionId: string } | null> {
  return team.inTeamSnapshot(db, async () => {
    const [row] = await team.teamSessionsNamed(db, session.file, session.machine);
    const texts = row ? await team.teamTextCount(db, row) : 0;
    if (!row || !texts) return null;
    const parts: string[] = [];
    let chars = 0;
    const { entries, cut } = await writeTeamTranscript(team, db, row, texts, (md) => {
      if (chars + md.length > maxChars) return false;
      parts.push(md);
      chars += md.length;
      return true;
    });
    if (cut) parts.push(`\n*${cutLine(entries, row.sessionId, row.machine)}*`);
    return { markdown: `${parts.join("\n")}\n`, entries, sessionId: row.sessionId };
  });
}

/** Where a transcript cut for the editor ends, and how to read all of it. */
function cutLine(entries: number, sessionId: string, machine: string): string {
  const id = sessionId.replace(/[^\w.@-]/g, "");
  return (
    `The transcript stops here, after ${entries} entries (16 MB): pi-sessions export ${id} --database --machine ` +
    `${machine.replace(/[^\w.@-]/g, "")} -o FILE writes all of it.`
  );
}
