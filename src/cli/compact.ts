/** `pi-sessions compact`: compact a branch through a provider's server compaction and append the checkpoint. */
import type { Provider } from "../core/compact/identity.js";
import { type CompactOptions, type CompactResult, compactBranch, readCodexToken } from "../node/compact/run.js";
import { piKeepRecentTokens } from "../node/compact/settings.js";
import { formatCost } from "../protocol/format.js";

export const EXIT_NOT_WRITTEN = 3;

export type CompactArgs = Pick<
  CompactOptions,
  | "file"
  | "provider"
  | "model"
  | "azureResource"
  | "azureDeployment"
  | "baseUrl"
  | "keepRecentTokens"
  | "summary"
  | "timeoutMs"
> & {
  leaf?: string;
  dryRun: boolean;
  yes: boolean;
  json: boolean;
  writeFallback: boolean;
};

/** The CLI reads credentials only from the environment (and Codex's login files, read-only). */
export function credentialsFromEnv(provider: Provider, env: NodeJS.ProcessEnv = process.env) {
  if (provider === "openai") return { apiKey: env.OPENAI_API_KEY };
  if (provider === "azure") return { apiKey: env.AZURE_OPENAI_API_KEY };
  return { codexToken: readCodexToken(env) };
}

function jsonOf(r: CompactResult): Record<string, unknown> {
  switch (r.state) {
    case "written":
      return {
        entryId: r.entryId,
        state: r.checkpoint ? "remote_applied" : "local_fallback",
        ...(r.failureClass ? { failureClass: r.failureClass } : {}),
        identity: r.identity,
        firstKeptEntryId: r.firstKeptEntryId,
        tokensBefore: r.tokensBefore,
      };
    case "failed":
      return {
        entryId: null,
        state: "failed",
        failureClass: r.failureClass,
        message: r.message,
        identity: r.identity,
        firstKeptEntryId: r.firstKeptEntryId,
        tokensBefore: r.tokensBefore,
      };
    case "refused":
      return {
        entryId: null,
        state: "refused",
        ...(r.failureClass ? { failureClass: r.failureClass } : {}),
        reason: r.reason,
        identity: r.identity ?? null,
      };
    case "planned":
      return {
        entryId: null,
        state: "planned",
        identity: r.identity,
        firstKeptEntryId: r.firstKeptEntryId,
        tokensBefore: r.tokensBefore,
        plan: r.plan,
      };
  }
}

export async function compactCommand(
  a: CompactArgs,
  io: { out: (t: string) => void; err: (t: string) => void },
  version: string,
): Promise<number> {
  const dryRun = a.dryRun || !a.yes;
  const { leaf, yes: _yes, json: _json, ...options } = a;
  const result = await compactBranch({
    ...options,
    leafId: leaf,
    keepRecentTokens: a.keepRecentTokens ?? piKeepRecentTokens(),
    dryRun,
    credentials: dryRun ? {} : credentialsFromEnv(a.provider),
    version,
  });
  if (a.json) io.out(JSON.stringify(jsonOf(result)));
  else if (result.state === "planned") {
    const p = result.plan;
    io.out(
      [
        `plan for ${a.file}${a.yes ? "" : " (nothing written: add --yes to compact)"}`,
        `  branch leaf       ${p.leafId}`,
        `  summarized        ${p.summarizedMessages} messages${p.isSplitTurn ? " (a turn is split)" : ""}`,
        `  kept from         ${p.firstKeptEntryId} (${p.keptEntries} entries)`,
        `  tokens before     ~${p.tokensBefore}`,
        `  identity          ${p.identity.surface} · ${p.identity.model}${p.identity.deployment ? ` · deployment ${p.identity.deployment}` : ""} · ${p.identity.endpoint}`,
        `  transport         ${p.transport}`,
        `  readable summary  ${p.summaryKind === "llm" && p.summaryCost ? `LLM with pi's prompt: ~${p.summaryCost.inputTokens} input tokens, up to ${p.summaryCost.maxOutputTokens} output tokens, ${p.summaryCost.maxCost === null ? "price unknown for this model" : `at most ${formatCost(p.summaryCost.maxCost)}`}` : "extractive (no extra call)"}`,
        `  request body (no credentials; they go in headers):`,
        JSON.stringify(p.requestBody, null, 2),
      ].join("\n"),
    );
  } else if (result.state === "written")
    io.out(
      `compacted: entry ${result.entryId} · ${result.message} · kept from ${result.firstKeptEntryId} · ~${result.tokensBefore} tokens before`,
    );
  else if (result.state === "failed")
    io.err(
      `not compacted (${result.failureClass}): ${result.message}. The file is unchanged.${a.writeFallback ? "" : " --write-fallback writes a readable-only compaction instead."}`,
    );
  else io.err(`not compacted: ${result.reason}. The file is unchanged.`);
  return result.state === "written" || (result.state === "planned" && a.dryRun) ? 0 : EXIT_NOT_WRITTEN;
}
