/**
 * `pi-sessions search QUERY`: full-text search over every session under the roots, on the SQLite FTS5 index in the
 * cache dir (src/node/search). The first run builds the index (progress on stderr when it is a terminal); later runs
 * update it with what changed, then query. With `--no-cache` the index is built in a throwaway directory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseQuery } from "../core/search/query.js";
import { formatDateTime, oneLine, truncate } from "../protocol/format.js";
import { isCorruption, SearchIndex } from "../node/search/searchIndex.js";
import { computeOwnership, sessionTitle } from "../node/store/index.js";
import { cacheDir, EXIT_OK, type Io, openStore, type StoreValues, text, UsageError } from "./args.js";

interface SearchValues extends StoreValues {
  limit: string;
  role?: string;
  since?: string;
  until?: string;
  /** stderr is a terminal: show indexing progress there. */
  progress?: boolean;
}

export async function searchCommand(words: string[], values: SearchValues, io: Io): Promise<number> {
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500)
    throw new UsageError("--limit takes a number from 1 to 500");
  // The options are the query's own filters, written for the shell.
  const extra = [
    values.role ? `role:${values.role}` : "",
    values.since ? `since:${values.since}` : "",
    values.until ? `until:${values.until}` : "",
  ];
  const query = parseQuery([...words, ...extra].join(" "));
  if (!query.ok) throw new UsageError(query.message);

  const { store, result } = await openStore(values);
  computeOwnership(store.sessions);
  const scratch = values.cache === false ? mkdtempSync(join(tmpdir(), "pi-sessions-search-")) : null;
  let index = await SearchIndex.open(scratch ?? cacheDir(), store.roots);
  try {
    if (index.rebuilt) text(io).err("the search index was not valid; rebuilding it");
    const progress = values.progress
      ? (done: number, total: number) => {
          if (done === total || done % 50 === 0) io.err(`indexing sessions: ${done} of ${total}`);
        }
      : undefined;
    const inScope = new Set(result.map((s) => s.file));
    const search = async () => {
      const { pending } = await index.update(store.sessions, progress);
      const hits = index
        .query(query, { limit: limit * 2, sessions: store.sessions })
        .filter((h) => inScope.has(h.file))
        .slice(0, limit);
      return { hits, pending };
    };
    let found;
    try {
      found = await search();
    } catch (err) {
      if (!isCorruption(err) || !index.writable) throw err;
      // Damaged since it was written (a disk error, a killed copy): build it again, once.
      text(io).err("the search index is damaged; rebuilding it");
      index.discard();
      index = await SearchIndex.open(scratch ?? cacheDir(), store.roots);
      found = await search();
    }
    // What update left (another process writing) is what is pending: no second look at every file.
    const { hits, pending } = found;
    const stats = { ...index.stats(), pending };
    if (values.json) {
      io.out(JSON.stringify({ hits, indexed: stats }));
      return EXIT_OK;
    }
    const byFile = new Map(store.sessions.map((s) => [s.file, s]));
    const t = text(io);
    for (const h of hits) {
      const s = byFile.get(h.file);
      const role = h.tool ? `${h.role}:${h.tool}` : h.role;
      const fields = [
        formatDateTime(h.timestamp),
        basename(h.cwd) || "-",
        truncate(s ? sessionTitle(s) : basename(h.file), 40),
        role,
        truncate(h.snippet, 160),
      ];
      t.out(fields.map(oneLine).join("  "));
    }
    if (!hits.length) t.err("no match");
    if (stats.pending) t.err(`${stats.pending} sessions not indexed yet: another process is updating the index`);
    return EXIT_OK;
  } finally {
    index.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}
