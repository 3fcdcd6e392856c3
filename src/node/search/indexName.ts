/** Where the search index of a set of roots is: a name the extension can know without loading SQLite. */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { SCHEMA_VERSION } from "./schemaVersion.js";

/**
 * One index per set of roots, like the metadata cache: a run over other roots must not drop these sessions. A
 * `variant` (the extension set to leave pi's or OMP's sessions out) lists fewer of them: an index of its own.
 */
export function indexFileFor(cacheDir: string, roots: readonly { dir: string }[], variant = ""): string {
  const key = createHash("sha256")
    .update([...roots.map((r) => r.dir), ...(variant ? [`\0${variant}`] : [])].join("\0"))
    .digest("hex")
    .slice(0, 16);
  return join(cacheDir, `search-v${SCHEMA_VERSION}-${key}.sqlite`);
}

/**
 * The names an earlier schema version gave the same index (`search-v1-…` up to this version's): removed by the
 * writer, since an old index may hold what this one never keeps (v3 kept each session's last raw bytes).
 */
export function olderIndexFiles(file: string): string[] {
  const m = /^(.*search-v)(\d+)(-[0-9a-f]+\.sqlite)$/.exec(file);
  if (!m) return [];
  const out: string[] = [];
  for (let v = 1; v < Number(m[2]); v++) out.push(`${m[1]}${v}${m[3]}`);
  return out;
}
