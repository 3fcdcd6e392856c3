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
