/**
 * The cache dir the CLI and the extension share for what both build over the same roots (the search index):
 * `$PI_SESSIONS_CACHE_DIR`, else `$XDG_CACHE_HOME/pi-session-explorer`, else `~/.cache/pi-session-explorer`.
 */
import { homedir } from "node:os";
import { join } from "node:path";

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PI_SESSIONS_CACHE_DIR) return env.PI_SESSIONS_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "pi-session-explorer");
}
