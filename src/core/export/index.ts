/**
 * The exporters' surface. The extension and the CLI load it only when they export (node/views/exportBranch.ts): the
 * bundles keep it, with markdown-it and highlight.js, in a file of its own (dist/exportRender.cjs, scripts/build.mjs),
 * so starting either costs nothing for it.
 */
export { exportHtml } from "./html.js";
export { exportMarkdown } from "./markdown.js";
export type { ExportInput } from "./common.js";
export { recallMarkdown, type RecallRenderOptions } from "./recall.js";
export {
  teamEntryMarkdown,
  teamTranscriptHead,
  type TeamText,
  type TeamTranscriptEntry,
  type TeamTranscriptSession,
} from "./teamMarkdown.js";
