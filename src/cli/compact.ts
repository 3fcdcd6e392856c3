/** `pi-sessions compact`: compact a branch through a provider's server compaction and append the checkpoint. */
import type { Provider } from "../core/compact/identity.js";
import { readCodexToken } from "../node/compact/credentials.js";
import { type CompactOptions, type CompactResult, compactBranch } from "../node/compact/run.js";
import { piKeepRecentTokens } from "../node/compact/settings.js";
import { formatCostAtMost, oneLine } from "../protocol/format.js";
import { EXIT_NOT_WRITTEN, type Io, text, UsageError } from "./args.js";

type CompactArgs = Pick<
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
function credentialsFromEnv(provider: Provider, env: NodeJS.ProcessEnv = process.env) {
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

async function compactCommand(
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
  const say = text(io);
  if (a.json) io.out(JSON.stringify(jsonOf(result)));
  else if (result.state === "planned") {
    const p = result.plan;
    say.out(
      [
        `plan for ${oneLine(a.file)}${a.yes ? "" : " (nothing written: add --yes to compact)"}`,
        `  branch leaf       ${oneLine(p.leafId)}`,
        `  summarized        ${p.summarizedMessages} messages${p.isSplitTurn ? " (a turn is split)" : ""}`,
        `  kept from         ${oneLine(p.firstKeptEntryId)} (${p.keptEntries} entries)`,
        `  tokens before     ~${p.tokensBefore}`,
        `  identity          ${identityText(p.identity)} · ${p.identity.endpoint}`,
        `  transport         ${p.transport}`,
        `  readable summary  ${summaryText(p.summaryKind, p.summaryCost)}`,
        `  request body (no credentials; they go in headers):`,
        JSON.stringify(p.requestBody, null, 2),
      ].join("\n"),
    );
  } else if (result.state === "written")
    say.out(
      `compacted: entry ${result.entryId} · ${result.message} · kept from ${oneLine(result.firstKeptEntryId)}` +
        ` · ~${result.tokensBefore} tokens before`,
    );
  else if (result.state === "failed")
    say.err(
      `not compacted (${result.failureClass}): ${result.message}. The file is unchanged.` +
        (a.writeFallback ? "" : " --write-fallback writes a readable-only compaction instead."),
    );
  else say.err(`not compacted: ${result.reason}. The file is unchanged.`);
  return result.state === "written" || (result.state === "planned" && a.dryRun) ? 0 : EXIT_NOT_WRITTEN;
}

/** `compact`'s options as commander parses them. */
interface CompactValues {
  leaf?: string;
  provider?: string;
  model?: string;
  azureResource?: string;
  azureDeployment?: string;
  baseUrl?: string;
  keepRecentTokens?: string;
  summary?: string;
  dryRun?: boolean;
  yes?: boolean;
  json?: boolean;
  writeFallback?: boolean;
  timeoutMs?: string;
}

/** Check `compact`'s options and run it. */
export async function compactCli(file: string, values: CompactValues, io: Io, version: string): Promise<number> {
  const provider = values.provider;
  if (provider !== "openai" && provider !== "azure" && provider !== "codex")
    throw new UsageError("--provider must be openai, azure or codex");
  if (!values.model) throw new UsageError("--model is required");
  if (values.summary !== undefined && values.summary !== "extractive" && values.summary !== "llm")
    throw new UsageError("--summary must be extractive or llm");
  const int = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v)) throw new UsageError(`--${name} takes a whole number`);
    return Number(v);
  };
  return compactCommand(
    {
      file,
      leaf: values.leaf,
      provider,
      model: values.model,
      azureResource: values.azureResource,
      azureDeployment: values.azureDeployment,
      baseUrl: values.baseUrl,
      keepRecentTokens: int("keep-recent-tokens", values.keepRecentTokens),
      summary: values.summary,
      dryRun: !!values.dryRun,
      yes: !!values.yes,
      json: !!values.json,
      writeFallback: !!values.writeFallback,
      timeoutMs: int("timeout-ms", values.timeoutMs),
    },
    io,
    version,
  );
}

/** `openai · gpt-5.1 · deployment d`: the surface and model a checkpoint records. */
function identityText(identity: { surface: string; model: string; deployment?: string | null }): string {
  return `${identity.surface} · ${identity.model}${identity.deployment ? ` · deployment ${identity.deployment}` : ""}`;
}

function summaryText(
  kind: string,
  cost: { inputTokens: number; maxOutputTokens: number; maxCost: number | null } | null | undefined,
): string {
  if (kind !== "llm" || !cost) return "extractive (no extra call)";
  const price = cost.maxCost === null ? "price unknown for this model" : `at most ${formatCostAtMost(cost.maxCost)}`;
  const tokens = `~${cost.inputTokens} input tokens, up to ${cost.maxOutputTokens} output tokens`;
  return `LLM with pi's prompt: ${tokens}, ${price}`;
}
