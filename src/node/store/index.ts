/**
 * The session store: every session file under the configured roots, fork lineage, and fork-aware ownership of
 * entries (so usage is counted exactly once). `loadStore` lists them, from the metadata cache where it can, from a
 * probe of each file's ends for a first paint, and in full otherwise. This index is the store's public surface.
 */
export { cacheFileFor, entryStats, forEachUsage, packSummary, unpackSummary } from "./cache.js";
export { detailsRecovered } from "./cacheLines.js";
export { type DiscoveredFile, discover, type Placement, placeFile } from "./discover.js";
export { FamilyIndex, firstOwnPrompt } from "./families.js";
export { realFs, type StoreFs } from "./fs.js";
export { forkFactsOf } from "./forkOf.js";
export { belongsToWorkspace, computeOwnership, computeOwnershipInSlices, inWorkspace, linkLineage } from "./lineage.js";
export { loadStore, type Store, type StoreOptions } from "./load.js";
export * from "./storeSession.js";
export { summarizeFileSync } from "./summarizeFile.js";
