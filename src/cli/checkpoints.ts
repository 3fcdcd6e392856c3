/** `pi-sessions checkpoints FILE`: every compaction entry of a session, who wrote it, how, and whether it replays. */
import { surfaceName } from "../core/compact/blackmagic.js";
import { readSessionFile } from "../node/readSession.js";
import { checkpointRecords } from "../node/views/checkpointRecord.js";
import { formatDateTime, oneLine } from "../protocol/format.js";
import type { CheckpointRecord } from "../protocol/views.js";
import { EXIT_OK, type Io, reportUnreadable, text } from "./args.js";
import { formatTable } from "./table.js";

/** The documented JSON shape: these keys, in this order (extra facts stay in the text table and the inspector). */
const JSON_KEYS = [
  "entryId",
  "producer",
  "state",
  "failureClass",
  "surface",
  "protocol",
  "model",
  "deployment",
  "endpoint",
  "integrity",
  "artifactItemCount",
  "compactionItemId",
  "replayNamespace",
  "replacedItemHashCount",
  "usage",
  "latencyMs",
  "onActiveBranch",
  "activeOnActiveBranch",
  "supersededBy",
  "timelineEntryId",
  "readFiles",
  "modifiedFiles",
  "line",
  "timestamp",
  "writer",
] as const satisfies readonly (keyof CheckpointRecord)[];

function checkpointJson(r: CheckpointRecord): Record<string, unknown> {
  return Object.fromEntries(JSON_KEYS.map((k) => [k, r[k]]));
}

/** How the compaction was made, for the table: the surface and model, or the fallback's failure class. */
function how(r: CheckpointRecord): string {
  if (r.state === "local_fallback") return `failed: ${r.failureClass ?? "unknown"}`;
  if (r.surface === null) return r.producer === "blackmagic" ? "-" : `${r.producer} (local summary)`;
  const model = r.deployment ? `${r.model ?? "?"} as ${r.deployment}` : (r.model ?? "?");
  return `${surfaceName(r.surface)} · ${model}`;
}

export async function checkpointsCommand(file: string, values: { json?: boolean }, io: Io): Promise<number> {
  const result = await readSessionFile(file, { validate: false });
  if (!result.ok) return reportUnreadable(result, !!values.json, io);
  const records = checkpointRecords(result.session);
  if (values.json) {
    io.out(JSON.stringify({ checkpoints: records.map(checkpointJson) }));
    return EXIT_OK;
  }
  if (records.length === 0) {
    text(io).err("pi-sessions checkpoints: no compactions in this session");
    return EXIT_OK;
  }
  const table = [["entry", "time", "state", "surface · model", "integrity", "items", "branch"]];
  for (const r of records) {
    table.push([
      oneLine(r.entryId),
      formatDateTime(r.timestamp),
      r.state ?? r.producer,
      oneLine(how(r)),
      r.integrity === null ? "-" : r.integrity.valid ? "✓" : "✗ tampered",
      r.artifactItemCount === null ? "-" : String(r.artifactItemCount),
      r.activeOnActiveBranch
        ? "active (replays next)"
        : r.supersededBy
          ? `superseded by ${oneLine(r.supersededBy)}`
          : r.onActiveBranch
            ? "active branch"
            : "other branch",
    ]);
  }
  io.out(formatTable(table, [5], false, io));
  return EXIT_OK;
}
