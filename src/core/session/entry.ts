/**
 * One session record as an entry: its envelope and the facts listings need, and its body, held parsed when small or
 * parsed again from its bytes when read.
 */
import { type BodySource, SessionChangedError } from "../bodySource.js";
import type { UsageFacts } from "../facts.js";
import { isPlainObject } from "../jsonShape.js";
import { decodeUtf8 } from "../jsonl.js";
import { type MessageView, narrowMessage } from "./message.js";

export type TouchKind = "read" | "edit" | "write";

/** A tool call that names one file. `path` is as the agent sent it (resolved later against the session's cwd). */
export interface ToolTouch {
  /** The call's position in its message's content: with the id, it names the call even when ids repeat or lack. */
  index: number;
  toolCallId: string;
  tool: string;
  kind: TouchKind;
  path: string;
}

/**
 * Entries recently read: a large record's parsed body, and a message's narrowed view (readers often read one entry
 * several times in a row). One slot per entry, so a view never holds a body the cache has let go.
 */
interface RecentSlot {
  /** The body parsed again from its bytes (large records only; small ones hold theirs). */
  data?: Record<string, unknown>;
  /** The narrowed message; null when the entry's `message` is not an object. */
  message?: MessageView | null;
}
const recent = new Map<Entry, RecentSlot>();
const RECENT_ENTRIES = 64;

function slotOf(entry: Entry): RecentSlot {
  let slot = recent.get(entry);
  if (!slot) {
    recent.set(entry, (slot = {}));
    if (recent.size > RECENT_ENTRIES) recent.delete(recent.keys().next().value!);
  }
  return slot;
}

/**
 * One non-header record, in file order. The envelope (`type`, `id`, `parentId`, `timestamp`) and the facts that
 * listings and usage need are kept; the record itself (`data`) is kept only when it is small, and otherwise parsed
 * again when it is read: from the file (a `BodySource`, so no copy of the file is held), or from the chunk the
 * reader was fed (`parseSession` on content in memory).
 */
export class Entry {
  /** `message.role` for message entries (v2 `hookMessage` is reported as `custom`, as pi migrates it). */
  role?: string;
  /** True when a later line reuses this id; like pi, the later entry wins in the tree. */
  shadowed = false;
  /** The usage this record carries (assistant, OMP `model_usage`, OMP `task` results; a compaction may carry two). */
  usage?: UsageFacts | UsageFacts[];
  /** Assistant messages: `message.provider` and `message.model`, for the model at a leaf. */
  provider?: unknown;
  model?: unknown;
  /** The record has a `fromExtension` key (only OMP writes one). */
  fromExtension?: true;
  /** Assistant messages: the tool calls that name a file (`read`, `edit`, `write`; core/toolFiles.ts). */
  touches?: ToolTouch[];
  #body: Record<string, unknown> | Uint8Array | BodySource;
  #start: number;
  #end: number;
  /** v2 `hookMessage` role to migrate when the body is parsed again. */
  #hook: boolean;

  constructor(
    /** The entry id; synthesized as `L<line>` for v1 files, which have none. */
    readonly id: string,
    readonly parentId: string | null,
    readonly type: string,
    /** 1-based physical line. */
    readonly line: number,
    readonly timestamp: string | undefined,
    /** False for entry types neither agent version we know writes (kept as opaque tree nodes,
     * docs/session-format.md#t24). */
    readonly known: boolean,
    /** The record, or where its bytes [start, end) are: a chunk in memory, or the file. */
    body: Record<string, unknown> | Uint8Array | BodySource,
    start = 0,
    end = 0,
    hook = false,
  ) {
    this.#body = body;
    this.#start = start;
    this.#end = end;
    this.#hook = hook;
  }

  /**
   * The record in its effective (in-memory migrated) form. Never written back; do not modify. Throws
   * `SessionChangedError` when the body is read from a file that no longer holds this record.
   */
  get data(): Record<string, unknown> {
    const body = this.#body;
    if (!this.#end) return body as Record<string, unknown>;
    const known = recent.get(this)?.data;
    if (known) return known;
    let d =
      body instanceof Uint8Array
        ? parseBody(body.subarray(this.#start, this.#end))
        : this.#fromSource(body as BodySource);
    if (this.#hook) d = migrateHook(d);
    slotOf(this).data = d;
    return d;
  }

  /**
   * A message entry's body, narrowed once (core/session/message.ts): typed role, blocks, usage and details. Undefined
   * for other entry types and for a message whose `message` is not an object. Throws as `data` does.
   */
  get message(): MessageView | undefined {
    if (this.type !== "message") return undefined;
    // A small record holds its body: its view is made again (cheap; the blocks are narrowed on first use), so that
    // walks over thousands of small entries never push a large body out of the cache.
    if (!this.#end) return narrowMessage(this.data.message);
    const known = recent.get(this)?.message;
    if (known !== undefined) return known ?? undefined;
    const view = narrowMessage(this.data.message) ?? null;
    slotOf(this).message = view;
    return view ?? undefined;
  }

  /** The body read back from the file, checked to be this record; else the record as the file holds it now. */
  #fromSource(source: BodySource): Record<string, unknown> {
    const bytes = source.read(this.#start, this.#end);
    let d: Record<string, unknown> | undefined;
    try {
      d = bytes ? parseBody(bytes) : undefined;
    } catch {
      d = undefined;
    }
    if (d && isPlainObject(d) && d.id === this.id && d.type === this.type) return d;
    d = source.recover(this.id, this.line, this.type);
    if (!d) throw new SessionChangedError(source.file, this.id);
    return d;
  }

  /** Whether `data` is held parsed (small records) rather than parsed again from bytes. */
  get retained(): boolean {
    return !this.#end;
  }

  /** The record's size in bytes, when it is held as bytes (0 when it is held parsed). */
  get byteLength(): number {
    return this.#end - this.#start;
  }
}

function parseBody(bytes: Uint8Array): Record<string, unknown> {
  return JSON.parse(decodeUtf8(bytes)) as Record<string, unknown>;
}

export function migrateHook(value: Record<string, unknown>): Record<string, unknown> {
  return { ...value, message: { ...(value.message as Record<string, unknown>), role: "custom" } };
}
