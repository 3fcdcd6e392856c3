// The fixture HOME the in-host tests run against (scripts/vscode/fixture-home.mjs builds it from fixtures/real), and
// the tree's rendered text: shared by the in-host suites.
import * as fs from "node:fs";
import * as path from "node:path";
import type { PiSessionsApi } from "../../src/extension/extension.js";
import type { Element } from "../../src/extension/tree/index.js";
import { piSlug } from "../../src/core/slug.js";

export const HOME = process.env.PI_SESSIONS_FIXTURE_HOME ?? "";
/** pi's slug folder of the workspace `~/src/proj`. */
export const PROJ = path.join(HOME, ".pi", "agent", "sessions", piSlug(path.join(HOME, "src", "proj")));

/** The session file of the workspace whose name holds `idPart`. */
export const projSession = (idPart: string) =>
  path.join(
    PROJ,
    fs.readdirSync(PROJ).find((f) => f.includes(idPart))!,
  );

function sessionFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sessionFiles(p) : e.name.endsWith(".jsonl") ? [p] : [];
  });
}

/** Every session file of the fixture HOME: pi's and Oh My Pi's, nested ones too. */
export const storeFiles = () => [...sessionFiles(path.join(HOME, ".pi")), ...sessionFiles(path.join(HOME, ".omp"))];

/** A tree node's item, label, description and children, as VS Code renders them. */
export function treeText(api: () => PiSessionsApi) {
  const item = (el: Element) => api().tree.getTreeItem(el);
  const label = (el: Element) => {
    const l = item(el).label;
    return typeof l === "string" ? l : (l?.label ?? "");
  };
  const desc = (el: Element) => String(item(el).description ?? "");
  const kids = (el?: Element) => api().tree.getChildren(el);
  return { item, label, desc, kids };
}

/** A session file's records as written, the header left out: what the in-host tests take their expectations from. */
export interface RawRecord {
  type: string;
  id: string;
  parentId: string | null;
  message?: { role?: string; content?: unknown };
  firstKeptEntryId?: string;
}
export const rawRecords = (file: string): RawRecord[] =>
  fs
    .readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .slice(1)
    .map((l) => JSON.parse(l) as RawRecord);
