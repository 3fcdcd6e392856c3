/** Credentials for Compact Branch: the key or token in use, the Codex login (read-only), and the secrets to guard. */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { readSmallFileSync } from "../fileAccess.js";

export interface Credentials {
  /** OpenAI or Azure API key. */
  apiKey?: string;
  /** ChatGPT access token (Codex). */
  codexToken?: string;
}

/** The ChatGPT access token, read-only: pi's auth.json (`openai-codex`), then Codex CLI's auth.json. Never
 * refreshed. */
export function readCodexToken(env: NodeJS.ProcessEnv = process.env, home = homedir()): string | undefined {
  const piAgent = env.PI_CODING_AGENT_DIR || join(home, ".pi", "agent");
  const candidates: [string, (j: Record<string, unknown>) => unknown][] = [
    [join(piAgent, "auth.json"), (j) => (j["openai-codex"] as Record<string, unknown> | undefined)?.access],
    [
      join(env.CODEX_HOME || join(home, ".codex"), "auth.json"),
      (j) => (j.tokens as Record<string, unknown> | undefined)?.access_token,
    ],
  ];
  for (const [file, pick] of candidates) {
    if (!existsSync(file)) continue;
    try {
      const token = pick(JSON.parse(readSmallFileSync(file)));
      if (typeof token === "string" && token) return token;
    } catch {
      // unreadable: try the next one
    }
  }
  return undefined;
}

export function tokenExpired(token: string): boolean {
  try {
    const exp = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")).exp;
    return typeof exp === "number" && exp * 1000 < Date.now();
  } catch {
    return false;
  }
}

/** Every secret the run knows, for the check that none reaches the file. */
export function secretsOf(c: Credentials): string[] {
  const out = [c.apiKey, c.codexToken].filter((s): s is string => typeof s === "string" && s.length >= 6);
  if (c.codexToken) {
    try {
      out.push(
        JSON.parse(Buffer.from(c.codexToken.split(".")[1] ?? "", "base64url").toString("utf8"))[
          "https://api.openai.com/auth"
        ].chatgpt_account_id,
      );
    } catch {
      // no claim
    }
  }
  return out.filter(Boolean);
}
