/**
 * A session of the team database as one Markdown document, for the editor's Open Team Session… (the CLI's `export
 * --database` writes the same sections as it reads them). Found, counted and read in one snapshot; null when the
 * database holds no text of it.
 */
import { exportSafe } from "../../protocol/format.js";
import type { TeamConnection } from "../team/index.js";
import type { loadTeam } from "../team/load.js";
import { loadExporters } from "./exportBranch.js";

type Team = Awaited<ReturnType<typeof loadTeam>>;

/** Markdown an editor is given at most: a preview of more is slow, and the CLI writes any length to a file. */
const DOCUMENT_CHARS = 16 * 1024 * 1024;

export async function teamTranscriptDocument(
  team: Team,
  db: TeamConnection,
  session: { machine: string; file: string },
  maxChars = DOCUMENT_CHARS,
): Promise<{ markdown: string; entries: number; sessionId: string } | null> {
  const { teamEntryMarkdown, teamTranscriptHead } = await loadExporters();
  return team.inTeamSnapshot(db, async () => {
    const [row] = await team.teamSessionsNamed(db, session.file, session.machine);
    const texts = row ? await team.teamTextCount(db, row) : 0;
    if (!row || !texts) return null;
    // Session text's controls become visible escapes, as in every export.
    const parts = [exportSafe(teamTranscriptHead(row, texts))];
    let chars = parts[0]!.length;
    let cut = false;
    await team.streamTeamTranscript(db, row, (batch) => {
      for (const e of batch) {
        const md = exportSafe(`\n${teamEntryMarkdown(e)}`);
        if (chars + md.length > maxChars) {
          cut = true;
          return false;
        }
        parts.push(md);
        chars += md.length;
      }
      return true;
    });
    const entries = parts.length - 1;
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
