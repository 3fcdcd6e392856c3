/** `pi-sessions touches PATH`: the agent turns that read, edited or wrote a file, newest first. */
import { homedir } from "node:os";
import { resolve } from "node:path";
import { formatDateTime, truncate } from "../protocol/format.js";
import { computeOwnership, sessionTitle } from "../node/store/index.js";
import { type FileTouch, touchesOf } from "../node/touches.js";
import { EXIT_OK, type Io, openStore, type StoreValues, text, whyEmpty } from "./args.js";
import { formatTable, shortId } from "./table.js";

/** The documented `--json` row: these keys, in this order. */
function touchJson(t: FileTouch) {
  return {
    file: t.session.file,
    sessionId: t.session.summary.ok ? t.session.summary.id : null,
    entryId: t.entryId,
    toolCallId: t.toolCallId,
    tool: t.tool,
    kind: t.kind,
    timestamp: Number.isFinite(t.time) ? new Date(t.time).toISOString() : null,
    onActivePath: t.onActivePath,
  };
}

/** The file as the user named it: `~` expanded, relative to the current directory. */
function targetOf(path: string): string {
  const home = homedir();
  if (path === "~" || path.startsWith("~/")) return resolve(home, path.slice(2));
  return resolve(path);
}

export async function touchesCommand(path: string, values: StoreValues, io: Io): Promise<number> {
  const { store, result } = await openStore(values, io);
  const empty = whyEmpty(store, result, values.workspace);
  if (empty) text(io).err(`pi-sessions touches: ${empty}`);
  // As `list` does: a fork's copies are its parent's among the sessions listed.
  computeOwnership(result);
  const target = targetOf(path);
  const touches = touchesOf(result, target, { home: homedir() });
  if (values.json) {
    io.out(JSON.stringify({ touches: touches.map(touchJson) }));
    return EXIT_OK;
  }
  if (!touches.length) {
    text(io).err(`pi-sessions touches: no agent turn read or changed ${target}`);
    return EXIT_OK;
  }
  const table = [["time", "kind", "tool", "session", "entry", "branch"]];
  for (const t of touches)
    table.push([
      formatDateTime(Number.isFinite(t.time) ? t.time : null),
      t.kind,
      t.tool,
      truncate(sessionTitle(t.session), 50),
      shortId(t.entryId),
      t.onActivePath ? "active" : "other",
    ]);
  io.out(formatTable(table, [], false, io));
  return EXIT_OK;
}
