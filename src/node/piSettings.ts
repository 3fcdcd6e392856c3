/**
 * pi's auto-compaction settings as pi reads them (settings-manager.js of pi 0.73): `compaction.enabled` (default
 * true) and `compaction.reserveTokens` (default 16384) from the agent dir's `settings.json`, overridden by the
 * project's `<cwd>/.pi/settings.json`. A file that is missing or not JSON is left out, as pi leaves it out.
 */
import { basename, dirname, isAbsolute, join } from "node:path";
import { isPlainObject } from "../core/jsonShape.js";
import { readSmallFileSync } from "./fileAccess.js";

export interface CompactionSettings {
  enabled: boolean;
  reserveTokens: number;
}

const DEFAULTS: CompactionSettings = { enabled: true, reserveTokens: 16384 };

function compactionIn(file: string): Partial<CompactionSettings> {
  try {
    const json: unknown = JSON.parse(readSmallFileSync(file, 256 * 1024));
    if (!isPlainObject(json) || !isPlainObject(json.compaction)) return {};
    const c = json.compaction;
    const out: Partial<CompactionSettings> = {};
    if (typeof c.enabled === "boolean") out.enabled = c.enabled;
    if (typeof c.reserveTokens === "number" && Number.isFinite(c.reserveTokens)) out.reserveTokens = c.reserveTokens;
    return out;
  } catch {
    return {};
  }
}

/** The agent dir of a sessions dir (`~/.pi/agent/sessions` → `~/.pi/agent`); null for a flat session dir. */
export function agentDirOf(sessionsDir: string): string | null {
  return basename(sessionsDir) === "sessions" ? dirname(sessionsDir) : null;
}

/** A local absolute folder: a UNC path (`\\host\share`, from a session's header) is never read, which would connect. */
function local(path: string | null): path is string {
  return !!path && isAbsolute(path) && !/^[\\/]{2}/.test(path);
}

/** pi's compaction settings for a session of `cwd` under `agentDir`. */
export function piCompactionSettings(agentDir: string | null, cwd: string | null): CompactionSettings {
  return {
    ...DEFAULTS,
    ...(local(agentDir) ? compactionIn(join(agentDir, "settings.json")) : {}),
    ...(local(cwd) ? compactionIn(join(cwd, ".pi", "settings.json")) : {}),
  };
}
