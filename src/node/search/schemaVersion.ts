/** Bumped when the index's schema or what is indexed changes: an index of another version is rebuilt. */
export const SCHEMA_VERSION = 6; // 6: the porter tokenizer
