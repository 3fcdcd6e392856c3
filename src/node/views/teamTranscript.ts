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

export async function teamTranscriptDocument(
  team: Team,
  db: TeamConnection,
  session: { machine: string; file: string },
): Promise<{ markdown: string; entries: number; sessionId: string } | null> {
  const { teamEntryMarkdown, teamTranscriptHead } = await loadExporters();
  return team.inTeamSnapshot(db, async () => {
    const [row] = await team.teamSessionsNamed(db, session.file, session.machine);
    const texts = row ? await team.teamTextCount(db, row) : 0;
    if (!row || !texts) return null;
    const parts = [teamTranscriptHead(row, texts)];
    await team.streamTeamTranscript(db, row, (batch) => {
      for (const e of batch) parts.push(`\n${teamEntryMarkdown(e)}`);
    });
    // Session text's controls become visible escapes, as in every export.
    return { markdown: exportSafe(`${parts.join("\n")}\n`), entries: parts.length - 1, sessionId: row.sessionId };
  });
}
