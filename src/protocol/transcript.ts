/**
 * The transcript of a branch as the exporters and the transcript view see it (the items), and the view's rows and
 * messages. The view is windowed: the host sends rows in chunks, images on request, and validates every message from
 * the page (it renders session content, so it is untrusted) with these schemas.
 */
import * as z from "zod";

/** An image: inline base64 data, or an OMP blob reference (`blob:sha256:<hex>`) for the caller to resolve. */
export interface TranscriptImage {
  mimeType: string;
  data: string | null;
  blob: string | null;
  /** In a transcript view row: the image's number in its row (the data is asked for separately, by number). */
  ref?: number;
}

export type ToolCallBlock = {
  type: "toolCall";
  id: string | null;
  name: string;
  /** One line: the path for file tools, the command for bash, else the arguments in short. */
  summary: string;
  /** The arguments as pretty JSON. */
  arguments: string;
  /** Whether the arguments say more than the summary (so they are worth showing). */
  moreArguments: boolean;
  /** `edit` calls: each replacement. */
  edits?: { oldText: string; newText: string }[];
  /** `write` calls: the content written. */
  written?: string;
  path?: string;
};

export type AssistantBlock = { type: "text"; text: string } | { type: "thinking"; text: string } | ToolCallBlock;

export interface TranscriptCommon {
  entryId: string;
  line: number;
  timestamp: string | null;
  /** Copied from the parent session when this fork was made. */
  inherited: boolean;
  /**
   * A pi 1.6 `context_edit` on this entry, the last on the branch: the model saw `text` instead (`replaced`), or
   * nothing of it (`omitted`). The entry itself stays as written.
   */
  contextEdit?: { id: string; state: "replaced" | "omitted"; text: string | null };
  /** The entry's label now (the last `label` entry on it, from anywhere in the file), as pi's `/tree` shows it. */
  label?: string;
}

/** A call a tool made through another tool (pi 1.6 `nestedCalls`, e.g. codemode's). */
export interface NestedCall {
  name: string;
  status: string;
  durationMs: number | null;
  error: string | null;
  /** The file a nested read, edit or write touched. */
  path: string | null;
}

/** What pi 1.6 records of a reply: the thinking level asked for, the provider's own effort, the end of a turn. */
export interface ReplyFacts {
  thinkingLevel: string | null;
  providerThinkingLevel: string | null;
  endTurn: boolean;
  durationMs: number | null;
}

export type TranscriptItem = TranscriptCommon &
  (
    | { kind: "user"; text: string; images: TranscriptImage[] }
    | {
        kind: "assistant";
        blocks: AssistantBlock[];
        model: string | null;
        usage: {
          input: number;
          output: number;
          cacheRead: number;
          cacheWrite: number;
          cost: number;
          /**
           * pi 1.5+: `cost` is what the provider billed (`cost.totalFromProvider`); `estimate` is pi's own estimate
           * from the catalog prices (the sum of the parts), shown next to it. The cost is counted once, as billed.
           */
          billed?: { estimate: number };
        } | null;
        stopReason: string | null;
        error: string | null;
        reply?: ReplyFacts;
      }
    | {
        kind: "toolResult";
        toolCallId: string | null;
        toolName: string;
        text: string;
        isError: boolean;
        images: TranscriptImage[];
        nested?: NestedCall[];
        durationMs?: number;
      }
    | { kind: "bash"; command: string; output: string; exitCode: number | null }
    | {
        kind: "compaction";
        summary: string;
        tokensBefore: number | null;
        /** Entries of the path before the kept one: the rows the card hides until it is opened. */
        replaced: number;
        /** The messages its summary replaced (`replacedMessages`: the count the tree and Effective Context show). */
        messagesReplaced: number;
      }
    | { kind: "branchSummary"; summary: string; fromId: string | null }
    | { kind: "custom"; customType: string; text: string }
    | {
        kind: "system";
        /** One line of what the message sets or changes (`describeSystemMessage`). */
        summary: string;
        sections: { name: string; text: string | null }[];
        toolsAdded: string[];
        toolsRemoved: string[];
      }
    | { kind: "note"; text: string }
  );

export type ToolResultItem = Extract<TranscriptItem, { kind: "toolResult" }>;

/** One row of the transcript view: an entry (an assistant message with the tool results that answer it), or a fork's
 * inherited entries folded into one. Long texts are clipped (`clipped`); "show all" asks for the row in full. */
export type TranscriptRow =
  | {
      kind: "item";
      index: number;
      item: TranscriptItem;
      /** Tool results that answer this assistant message's calls (they follow it on the path). */
      results: ToolResultItem[];
      /** Replaced by a compaction and shown only because its card was opened. */
      dimmed: boolean;
      /** The entry is one of several children of its parent: which one, of how many. */
      branch: { position: number; count: number } | null;
      /** Milliseconds since the previous message on the path (assistant footers). */
      sincePrevious: number | null;
      clipped: boolean;
      /** Compaction rows: whether the entries it replaced are shown. */
      expanded?: boolean;
      /** Branch-summary rows: the entry the summarized branch ended at, as its label. */
      fromLabel?: string;
      /** Parts of the entry left out of the row by its caps (they stay in the session file). */
      omitted?: { images: number; edits: number; blocks: number };
    }
  | { kind: "inherited"; index: number; entries: number; parentTitle: string };

export interface TranscriptHeader {
  file: string;
  title: string;
  agent: "pi" | "omp";
  cwd: string;
  leafId: string | null;
  /** The branch shown ends at the session's active leaf (the one the agent resumes). */
  activeLeaf: boolean;
  rows: number;
  entries: number;
  /** Entries of the branch behind a closed compaction card (replaced: shown when the card opens, and found by find). */
  replaced: number;
  fork: { parentTitle: string; forkPointId: string | null; inherited: number } | null;
  showInherited: boolean;
  /** Whether any compaction on the path has its replaced entries shown. */
  replacedShown: number;
  /** Oh My Pi: the session's latest idle recap (from its agent dir's history.db; never in the session file). */
  recap: { text: string; createdAt: number } | null;
}

export type ToTranscript =
  | {
      type: "reset";
      seq: number;
      header: TranscriptHeader;
      start: number;
      rows: TranscriptRow[];
      /** The row to scroll to (null: the end), and the entry to highlight in it. */
      anchor: number | null;
      highlight: string | null;
    }
  | { type: "rows"; seq: number; start: number; rows: TranscriptRow[] }
  /** New entries were written: rows from `start` on (the last old row may have gained tool results). */
  | { type: "append"; seq: number; header: TranscriptHeader; start: number; rows: TranscriptRow[] }
  | { type: "image"; seq: number; row: number; ref: number; src: string | null }
  | { type: "reveal"; seq: number; anchor: number; highlight: string }
  | { type: "error"; message: string };

const id = z.string().min(1).max(4096);
const seq = z.number().int().min(0);
const index = z.number().int().min(0);

export const fromTranscriptSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready") }),
  z.object({
    type: z.literal("rendered"),
    seq,
    facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  }),
  z.object({ type: z.literal("fetch"), seq, start: index, end: index }),
  z.object({ type: z.literal("showAll"), seq, index }),
  z.object({ type: z.literal("image"), seq, row: index, ref: index }),
  z.object({ type: z.literal("toggleInherited") }),
  z.object({ type: z.literal("toggleCompaction"), entryId: id }),
  /** Open every compaction card of the branch and go to its first entry (the header's "Show them"). */
  z.object({ type: z.literal("showReplaced") }),
  z.object({ type: z.literal("chooseBranch"), entryId: id }),
  z.object({ type: z.literal("openDiff"), entryId: id, call: index, edit: index.nullable() }),
  z.object({ type: z.literal("openLink"), url: z.string().min(1).max(8192) }),
  z.object({ type: z.literal("openParent") }),
  z.object({ type: z.literal("entryActions"), entryId: id }),
]);
export type FromTranscript = z.infer<typeof fromTranscriptSchema>;

/**
 * What the transcript view is about; also its persisted webview state (revived after a reload). `leafId` absent:
 * follow the active leaf. `entryId`: reveal and highlight it. `top`: the entry the reader had at the top.
 */
// An id that is not valid (too long for a message) is dropped, not the whole state: the view still comes back.
const optionalId = id.optional().catch(undefined);
export const transcriptStateSchema = z.object({
  file: z.string().min(1).max(4096),
  leafId: optionalId,
  entryId: optionalId,
  top: optionalId,
});
export type TranscriptState = z.infer<typeof transcriptStateSchema>;
