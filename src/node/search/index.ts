/**
 * Full-text search over a store's sessions (SQLite FTS5): the public surface of `src/node/search/`. Code outside this
 * folder imports from here only (lint enforces it): the index, the targets it is built from, the worker client the
 * extension runs it in, and the shapes of their answers.
 */
export { isCorruption, SearchIndex, type IndexStats, type UpdateResult } from "./searchIndex.js";
export { indexTargets, type IndexTarget } from "./targets.js";
export { SearchClient } from "./searchClient.js";
export { indexFileFor } from "./indexName.js";
export type { IndexState, SearchAnswer, SearchRequest } from "./workerProtocol.js";
export type { SearchHit } from "./queryIndex.js";
