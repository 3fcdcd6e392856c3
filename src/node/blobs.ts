/**
 * Oh My Pi stores large images outside the session: an image block's `data` reads `blob:sha256:<hex>` and the bytes
 * sit in `<agent dir>/blobs/<hex>` (docs/session-format.md#t25). OMP resolves them when it builds its context, and so
 * do we, under three rules: a blob is read only from the `blobs` folder of the agent dir that holds the session; only
 * after its name is checked to be exactly 64 lowercase hex digits; and only if it is a regular file inside that folder
 * (a symlink out of it is not followed). No other path is ever opened. A blob that is absent stays a reference, as in
 * OMP, and is reported missing with its hash.
 */
import { type FileHandle, realpath } from "node:fs/promises";
import { basename, dirname, join, sep } from "node:path";
import type { ContextMessage } from "../core/context/index.js";
import type { ContextModel } from "../protocol/views.js";
import { isPlainObject } from "../core/session/index.js";
import { openRegular, readAt } from "./fileAccess.js";

const BLOB_REF = /^blob:sha256:([0-9a-f]{64})$/;
/** Images larger than this are not read (OMP's blobs are screenshots; a bigger one is shown missing). */
const MAX_BLOB_BYTES = 32 * 1024 * 1024;

/** The hash of a blob reference, or null for anything else (a malformed reference is never a path). */
export function blobHash(data: unknown): string | null {
  return typeof data === "string" ? (BLOB_REF.exec(data)?.[1] ?? null) : null;
}

/**
 * The agent dir holding a session file, from the layouts the agents write: `<agent>/sessions/<slug>/<file>` and a
 * subagent's `<agent>/sessions/<slug>/<session>/<file>`. Anything else (a flat dir, a file deep in some `sessions`
 * tree elsewhere) has none, and its blob references stay references.
 */
export function agentDirOf(sessionFile: string): string | null {
  const slugDir = dirname(sessionFile);
  for (const sessions of [dirname(slugDir), dirname(dirname(slugDir))]) {
    if (basename(sessions) === "sessions" && dirname(sessions) !== sessions) return dirname(sessions);
  }
  return null;
}

/** The agent dir of a store root that is an agent's `sessions` folder, or null (a plain session dir). */
export function agentDirOfRoot(rootDir: string): string | null {
  return basename(rootDir) === "sessions" ? dirname(rootDir) : null;
}

/**
 * Run `use` on blob `hash` of `agentDir`, opened; null when it is absent, not a regular file, outside the blobs
 * folder, or larger than the bound (checked on the open handle, before anything is read).
 */
async function withBlob<T>(
  agentDir: string | null,
  hash: string,
  use: (handle: FileHandle, size: number) => Promise<T>,
): Promise<T | null> {
  if (!agentDir || !/^[0-9a-f]{64}$/.test(hash)) return null;
  const dir = join(agentDir, "blobs");
  try {
    const real = await realpath(join(dir, hash));
    if (!real.startsWith((await realpath(dir)) + sep)) return null;
    const { handle, id } = await openRegular(real);
    try {
      return id.size > MAX_BLOB_BYTES ? null : await use(handle, id.size);
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

/** The bytes of blob `hash` of `agentDir`, or null (see `withBlob`). */
export function readBlob(agentDir: string | null, hash: string): Promise<Buffer | null> {
  return withBlob(agentDir, hash, (handle, size) => readAt(handle, 0, size));
}

/** The size of blob `hash` of `agentDir` without reading it, or null (see `withBlob`). */
function blobSize(agentDir: string | null, hash: string): Promise<number | null> {
  return withBlob(agentDir, hash, async (_handle, size) => size);
}

export interface ResolvedContext {
  messages: ContextMessage[];
  /** Hashes of the referenced blobs that could not be read (their images stay references). */
  missing: string[];
}

/**
 * `messages` with every image block's blob reference replaced by its base64 data. The messages and blocks that
 * change are copies: the session's own records are never modified.
 */
export async function resolveBlobs(messages: ContextMessage[], agentDir: string | null): Promise<ResolvedContext> {
  const missing: string[] = [];
  const cache = new Map<string, string | null>();
  const resolve = async (hash: string) => {
    if (!cache.has(hash)) cache.set(hash, (await readBlob(agentDir, hash))?.toString("base64") ?? null);
    return cache.get(hash)!;
  };
  const out: ContextMessage[] = [];
  for (const m of messages) {
    if (!Array.isArray(m.content) || !m.content.some((b) => isPlainObject(b) && blobHash(b.data))) {
      out.push(m);
      continue;
    }
    const content: unknown[] = [];
    for (const block of m.content) {
      const hash = isPlainObject(block) && block.type === "image" ? blobHash(block.data) : null;
      if (!hash) {
        content.push(block);
        continue;
      }
      const data = await resolve(hash);
      if (data === null) {
        if (!missing.includes(hash)) missing.push(hash);
        content.push(block);
      } else content.push({ ...(block as Record<string, unknown>), data });
    }
    out.push({ ...m, content });
  }
  return { messages: out, missing };
}

/** Fill in the size of each blob image of a context model, or mark it missing (the panel shows which). */
export async function describeBlobImages(model: ContextModel, agentDir: string | null): Promise<ContextModel> {
  for (const row of model.rows) {
    for (const image of row.images ?? []) {
      if (!image.blob) continue;
      const size = await blobSize(agentDir, image.blob);
      image.bytes = size;
      image.missing = size === null;
    }
  }
  return model;
}
