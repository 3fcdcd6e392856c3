/**
 * The effective context at an entry: the messages the model saw, with estimated sizes, and what compactions
 * dropped.
 */
import { buildContext, type ContextMessage } from "../../core/context.js";
import { contentText } from "../../core/entryText.js";
import { estimateTokens } from "../../core/compact/prepare.js";
import { narrowContent, pathTo, type Session } from "../../core/session/index.js";
import type { ContextImage, ContextModel, ContextRow } from "../../protocol/views.js";

function messageText(m: ContextMessage): string {
  if (typeof m.summary === "string") return m.summary;
  const parts: string[] = [];
  const text = contentText(m.content);
  if (text) parts.push(text);
  for (const b of narrowContent(m.content))
    if (b.type === "toolCall") parts.push(`→ ${String(b.record.name)}(${JSON.stringify(b.record.arguments ?? {})})`);
  if (typeof m.command === "string") parts.push(`$ ${m.command}`);
  if (typeof m.output === "string") parts.push(m.output);
  return parts.join("\n");
}

const MAX_TEXT = 4000;

const BLOB_REF = /^blob:sha256:([0-9a-f]{64})$/;

/** The images of a message: inline ones with their size; OMP blob references by hash (their size is filled in by
 * the host, which alone may read the blob store). */
function imagesOf(m: ContextMessage): ContextImage[] {
  const out: ContextImage[] = [];
  for (const b of narrowContent(m.content)) {
    if (b.type !== "image") continue;
    const mimeType = typeof b.record.mimeType === "string" ? b.mimeType : "image";
    const data = b.data;
    const blob = BLOB_REF.exec(data)?.[1] ?? null;
    out.push({ mimeType, bytes: blob ? null : Math.floor((data.length * 3) / 4), blob, missing: false });
  }
  return out;
}

export function contextModel(session: Session, entryId: string | null, title: string): ContextModel {
  const ctx = buildContext(session, entryId ?? undefined);
  const rows: ContextRow[] = ctx.messages.map((m, index) => {
    const text = messageText(m);
    const images = imagesOf(m);
    return {
      index,
      role: m.role,
      kind: m.role,
      text: text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text,
      tokens: estimateTokens(m),
      ...(images.length ? { images } : {}),
    };
  });
  const path = pathTo(session, ctx.leafId);
  const position = new Map(path.map((e, i) => [e.id, i]));
  const compactions = session.compactions
    .filter((c) => position.has(c.id))
    .map((c) => {
      const at = position.get(c.id)!;
      const keptAt = c.keptFromId !== null ? (position.get(c.keptFromId) ?? at) : at;
      const dropped = path
        .slice(0, keptAt)
        .filter((e) => e.type === "message" || e.type === "custom_message" || e.type === "branch_summary");
      const droppedTokens = dropped.reduce(
        (n, e) => n + (e.message ? estimateTokens(e.message.record as ContextMessage) : 0),
        0,
      );
      return {
        entryId: c.id,
        active: c.id === ctx.compactionId,
        droppedEntries: dropped.length,
        droppedTokens,
        tokensBefore: c.tokensBefore,
      };
    });
  return {
    kind: "context",
    file: session.file,
    entryId: ctx.leafId,
    title,
    model: ctx.model ? `${ctx.model.provider}/${ctx.model.modelId}` : null,
    thinkingLevel: ctx.thinkingLevel ?? null,
    rows,
    totalTokens: rows.reduce((n, r) => n + r.tokens, 0),
    compactions,
  };
}
