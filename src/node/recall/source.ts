/**
 * Where the recall tools get what they answer from: the listing, the search index and full session models. The CLI's
 * MCP server (`storeSource.ts`) and the VS Code extension (src/extension/recall) each give one over what they hold.
 * Also the rules every tool shares: which sessions a call's scope covers, and which listed session a `session`
 * argument names (only a session the store lists is ever opened: no file is opened because a call named it).
 */
import { isAbsolute, resolve } from "node:path";
import type { ParseResult } from "../../core/session/index.js";
import { hostPaths } from "../roots.js";
import type { SearchAnswer } from "../search/index.js";
import { belongsToWorkspace, type StoreSession } from "../store/index.js";
import { RecallError } from "./answer.js";

export interface RecallSearchAnswer {
  answer: SearchAnswer;
  /** The index is still being built or brought up to date: what it holds so far answered. */
  partial: boolean;
}

export interface RecallSource {
  /** Every listed session, summarized in full, fork ownership computed, as of now. */
  sessions(): Promise<readonly StoreSession[]>;
  /** The agent dirs and session dirs read (for messages). */
  rootDirs(): readonly string[];
  /**
   * A query on the search index; `files`: only these sessions (null: all). Called after `sessions()`, whose changes
   * it includes.
   */
  search(text: string, limit: number, files: string[] | null): Promise<RecallSearchAnswer>;
  /** A listed session's full model. */
  open(session: StoreSession): Promise<ParseResult>;
  /** The caller's workspace folders, when it says (MCP roots, `--workspace`, VS Code's folders); else []. */
  workspace(): Promise<string[]>;
}

export interface ScopeArgs {
  scope?: "workspace" | "all";
  workspace?: string;
}

export interface Scope {
  /** Null: every session. */
  folders: string[] | null;
  /** In words, for the answer's first line. */
  label: string;
}

/** The scope of a call: its `workspace`, else `scope: "all"`, else the caller's workspace when it says, else all. */
export async function scopeOf(args: ScopeArgs, source: RecallSource): Promise<Scope> {
  if (args.workspace !== undefined) {
    if (!isAbsolute(args.workspace))
      throw new RecallError(`workspace ${JSON.stringify(args.workspace)} is not an absolute folder`);
    const folder = resolve(args.workspace);
    return { folders: [folder], label: `sessions of ${JSON.stringify(folder)}` };
  }
  if (args.scope === "all") return { folders: null, label: "all sessions" };
  const folders = await source.workspace();
  if (!folders.length) return { folders: null, label: "all sessions (no workspace known)" };
  return { folders, label: `sessions of ${folders.map((f) => JSON.stringify(f)).join(", ")}` };
}

/** The sessions a scope covers. */
export function inScope(sessions: readonly StoreSession[], scope: Scope): StoreSession[] {
  if (!scope.folders) return [...sessions];
  const host = hostPaths();
  return sessions.filter((s) => scope.folders!.some((f) => belongsToWorkspace(s, f, host)));
}

/** Shortest session-id prefix a call may name a session by. */
const MIN_PREFIX = 8;

/**
 * The listed session a `session` argument names: its file (the path as listed), its id, or the first 8+ characters
 * of its id. Anything else is refused, and nothing is opened.
 */
export function findSession(sessions: readonly StoreSession[], arg: string, roots: readonly string[]): StoreSession {
  const where = roots.length ? roots.join(", ") : "(no agent dir)";
  if (arg.includes("/") || arg.includes("\\") || arg.endsWith(".jsonl")) {
    const file = isAbsolute(arg) ? resolve(arg) : null;
    const found = file ? sessions.find((s) => s.file === file) : undefined;
    if (!found) throw new RecallError(`${arg} is not a session file under the agent dirs (${where})`);
    return found;
  }
  const exact = sessions.filter((s) => s.summary.ok && s.summary.id === arg);
  const matches = exact.length
    ? exact
    : arg.length >= MIN_PREFIX
      ? sessions.filter((s) => s.summary.ok && s.summary.id.startsWith(arg))
      : [];
  if (matches.length === 1) return matches[0]!;
  if (!matches.length) {
    const short = arg.length < MIN_PREFIX && !exact.length ? ` (a prefix needs ${MIN_PREFIX}+ characters)` : "";
    throw new RecallError(`no session ${JSON.stringify(arg)} under the agent dirs (${where})${short}`);
  }
  const files = matches.slice(0, 5).map((s) => s.file);
  throw new RecallError(
    `${matches.length} sessions match ${JSON.stringify(arg)}; name one by its file: ${files.join(", ")}`,
  );
}

/** A session's id, or null for a file that could not be read. */
export const sessionIdOf = (s: StoreSession): string | null => (s.summary.ok ? s.summary.id : null);
