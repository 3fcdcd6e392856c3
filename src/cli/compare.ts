/**
 * `pi-sessions compare FILE --leaf A --leaf B`: two branches of a session side by side from their fork point, or a
 * fork with its parent (`--leaf` names the fork's file).
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { BranchEnd } from "../core/compare.js";
import type { Session } from "../core/session/index.js";
import { readSessionFile } from "../node/readSession.js";
import { compareJson } from "../node/views/compare.js";
import { formatCost, formatTokens, oneLine, truncate } from "../protocol/format.js";
import { EXIT_OK, type Io, reportUnreadable, text, UsageError } from "./args.js";
import { formatTable } from "./table.js";

function isFile(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A `--leaf`: an entry id of the session, `active` (its leaf), or another session file (a fork: its leaf). */
async function endOf(session: Session, leaf: string, json: boolean, io: Io): Promise<BranchEnd | number> {
  if (leaf === "active") return { session, leafId: session.leafId };
  if (session.byId.has(leaf)) return { session, leafId: leaf };
  if (isFile(resolve(leaf))) {
    const other = await readSessionFile(resolve(leaf), { validate: false });
    if (!other.ok) return reportUnreadable(other, json, io);
    return { session: other.session, leafId: other.session.leafId };
  }
  throw new UsageError(`--leaf ${leaf}: no such entry in the session, and not a session file`);
}

type Side = ReturnType<typeof compareJson>["sides"][number];

export async function compareCommand(
  file: string,
  values: { leaf?: string[]; json?: boolean },
  io: Io,
): Promise<number> {
  const leaves = values.leaf ?? [];
  if (leaves.length !== 2) throw new UsageError("give two --leaf options: entry ids, active, or a fork's file");
  const result = await readSessionFile(file, { validate: false });
  if (!result.ok) return reportUnreadable(result, !!values.json, io);
  const ends: BranchEnd[] = [];
  for (const leaf of leaves) {
    const end = await endOf(result.session, leaf, !!values.json, io);
    if (typeof end === "number") return end;
    ends.push(end);
  }
  const json = compareJson(ends[0]!, ends[1]!);
  if (values.json) {
    io.out(JSON.stringify(json));
    return EXIT_OK;
  }
  const out = text(io);
  out.out(json.forkPoint ? `fork point ${json.forkPoint}` : "no shared entry: the two paths have nothing in common");
  const [a, b] = json.sides as [Side, Side];
  const row = (label: string, f: (s: Side) => string) => [label, f(a), f(b)];
  const files = (list: string[]) => (list.length ? list.map((p) => oneLine(p)).join("\n") : "-");
  const table = [
    ["", `A: ${leaves[0]}`, `B: ${leaves[1]}`],
    row("leaf", (s) => s.leaf ?? "(empty)"),
    row("entries after the fork point", (s) => String(s.entries)),
    row("cost", (s) => formatCost(s.cost)),
    row("tokens in / out", (s) => `${formatTokens(s.tokens.input)} / ${formatTokens(s.tokens.output)}`),
    row("cache read / write", (s) => `${formatTokens(s.tokens.cacheRead)} / ${formatTokens(s.tokens.cacheWrite)}`),
    row("files modified", (s) => String(s.filesModified.length)),
    row("files read", (s) => String(s.filesRead.length)),
    row("last answer", (s) => truncate(oneLine(s.lastAssistant ?? "-"), 60)),
  ];
  // formatTable makes every cell inert itself, and may colour the header (which `text` would escape).
  io.out(formatTable(table, [], false, io));
  for (const [i, s] of json.sides.entries()) {
    if (!s.filesModified.length) continue;
    out.out(`\n${i === 0 ? "A" : "B"} modified:\n${files(s.filesModified)}`);
  }
  return EXIT_OK;
}
