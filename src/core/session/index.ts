/**
 * The session model and its reader: the public surface of `src/core/session/` (docs/architecture.md).
 * `model.ts` the types, `entry.ts` one record, `reader.ts` lines into a session, `records.ts` one record's checks,
 * `treeIndex.ts` the tree, `flavor.ts` pi or OMP, `compactions.ts` what compactions keep, `queries.ts` path questions.
 */
export { Entry, type TouchKind, type ToolTouch } from "./entry.js";
export type {
  ChunkOrigin,
  CompactionInfo,
  Flavor,
  ForkOf,
  LabelInfo,
  ParseOptions,
  ParseResult,
  PathSettings,
  Session,
} from "./model.js";
export type {
  ContentBlock,
  ImageBlock,
  MessageView,
  OtherBlock,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
} from "./message.js";
export { narrowContent } from "./message.js";
export type { AgentMessageRecord, EntryRecordOf, MessageRecordOf, SessionEntryRecord } from "../schema.js";
export { parseSession, SessionReader, type StreamedFile } from "./reader.js";
export { detectFlavor, forkOfHeader, isOmpEntry, resolveName } from "./flavor.js";
export { pathTo, settingsAt, splitModel } from "./queries.js";
export { isPlainObject } from "../jsonShape.js";
