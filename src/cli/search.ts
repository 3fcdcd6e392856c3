/**
 * `pi-sessions search QUERY`: full-text search over every session under the roots, on the SQLite FTS5 index in the
 * cache dir (src/node/search). The first run builds the index (progress on stderr when it is a terminal); later runs
 * walk the roots, and only when a file changed list the store and update the index, then query. With `--no-cache`
 * the index is built in a throwaway directory.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseQuery, prefixSuggestion } from "../core/search/query.js";
import { formatDateTime, oneLine, truncate } from "../protocol/format.js";
import { hostPaths, resolveRoots } from "../node/roots.js";
import { type IndexTarget, indexTargets, isCorruption, SearchClient, SearchIndex } from "../node/search/index.js";
import { cacheFileFor, computeOwnership, discover, inWorkspace, loadStore } from "../node/store/index.js";
import { cacheDir } from "../node/cacheDir.js";
import { EXIT_OK, type Io, type StoreValues, text, UsageError } from "./args.js";

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

  const roots = resolveRoots({ agentDirs: values.agentDir, sessionDirs: values.sessionDir });
  const scratch = values.cache === false ? mkdtempSync(join(tmpdir(), "pi-sessions-search-")) : null;
  let index = await SearchIndex.open(scratch ?? cacheDir(), roots);
  try {
    if (index.rebuilt) text(io).err("the search index was not valid; rebuilding it");
    const progress = values.progress
      ? (done: number, total: number) => {
          if (done === total || done % 50 === 0) io.err(`indexing sessions: ${done} of ${total}`);
        }
      : undefined;
    const search = async () => {
      const changed = await changedTargets(index, roots, values.cache !== false);
      let pending = 0;
      if (changed && index.writable && existsSync(SEARCH_WORKER)) {
        // Indexed in a worker thread whose heap is capped (a long session streams through it), then read here.
        index.close();
        pending = await updateInWorker(scratch ?? cacheDir(), roots, changed, progress);
        index = await SearchIndex.open(scratch ?? cacheDir(), roots);
      } else if (changed) pending = (await index.update(changed, { onProgress: progress })).pending;
      let files: string[] | undefined;
      if (values.workspace !== undefined) {
        const host = hostPaths();
        files = index
          .placements()
          .filter((p) => inWorkspace(p, values.workspace!, host))
          .map((p) => p.file);
      }
      const hits = index.query(query, { limit, files });
      // Nothing found: the prefix form of its words, when that finds something (Porter keeps some forms apart).
      const prefix = hits.length ? null : prefixSuggestion(words.join(" "));
      const prefixQuery = prefix ? parseQuery([prefix, ...extra].join(" ")) : null;
      const suggestion = prefixQuery?.ok && index.query(prefixQuery, { limit: 1, files }).length ? prefix : null;
      return { hits, pending, suggestion };
    };
    let found;
    try {
      found = await search();
    } catch (err) {
      if (!isCorruption(err) || !index.writable) throw err;
      // Damaged since it was written (a disk error, a killed copy): build it again, once.
      text(io).err("the search index is damaged; rebuilding it");
      index.discard();
      index = await SearchIndex.open(scratch ?? cacheDir(), roots);
      found = await search();
    }
    const { hits, pending, suggestion } = found;
    const stats = { ...index.stats(), pending };
    if (values.json) {
      io.out(JSON.stringify({ hits, indexed: stats }));
      return EXIT_OK;
    }
    const t = text(io);
    for (const h of hits) {
      const role = h.tool ? `${h.role}:${h.tool}` : h.role;
      const fields = [
        formatDateTime(h.timestamp),
        basename(h.cwd) || "-",
        truncate(h.title || basename(h.file), 40),
        role,
        truncate(h.snippet, 160),
      ];
      t.out(fields.map(oneLine).join("  "));
    }
    if (!hits.length) t.err(suggestion ? `no match; the beginning of the word finds some: ${suggestion}` : "no match");
    if (stats.pending) t.err(`${stats.pending} sessions not indexed yet: another process is updating the index`);
    return EXIT_OK;
  } finally {
    index.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/** The search worker, bundled next to cli.js (absent when run from source: the index is updated in this thread). */
const SEARCH_WORKER = fileURLToPath(new URL("./searchWorker.cjs", import.meta.url));

/**
 * The store's index targets when some file changed since the last run, else null. The walk (sizes and mtimes) is
 * cheap; the store's listing (summaries and fork ownership) is loaded only when some file changed.
 */
async function changedTargets(
  index: SearchIndex,
  roots: ReturnType<typeof resolveRoots>,
  useCache: boolean,
): Promise<IndexTarget[] | null> {
  const known = index.known();
  const { files } = await discover(roots);
  const unchanged =
    files.length === known.size &&
    files.every((f) => {
      const k = known.get(f.file);
      return k !== undefined && k.size === f.size && k.mtime === Number(f.mtimeNs / 1_000_000n);
    });
  if (unchanged) return null;
  const store = await loadStore({ roots, cacheFile: useCache ? cacheFileFor(cacheDir(), roots) : null });
  computeOwnership(store.sessions);
  return indexTargets(store.sessions);
}

/** Index `targets` in the search worker (as the extension does); returns how many are left to another process. */
function updateInWorker(
  dir: string,
  roots: ReturnType<typeof resolveRoots>,
  targets: IndexTarget[],
  onProgress?: (done: number, total: number) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let pending = 0;
    const client = new SearchClient(
      SEARCH_WORKER,
      { cacheDir: dir, roots: roots.map((r) => r.dir), variant: "" },
      {
        ...(onProgress ? { onProgress } : {}),
        onSynced: (m) => {
          pending = m.result.pending;
          void client.dispose().then(() => resolve(pending));
        },
        onFailed: (message) => {
          void client.dispose();
          reject(new Error(`the search index could not be updated: ${message}`));
        },
      },
    );
    client.sync(targets);
  });
}
