/**
 * The effective context at an entry: the messages the model saw, with estimated sizes, and what compactions
 * dropped.
 */
import { buildContext, type ContextMessage, entryMessages, type SessionContext } from "../../core/context/index.js";
import { contentText, entryLabelIn } from "../../core/entryText.js";
import { estimateTokens } from "../../core/compact/prepare.js";
import { replacedMessages } from "../../core/compactionReach.js";
import { narrowContent, pathTo, type Session } from "../../core/session/index.js";
import { describeSystemMessage, systemSections } from "../../core/systemMessage.js";
import type { ContextImage, ContextModel, ContextRow } from "../../protocol/views.js";

function messageText(m: ContextMessage): string {
  if (typeof m.summary === "string") return m.summary;
  if (m.role === "system") return systemText(m);
  const parts: string[] = [];
  const text = contentText(m.content);
  if (text) parts.push(text);
  for (const b of narrowContent(m.content))
    if (b.type === "toolCall") parts.push(`→ ${String(b.record.name)}(${JSON.stringify(b.record.arguments ?? {})})`);
  if (typeof m.command === "string") parts.push(`$ ${m.command}`);
  if (typeof m.output === "string") parts.push(m.output);
  return parts.join("\n");
}

/** A pi 1.6 system message: what it sets or changes, then its prompt and each section it sets. */
function systemText(m: ContextMessage): string {
  const parts = [describeSystemMessage(m), contentText(m.content)];
  for (const { name, text } of systemSections(m)) if (text !== null) parts.push(`[${name}]\n${text}`);
  return parts.filter(Boolean).join("\n\n");
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

function clipped(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

function row(m: ContextMessage, index: number, entryId: string): ContextRow {
  const images = imagesOf(m);
  return {
    index,
    role: m.role,
    kind: m.role,
    text: clipped(messageText(m)),
    tokens: estimateTokens(m),
    entryId,
    ...(images.length ? { images } : {}),
  };
}

/**
 * One row per message in context, in order, and, where a pi 1.6 `context_edit` left an entry out, its original
 * messages in its place (marked, counting no token); a replaced message keeps its original one click away.
 */
function contextRows(session: Session, ctx: SessionContext): ContextRow[] {
  const rows: ContextRow[] = [];
  let index = 0;
  for (const projected of ctx.entries) {
    const { entryId, edit } = projected;
    const entry = session.byId.get(entryId);
    const originals = edit && entry ? entryMessages(entry) : [];
    if (edit?.omitted) {
      for (const m of originals)
        rows.push({ ...row(m, -1, entryId), tokens: 0, edit: { id: edit.id, state: "omitted" } });
      continue;
    }
    projected.messages.forEach((m, i) => {
      const r = row(m, index++, entryId);
      const original = originals[i];
      if (edit && original && original.content !== m.content)
        r.edit = { id: edit.id, state: "replaced", original: clipped(messageText(original)) };
      rows.push(r);
    });
  }
  return rows;
}

export function contextModel(session: Session, entryId: string | null, title: string): ContextModel {
  const ctx = buildContext(session, entryId ?? undefined);
  const rows = contextRows(session, ctx);
  const path = pathTo(session, ctx.leafId);
  const leaf = path.at(-1);
  const onPath = new Set(path.map((e) => e.id));
  const compactions = session.compactions
    .filter((c) => onPath.has(c.id))
    .map((c) => {
      const dropped = replacedMessages(session, c, path);
      const droppedTokens = dropped.reduce(
        (n, e) => n + (e.message ? estimateTokens(e.message.record as ContextMessage) : 0),
        0,
      );
      return {
        entryId: c.id,
        time: session.byId.get(c.id)?.timestamp ?? null,
        line: c.line,
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
    entryLabel: leaf ? entryLabelIn(session.byId, leaf, 60) : null,
    title,
    model: ctx.model ? `${ctx.model.provider}/${ctx.model.modelId}` : null,
    thinkingLevel: ctx.thinkingLevel ?? null,
    rows,
    totalTokens: rows.reduce((n, r) => n + r.tokens, 0),
    compactions,
  };
}
