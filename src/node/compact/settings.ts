/** The user's pi compaction setting: `compaction.keepRecentTokens` in the agent dir's settings.json, if set. */
import { homedir } from "node:os";
import { join } from "node:path";
import { readSmallFileSync } from "../fileAccess.js";

export function piKeepRecentTokens(env: NodeJS.ProcessEnv = process.env, home = homedir()): number | undefined {
  const agentDir = env.PI_CODING_AGENT_DIR || join(home, ".pi", "agent");
  try {
    const settings = JSON.parse(readSmallFileSync(join(agentDir, "settings.json")));
    const v = settings?.compaction?.keepRecentTokens;
    return typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined;
  } catch {
    return undefined;
  }
}
