/** The user's pi compaction setting: `compaction.keepRecentTokens` in the agent dir's settings.json, if set. */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export function piKeepRecentTokens(env: NodeJS.ProcessEnv = process.env, home = homedir()): number | undefined {
  const agentDir = env.PI_CODING_AGENT_DIR || join(home, ".pi", "agent");
  try {
    const settings = JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8"));
    const v = settings?.compaction?.keepRecentTokens;
    return typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined;
  } catch {
    return undefined;
  }
}
