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

/** Lazily parsed bodies recently read (readers often read one entry's `data` several times in a row). */
const recentBodies = new Map<Entry, Record<string, unknown>>();
const RECENT_BODIES = 64;
/** Message views recently narrowed (the same readers read one entry's `message` several times in a row). */
const recentMessages = new Map<Entry, MessageView | undefined>();

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
    let d = recentBodies.get(this);
    if (d) return d;
    d =
      body instanceof Uint8Array
        ? parseBody(body.subarray(this.#start, this.#end))
        : this.#fromSource(body as BodySource);
    if (this.#hook) d = migrateHook(d);
    recentBodies.set(this, d);
    if (recentBodies.size > RECENT_BODIES) recentBodies.delete(recentBodies.keys().next().value!);
    return d;
  }

  /**
   * A message entry's body, narrowed once (core/session/message.ts): typed role, blocks, usage and details. Undefined
   * for other entry types and for a message whose `message` is not an object. Throws as `data` does.
   */
  get message(): MessageView | undefined {
    if (this.type !== "message") return undefined;
    if (recentMessages.has(this)) return recentMessages.get(this);
    const view = narrowMessage(this.data.message);
    recentMessages.set(this, view);
    if (recentMessages.size > RECENT_BODIES) recentMessages.delete(recentMessages.keys().next().value!);
    return view;
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
