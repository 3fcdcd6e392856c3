/**
 * "Pi Sessions: Compact Branch…": pick the provider and model, show the plan, compact with progress and Cancel, then
 * offer "Inspect Checkpoint". API keys live in SecretStorage ("Set API Key…"), with OPENAI_API_KEY and
 * AZURE_OPENAI_API_KEY as fallbacks; the ChatGPT login is read, read-only, from pi's or Codex's auth.json.
 * Untrusted workspaces: the command is disabled in menus (`enablement`), and its handler refuses too, since any
 * caller of `executeCommand` reaches it. The confirmation cannot be skipped, and a key is only ever typed by the user.
 */
import { basename } from "node:path";
import * as vscode from "vscode";
import type { Provider } from "../core/compact/identity.js";
import type { FailureClass } from "../node/compact/failure.js";
import { type Credentials, readCodexToken } from "../node/compact/credentials.js";
import { type CompactResult, compactBranch } from "../node/compact/run.js";
import { piKeepRecentTokens } from "../node/compact/settings.js";
import { lastActivity, sessionTitle } from "../node/store/index.js";
import { formatCostAtMost } from "../protocol/format.js";
import { entryIdOf, fileOf } from "./args.js";
import { registerCommand } from "./commands.js";
import { CommandId } from "./ids.js";
import { requireTrust } from "./trust.js";
import type { Logger } from "./logging.js";
import type { SessionService } from "./service.js";
import type { PanelManager } from "./webviews/panels.js";

const SECRET_KEY = (p: "openai" | "azure") => `piSessions.apiKey.${p}`;
const PROVIDERS: { id: Provider; label: string; detail: string }[] = [
  { id: "openai", label: "OpenAI", detail: "responses.compact on api.openai.com (API key)" },
  {
    id: "azure",
    label: "Azure OpenAI",
    detail: "responses.compact on <resource>.openai.azure.com/openai/v1 (API key)",
  },
  {
    id: "codex",
    label: "ChatGPT Codex",
    detail: "compaction_trigger on chatgpt.com/backend-api (your pi or codex ChatGPT login)",
  },
];

/** Preset answers a caller may give (the provider, model and summary pickers); the confirmation is always asked. */
export interface CompactArgs {
  provider?: Provider;
  model?: string;
  leafId?: string;
  summary?: "extractive" | "llm";
}

export function registerCompactCommands(
  context: vscode.ExtensionContext,
  service: SessionService,
  panels: PanelManager,
  logger: Logger,
): vscode.Disposable {
  const secrets = context.secrets;

  const credentials = async (provider: Provider): Promise<Credentials> => {
    if (provider === "codex") return { codexToken: readCodexToken() };
    const stored = await secrets.get(SECRET_KEY(provider));
    return {
      apiKey:
        stored || (provider === "openai" ? process.env.OPENAI_API_KEY : process.env.AZURE_OPENAI_API_KEY) || undefined,
    };
  };

  const run = async (
    file: string,
    provider: Provider,
    model: string,
    extra: {
      leafId?: string;
      dryRun?: boolean;
      localOnly?: FailureClass;
      signal?: AbortSignal;
      summary?: "extractive" | "llm";
    },
  ) => {
    const cfg = vscode.workspace.getConfiguration("piSessions.compaction");
    return compactBranch({
      file,
      leafId: extra.leafId,
      provider,
      model,
      azureResource: cfg.get<string>("azureResource") || undefined,
      azureDeployment: cfg.get<string>("azureDeployment") || undefined,
      baseUrl: cfg.get<string>("baseUrl") || undefined,
      keepRecentTokens: cfg.get<number>("keepRecentTokens") || piKeepRecentTokens(),
      dryRun: extra.dryRun,
      localOnly: extra.localOnly,
      summary: extra.summary,
      credentials: extra.dryRun ? {} : await credentials(provider),
      signal: extra.signal,
      version: String(context.extension.packageJSON.version ?? "0"),
    });
  };

  const describe = (r: CompactResult) =>
    r.state === "refused" ? r.reason : r.state === "failed" ? `${r.failureClass}: ${r.message}` : r.state;

  return vscode.Disposable.from(
    registerCommand(
      CommandId.SetApiKey,
      // The key is never taken from an argument: only what the user types into the input box is stored.
      async (providerArg?: unknown) => {
        const provider =
          providerArg === "openai" || providerArg === "azure"
            ? providerArg
            : (
                await vscode.window.showQuickPick(
                  [
                    { label: "OpenAI", id: "openai" as const },
                    { label: "Azure OpenAI", id: "azure" as const },
                  ],
                  { title: "Set the API key of which provider?" },
                )
              )?.id;
        if (!provider) return undefined;
        const key = await vscode.window.showInputBox({
          title: `${provider === "openai" ? "OpenAI" : "Azure OpenAI"} API key`,
          prompt: "Stored in VS Code's secret storage; never written to files or logs. Leave empty to remove it.",
          password: true,
          ignoreFocusOut: true,
        });
        if (key === undefined) return undefined;
        if (key) await secrets.store(SECRET_KEY(provider), key);
        else await secrets.delete(SECRET_KEY(provider));
        logger.info(`${provider} API key ${key ? "stored" : "removed"}`);
        return true;
      },
      logger,
    ),

    registerCommand(
      CommandId.CompactBranch,
      async (target?: unknown, argsArg?: unknown) => {
        requireTrust("Compact Branch");
        const args = (argsArg && typeof argsArg === "object" ? argsArg : {}) as CompactArgs;
        await service.ensureStarted();
        let file = fileOf(target);
        if (!file) {
          const items = service.lib.sessions
            .filter((s) => s.summary.ok && s.summary.version >= 3)
            .sort((a, b) => lastActivity(b) - lastActivity(a))
            .map((s) => ({
              label: sessionTitle(s),
              description: s.summary.ok ? (s.summary.cwd ?? "") : "",
              file: s.file,
            }));
          file = (await vscode.window.showQuickPick(items, { title: "Compact the active branch of which session?" }))
            ?.file;
        }
        if (!file) return undefined;
        if (!service.lib.get(file)) throw new Error(`${file} is not a session under the configured session roots`);
        const leafId = args.leafId ?? entryIdOf(target);
        const provider =
          args.provider ??
          (
            await vscode.window.showQuickPick(
              PROVIDERS.map((p) => ({ ...p, description: "" })),
              { title: "Compact through which provider?" },
            )
          )?.id;
        if (!provider) return undefined;
        const cfgModel = vscode.workspace.getConfiguration("piSessions.compaction").get<string>("model") || "gpt-5.1";
        const model =
          args.model ??
          (await vscode.window.showInputBox({
            title: "Model to compact with",
            value: cfgModel,
            prompt:
              provider === "azure"
                ? "The model id (the deployment comes from piSessions.compaction.azureDeployment, else the model id)"
                : "The model id, e.g. gpt-5.1",
          }));
        if (!model) return undefined;

        const plan = await run(file, provider, model, { leafId, dryRun: true, summary: "llm" });
        if (plan.state !== "planned") throw new Error(`cannot compact ${basename(file)}: ${describe(plan)}`);
        const p = plan.plan;
        // The readable summary: extractive (free), or pi's prompt through the same provider, with its cost shown first.
        let summary = args.summary;
        if (!summary) {
          const cost = p.summaryCost;
          const llmDetail = cost
            ? `~${cost.inputTokens} input tokens, up to ${cost.maxOutputTokens} output tokens` +
              (cost.maxCost === null
                ? " (no price known for this model)"
                : `: at most ${formatCostAtMost(cost.maxCost)}`)
            : "";
          summary = (
            await vscode.window.showQuickPick(
              [
                {
                  label: "Extractive summary",
                  description: "no extra call",
                  detail:
                    "Goal, recent requests, last assistant state, previous summary and file lists, " +
                    "taken from the branch.",
                  id: "extractive" as const,
                },
                {
                  label: "LLM summary (pi's prompt)",
                  description: llmDetail,
                  detail:
                    `Written by ${p.identity.model} through the same provider, ` +
                    "in the format pi's own compactions use.",
                  id: "llm" as const,
                },
              ],
              { title: "Readable summary of the compacted history" },
            )
          )?.id;
          if (!summary) return undefined;
        }
        {
          const detail = [
            `Summarizes ${p.summarizedMessages} messages (~${p.tokensBefore} tokens of context) ` +
              `and keeps the branch from entry ${p.firstKeptEntryId} (${p.keptEntries} entries).`,
            `Provider: ${p.identity.surface} · ${p.identity.model}` +
              (p.identity.deployment ? ` · deployment ${p.identity.deployment}` : "") +
              (p.transport !== p.identity.endpoint ? ` (via ${p.transport})` : "") +
              ".",
            summary === "llm" && p.summaryCost
              ? `Readable summary by the model: ~${p.summaryCost.inputTokens} input tokens` +
                (p.summaryCost.maxCost === null ? "" : `, at most ${formatCostAtMost(p.summaryCost.maxCost)}`) +
                "."
              : "Readable summary: extractive.",
            "One compaction entry is appended to the session file; nothing else changes. " +
              "Close pi on this session first.",
          ].join("\n\n");
          const ok = await vscode.window.showInformationMessage(
            `Compact "${sessionTitle(service.lib.get(file)!)}"?`,
            { modal: true, detail },
            "Compact",
          );
          if (ok !== "Compact") return undefined;
        }
        let result = await vscode.window.withProgress(
          {
            location: vscode.ProgressLocation.Notification,
            title: `Compacting through ${p.identity.surface}…`,
            cancellable: true,
          },
          async (_progress, token) => {
            const controller = new AbortController();
            token.onCancellationRequested(() => controller.abort());
            return run(file!, provider, model, { leafId, signal: controller.signal, summary });
          },
        );
        logger.info(
          `compact ${basename(file)} via ${p.identity.surface}/${p.identity.model}: ${result.state}` +
            (result.state === "failed" ? ` (${result.failureClass})` : ""),
        );
        if (result.state === "failed") {
          const choice = await vscode.window.showErrorMessage(
            `Compaction failed (${result.failureClass}): ${result.message}. The session file is unchanged.`,
            "Write Readable-Only Compaction",
            "Show Log",
          );
          if (choice === "Show Log") logger.show();
          if (choice === "Write Readable-Only Compaction")
            result = await run(file, provider, model, { leafId, localOnly: result.failureClass });
        }
        if (result.state === "written") {
          await service.refreshFile(file);
          void vscode.window
            .showInformationMessage(
              result.checkpoint ? `Checkpoint written: ${result.message}.` : result.message,
              "Inspect Checkpoint",
            )
            .then((c) => {
              if (c === "Inspect Checkpoint")
                panels.show({
                  panel: "checkpoint",
                  file: file!,
                  entryId: result.state === "written" ? result.entryId : "",
                });
            });
        } else if (result.state === "refused") {
          throw new Error(`not compacted: ${result.reason}`);
        }
        return result;
      },
      logger,
    ),
  );
}
