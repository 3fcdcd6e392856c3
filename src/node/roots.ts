/**
 * Where Pi and OMP keep sessions (docs/session-format.md#where): the configured session roots.
 * Nothing outside these roots is ever opened because of what a session file says.
 */
import { existsSync, readdirSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { HostPaths } from "../core/slug.js";

export interface SessionRoot {
  /** A sessions directory: holds slug folders and/or flat `*.jsonl` files. */
  dir: string;
  agent: "pi" | "omp" | "any";
  /** Why this root is configured (for diagnostics and the UI). */
  source: string;
}

export interface RootOptions {
  env?: NodeJS.ProcessEnv;
  home?: string;
  platform?: NodeJS.Platform;
  /** Explicit agent dirs (`--agent-dir`, the extension setting); when given, they replace the defaults. */
  agentDirs?: string[];
  /** Extra flat session dirs (configured `sessionDir`s). */
  sessionDirs?: string[];
}

function expandHome(p: string, home: string): string {
  if (p === "~") return home;
  if (p.startsWith("~/")) return join(home, p.slice(2));
  return p;
}

/** A folder as the user would type it, the home directory as `~` (what `expandHome` reads back). */
export function shortenHome(dir: string, home = homedir()): string {
  return home && (dir === home || dir.startsWith(`${home}/`)) ? `~${dir.slice(home.length)}` : dir;
}

/** An agent dir's sessions live in `<agentDir>/sessions`; a dir without one is taken as a sessions dir itself. */
function agentDirRoot(dir: string, agent: SessionRoot["agent"], source: string): SessionRoot {
  const sessions = join(dir, "sessions");
  return { dir: existsSync(sessions) ? sessions : dir, agent, source };
}

export function resolveRoots(options: RootOptions = {}): SessionRoot[] {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const platform = options.platform ?? process.platform;
  const roots: SessionRoot[] = [];
  if (options.agentDirs?.length) {
    for (const d of options.agentDirs) roots.push(agentDirRoot(resolve(expandHome(d, home)), "any", "--agent-dir"));
  } else {
    // pi: $PI_CODING_AGENT_DIR, else ~/.pi/agent
    const piAgent = env.PI_CODING_AGENT_DIR ? expandHome(env.PI_CODING_AGENT_DIR, home) : join(home, ".pi", "agent");
    roots.push({
      dir: join(piAgent, "sessions"),
      agent: "pi",
      source: env.PI_CODING_AGENT_DIR ? "PI_CODING_AGENT_DIR" : "~/.pi/agent",
    });
    // OMP: ~/.omp/agent (PI_CONFIG_DIR renames .omp), PI_CODING_AGENT_DIR, profiles, XDG data dir.
    const ompBase = join(home, env.PI_CONFIG_DIR || ".omp");
    const profile = env.OMP_PROFILE || env.PI_PROFILE;
    if (!env.PI_CODING_AGENT_DIR) {
      const ompAgent = profile ? join(ompBase, "profiles", profile, "agent") : join(ompBase, "agent");
      roots.push({
        dir: join(ompAgent, "sessions"),
        agent: "omp",
        source: profile ? `OMP profile ${profile}` : "~/.omp/agent",
      });
    }
    const xdg = env.XDG_DATA_HOME;
    if (!profile && platform !== "win32" && xdg && existsSync(join(xdg, "omp"))) {
      roots.push({ dir: join(xdg, "omp", "sessions"), agent: "omp", source: "$XDG_DATA_HOME/omp" });
    }
    const profilesDir = join(ompBase, "profiles");
    if (existsSync(profilesDir)) {
      for (const name of safeReaddir(profilesDir)) {
        roots.push({ dir: join(profilesDir, name, "agent", "sessions"), agent: "omp", source: `OMP profile ${name}` });
      }
    }
  }
  if (env.PI_CODING_AGENT_SESSION_DIR)
    roots.push({
      dir: expandHome(env.PI_CODING_AGENT_SESSION_DIR, home),
      agent: "any",
      source: "PI_CODING_AGENT_SESSION_DIR",
    });
  for (const d of options.sessionDirs ?? [])
    roots.push({ dir: expandHome(d, home), agent: "any", source: "session dir setting" });
  // De-duplicate (pi and OMP may share PI_CODING_AGENT_DIR).
  const seen = new Set<string>();
  return roots
    .map((r) => ({ ...r, dir: resolve(r.dir) }))
    .filter((r) => (seen.has(r.dir) ? false : (seen.add(r.dir), true)));
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** This machine's home, temp dir and platform: what workspace slugs are derived from (docs/session-format.md#t22). */
export function hostPaths(): HostPaths {
  return { home: homedir(), tmpdir: tmpdir(), windows: process.platform === "win32" };
}
