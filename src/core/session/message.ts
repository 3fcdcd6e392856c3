/**
 * A message entry's body, narrowed once when it is read (`Entry.message`): the role, the content as typed blocks, and
 * the nested records code reads (`usage`, `details`). Code above the reader reads these typed fields instead of
 * testing the record's shape again. The record itself stays available for fields no view types (`record`).
 *
 * Blocks follow pi-ai's content types (`schema.ts` has their zod schemas, used for diagnostics); a block whose kind
 * is known but whose fields are not what the agents write keeps its kind with the fields read as pi's renderers read
 * them: a missing string is "", missing arguments are `undefined`. Non-object blocks are dropped (the agents write
 * none); kinds we do not know are `other`, with their `type` as written.
 */
import { isPlainObject } from "../jsonShape.js";

type Rec = Record<string, unknown>;

interface BlockBase {
  /** The block's position in the message's `content` array (tool touches name calls by it). */
  readonly index: number;
  /** The block as written, for fields no view types. Never modify. */
  readonly record: Rec;
}

export interface TextBlock extends BlockBase {
  readonly type: "text";
  readonly text: string;
}

export interface ThinkingBlock extends BlockBase {
  readonly type: "thinking";
  readonly thinking: string;
}

export interface ImageBlock extends BlockBase {
  readonly type: "image";
  /** Base64, or an OMP `blob:sha256:<hex>` reference (docs/session-format.md#t25). */
  readonly data: string;
  readonly mimeType: string;
}

export interface ToolCallBlock extends BlockBase {
  readonly type: "toolCall";
  readonly id: string;
  readonly name: string;
  /** The call's arguments when they are an object, else undefined. */
  readonly arguments: Rec | undefined;
}

/** Any other kind (redacted thinking, server tools, a future kind): `kind` is its `type` as written. */
export interface OtherBlock extends BlockBase {
  readonly type: "other";
  readonly kind: unknown;
}

export type ContentBlock = TextBlock | ThinkingBlock | ImageBlock | ToolCallBlock | OtherBlock;

export interface MessageView {
  /** `role` when it is a string (v2's `hookMessage` is already `custom`). */
  readonly role: string | undefined;
  /** The message as written, for fields no view types. Never modify. */
  readonly record: Rec;
  /** `content` as written: a string (user and custom messages may be one) or an array of blocks. */
  readonly content: unknown;
  /** `content`'s object blocks, typed; empty when `content` is not an array. */
  readonly blocks: readonly ContentBlock[];
  /** `usage` when it is an object (assistant messages). */
  readonly usage: Rec | undefined;
  /** `usage.cost` when it is an object. */
  readonly cost: Rec | undefined;
  /** `details` when it is an object (tool results, custom messages). */
  readonly details: Rec | undefined;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** One content block, typed by its kind; undefined for a non-object. */
export function narrowBlock(value: unknown, index: number): ContentBlock | undefined {
  if (!isPlainObject(value)) return undefined;
  const record = value;
  switch (value.type) {
    case "text":
      return { type: "text", text: str(value.text), index, record };
    case "thinking":
      return { type: "thinking", thinking: str(value.thinking), index, record };
    case "image":
      return { type: "image", data: str(value.data), mimeType: str(value.mimeType), index, record };
    case "toolCall": {
      const args = isPlainObject(value.arguments) ? value.arguments : undefined;
      return { type: "toolCall", id: str(value.id), name: str(value.name), arguments: args, index, record };
    }
    default:
      return { type: "other", kind: value.type, index, record };
  }
}

/** A content array's object blocks, typed (empty for a string or anything else). */
export function narrowContent(content: unknown): ContentBlock[] {
  if (!Array.isArray(content)) return [];
  const out: ContentBlock[] = [];
  for (let i = 0; i < content.length; i++) {
    const block = narrowBlock(content[i], i);
    if (block) out.push(block);
  }
  return out;
}

/** A message record, narrowed; undefined when it is not an object. */
export function narrowMessage(value: unknown): MessageView | undefined {
  return isPlainObject(value) ? new NarrowedMessage(value) : undefined;
}

/** Blocks are narrowed on first use: the reader narrows every message for its usage facts, few read the blocks. */
class NarrowedMessage implements MessageView {
  readonly role: string | undefined;
  readonly content: unknown;
  readonly usage: Rec | undefined;
  readonly cost: Rec | undefined;
  readonly details: Rec | undefined;
  #blocks: ContentBlock[] | undefined;

  constructor(readonly record: Rec) {
    this.role = typeof record.role === "string" ? record.role : undefined;
    this.content = record.content;
    const usage = isPlainObject(record.usage) ? record.usage : undefined;
    this.usage = usage;
    this.cost = usage && isPlainObject(usage.cost) ? usage.cost : undefined;
    this.details = isPlainObject(record.details) ? record.details : undefined;
  }

  get blocks(): readonly ContentBlock[] {
    return (this.#blocks ??= narrowContent(this.content));
  }
}
