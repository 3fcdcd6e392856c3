/**
 * The agent history of files: every tool call of the store that read or changed a file (core/toolFiles.ts), its path
 * resolved against the session's cwd with the rules of the host that wrote it, fork copies counted once, in the
 * session that wrote them (the rule usage follows: `StoreSession.inherited`).
 */
import { posix, win32 } from "node:path";
import { isUriPath, readPathOf, type TouchKind } from "../core/toolFiles.js";
import type { TouchRecord } from "../core/summary.js";
import { isOk, type StoreSession } from "./store/index.js";

export interface FileTouch {
  /** The file as resolved (absolute, normalized). */
  path: string;
  session: StoreSession;
  entryId: string;
  /** The call's position in its message, and its id (see `ToolTouch`). */
  index: number;
  toolCallId: string;
  tool: string;
  kind: TouchKind;
  /** Entry time in ms (NaN when the entry has none). */
  time: number;
  onActivePath: boolean;
}

const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

export interface ResolveOptions {
  /** The home directory `~` stands for (pi expands a leading `~`). */
  home?: string;
}

/** A Windows path (drive letter or UNC): such a session was written on Windows, whatever host reads it now. */
export function isWindowsPath(p: string): boolean {
  return /^[a-zA-Z]:[\\/]/.test(p) || /^\\\\[^\\]/.test(p);
}

/**
 * The absolute file a tool call named: `~` expanded, a relative path joined to the session's cwd, normalized by the
 * rules of the host the session ran on (Windows when its cwd or the path is a Windows path). Null when the path is a
 * URI, or relative with no cwd to resolve it against.
 */
export function resolveTouchPath(
  raw: string,
  cwd: string | null,
  flavor: "pi" | "omp",
  kind: TouchKind,
  options: ResolveOptions = {},
): string | null {
  // As pi's tools read a path (path-utils.js `expandPath`): a leading `@` dropped, Unicode spaces made plain.
  let p = (raw.startsWith("@") ? raw.slice(1) : raw).replace(UNICODE_SPACES, " ");
  if (flavor === "omp" && kind === "read") p = readPathOf(p);
  if (isUriPath(p)) return null;
  const windows = isWindowsPath(p) || (cwd !== null && isWindowsPath(cwd));
  const rules = windows ? win32 : posix;
  if (options.home && (p === "~" || p.startsWith("~/") || (windows && p.startsWith("~\\"))))
    p = rules.join(options.home, p.slice(1));
  if (rules.isAbsolute(p)) return rules.normalize(p);
  if (!cwd || !rules.isAbsolute(cwd)) return null;
  return rules.resolve(cwd, p);
}

/** The key a path is compared by: Windows paths and macOS's default file system ignore case. */
export function pathKey(p: string, platform: NodeJS.Platform = process.platform): string {
  const windows = isWindowsPath(p);
  const folded = windows ? win32.normalize(p).replace(/[\\/]+$/, "") : p.replace(/\/+$/, "");
  return windows || platform === "darwin" || platform === "win32" ? folded.toLowerCase() : folded;
}

function touchOf(s: StoreSession & { summary: { ok: true } }, t: TouchRecord, path: string): FileTouch {
  return {
    path,
    session: s,
    entryId: t.entryId,
    index: t.index,
    toolCallId: t.toolCallId,
    tool: t.tool,
    kind: t.kind,
    time: t.time,
    onActivePath: t.active,
  };
}

/** The file touches of one session, by path key (a fork's inherited copies left out). */
export function sessionTouches(s: StoreSession, options: ResolveOptions = {}): [string, FileTouch][] {
  if (!isOk(s)) return [];
  const { cwd, flavor } = s.summary;
  const out: [string, FileTouch][] = [];
  for (const t of s.summary.touches) {
    if (s.inherited.has(t.entryId)) continue;
    const path = resolveTouchPath(t.path, cwd, flavor, t.kind, options);
    if (path) out.push([pathKey(path), touchOf(s, t, path)]);
  }
  return out;
}

/**
 * Every file touch of `sessions`, by path key, newest first. Copies a fork inherited are its parent's and left out; a
 * partial (first-paint) summary has no touches yet.
 */
export function indexTouches(
  sessions: readonly StoreSession[],
  options: ResolveOptions = {},
): Map<string, FileTouch[]> {
  const byPath = new Map<string, FileTouch[]>();
  for (const s of sessions)
    for (const [key, touch] of sessionTouches(s, options)) {
      let list = byPath.get(key);
      if (!list) byPath.set(key, (list = []));
      list.push(touch);
    }
  for (const list of byPath.values()) list.sort(byTimeDesc);
  return byPath;
}

/** Newest first; ties in file order. */
export function byTimeDesc(a: FileTouch, b: FileTouch): number {
  const ta = Number.isFinite(a.time) ? a.time : -Infinity;
  const tb = Number.isFinite(b.time) ? b.time : -Infinity;
  return tb - ta;
}

/** The touches of one file, newest first. */
export function touchesOf(sessions: readonly StoreSession[], file: string, options: ResolveOptions = {}): FileTouch[] {
  return indexTouches(sessions, options).get(pathKey(file)) ?? [];
}
