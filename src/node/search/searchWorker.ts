/**
 * The extension's search worker (a `worker_threads` thread, bundled as dist/searchWorker.cjs): it owns the index,
 * takes in what the host's library says changed, and answers queries in between, so that neither indexing nor SQLite
 * ever runs on the extension host's thread. A damaged index is built again from the last whole listing.
 */
import { parentPort, workerData } from "node:worker_threads";
import { parseQuery } from "../../core/search/query.js";
import { isCorruption, SearchIndex } from "./searchIndex.js";
import type { IndexTarget } from "./targets.js";
import type { FromWorker, IndexState, SearchAnswer, ToWorker, WorkerSetup } from "./workerProtocol.js";

const setup = workerData as WorkerSetup;
const roots = setup.roots.map((dir) => ({ dir }));
const post = (message: FromWorker) => parentPort!.postMessage(message);

let index: SearchIndex | null = null;
/** The last whole listing, kept to build the index again (after damage, or when this window becomes the writer). */
let listing: IndexTarget[] = [];
let pending = 0;
/** Syncs run one after another; queries are answered between the sessions a sync indexes. */
let syncing: Promise<void> = Promise.resolve();

/** Opened since the last sync: the next sync compares the whole listing with what the index holds. */
let fresh = true;

/** The index being opened: a query and a sync that both come first share one open (and one writer's lock). */
let opening: Promise<SearchIndex> | null = null;

async function openIndex(): Promise<SearchIndex> {
  if (index) return index;
  opening ??= SearchIndex.open(setup.cacheDir, roots, setup.variant).then((opened) => {
    index = opened;
    fresh = true;
    opening = null;
    return opened;
  });
  return opening;
}

/** Another window wrote until now: try to become the writer (and take in what it left). */
async function openForWriting(): Promise<SearchIndex> {
  if (index && !index.writable) {
    index.close();
    index = null;
  }
  return openIndex();
}

function state(): IndexState {
  const stats = index ? index.stats() : { sessions: 0, entries: 0 };
  return { ...stats, pending, readOnly: index ? !index.writable : false };
}

async function sync(targets: IndexTarget[], removed?: string[]): Promise<void> {
  const t0 = Date.now();
  if (!removed) listing = targets;
  else {
    const replaced = new Set([...removed, ...targets.map((t) => t.file)]);
    listing = [...listing.filter((t) => !replaced.has(t.file)), ...targets];
  }
  let idx = await openForWriting();
  const whole = fresh || !idx.writable;
  fresh = false;
  const run = () =>
    idx.update(whole ? listing : targets, {
      removed: whole ? undefined : removed,
      onProgress: (done, total) => {
        pending = total - done;
        post({ type: "progress", done, total });
      },
    });
  let result;
  try {
    result = await run();
  } catch (err) {
    if (!isCorruption(err) || !idx.writable) throw err;
    idx.discard();
    index = null;
    idx = await openIndex();
    result = await idx.update(listing);
  }
  pending = result.pending;
  post({ type: "synced", result, state: state(), ms: Date.now() - t0 });
}

async function query(m: ToWorker & { type: "query" }): Promise<SearchAnswer> {
  const parsed = parseQuery(m.text);
  const idx = await openIndex();
  if (!parsed.ok) return { ok: false, message: parsed.message, state: state() };
  const q =
    m.roles && !parsed.filters.roles.length ? { ...parsed, filters: { ...parsed.filters, roles: m.roles } } : parsed;
  const hits = idx.query(q, { limit: m.limit, files: m.files ?? undefined });
  return { ok: true, hits, state: state() };
}

parentPort!.on("message", (m: ToWorker) => {
  if (m.type === "close") {
    // After the sync under way: the index closed and its writer's lock released, then the thread ends.
    void syncing.finally(() => {
      index?.close();
      process.exit(0);
    });
    return;
  }
  if (m.type === "sync") {
    syncing = syncing
      .then(() => sync(m.targets, m.removed))
      .catch((err: unknown) => post({ type: "failed", message: err instanceof Error ? err.message : String(err) }));
    return;
  }
  query(m)
    .then((answer) => post({ type: "answer", id: m.id, answer }))
    .catch((err: unknown) =>
      post({
        type: "answer",
        id: m.id,
        answer: { ok: false, message: err instanceof Error ? err.message : String(err), state: state() },
      }),
    );
});
