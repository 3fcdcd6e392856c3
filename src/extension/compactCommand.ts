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
import { lastActivity } from "../node/store/index.js";
import { formatCostAtMost } from "../protocol/format.js";
import { entryIdOf, fileOf } from "./args.js";
import { registerCommand } from "./commands.js";
import { CommandId } from "./ids.js";
import { requireTrust } from "./trust.js";
import type { Logger } from "./logging.js";
import type { SessionService } from "./service.js";
import type { PanelManager } from "./webviews/panels.js";
import { displayTitle, pickText } from "./titles.js";

const SECRET_KEY = (p: "openai" | "azure") => `piSessions.apiKey.${p}`;
/** The providers Compact Branch offers (product names stay as they are; what they call is described). */
function providers(): { id: Provider; label: string; detail: string }[] {
  return [
    { id: "openai", label: "OpenAI", detail: vscode.l10n.t("responses.compact on api.openai.com (API key)") },
    {
      id: "azure",
      label: "Azure OpenAI",
      detail: vscode.l10n.t("responses.compact on <resource>.openai.azure.com/openai/v1 (API key)"),
    },
    {
      id: "codex",
      label: "ChatGPT Codex",
      detail: vscode.l10n.t("compaction_trigger on chatgpt.com/backend-api (your pi or codex ChatGPT login)"),
    },
  ];
}

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
                  { title: vscode.l10n.t("Set the API key of which provider?") },
                )
              )?.id;
        if (!provider) return undefined;
        const key = await vscode.window.showInputBox({
          title: vscode.l10n.t("{0} API key", provider === "openai" ? "OpenAI" : "Azure OpenAI"),
          prompt: vscode.l10n.t(
            "Stored in VS Code's secret storage; never written to files or logs. Leave empty to remove it.",
          ),
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
        requireTrust(vscode.l10n.t("Compact Branch"));
        const compactButton = vscode.l10n.t("Compact");
        const fallbackButton = vscode.l10n.t("Write Readable-Only Compaction");
        const showLogButton = vscode.l10n.t("Show Log");
        const inspectButton = vscode.l10n.t("Inspect Checkpoint");
        const args = (argsArg && typeof argsArg === "object" ? argsArg : {}) as CompactArgs;
        await service.ensureStarted();
        let file = fileOf(target);
        if (!file) {
          const items = service.lib.sessions
            .filter((s) => s.summary.ok && s.summary.version >= 3)
            .sort((a, b) => lastActivity(b) - lastActivity(a))
            .map((s) => ({
              label: pickText(displayTitle(s)),
              description: pickText(s.summary.ok ? (s.summary.cwd ?? "") : ""),
              file: s.file,
            }));
          file = (
            await vscode.window.showQuickPick(items, {
              title: vscode.l10n.t("Compact the active branch of which session?"),
            })
          )?.file;
        }
        if (!file) return undefined;
        if (!service.lib.get(file))
          throw new Error(vscode.l10n.t("{0} is not a session under the configured session roots", file));
        const leafId = args.leafId ?? entryIdOf(target);
        const provider =
          args.provider ??
          (
            await vscode.window.showQuickPick(
              providers().map((p) => ({ ...p, description: "" })),
              { title: vscode.l10n.t("Compact through which provider?") },
            )
          )?.id;
        if (!provider) return undefined;
        const cfgModel = vscode.workspace.getConfiguration("piSessions.compaction").get<string>("model") || "gpt-5.1";
        const model =
          args.model ??
          (await vscode.window.showInputBox({
            title: vscode.l10n.t("Model to compact with"),
            value: cfgModel,
            prompt:
              provider === "azure"
                ? vscode.l10n.t(
                    "The model id (the deployment comes from piSessions.compaction.azureDeployment, else the model id)",
                  )
                : vscode.l10n.t("The model id, e.g. gpt-5.1"),
          }));
        if (!model) return undefined;

        const plan = await run(file, provider, model, { leafId, dryRun: true, summary: "llm" });
        if (plan.state !== "planned")
          throw new Error(vscode.l10n.t("cannot compact {0}: {1}", basename(file), describe(plan)));
        const p = plan.plan;
        // The readable summary: extractive (free), or pi's prompt through the same provider, with its cost shown first.
        let summary = args.summary;
        if (!summary) {
          const cost = p.summaryCost;
          const llmDetail = cost
            ? vscode.l10n.t("~{0} input tokens, up to {1} output tokens", cost.inputTokens, cost.maxOutputTokens) +
              (cost.maxCost === null
                ? ` ${vscode.l10n.t("(no price known for this model)")}`
                : `: ${vscode.l10n.t("at most {0}", formatCostAtMost(cost.maxCost))}`)
            : "";
          summary = (
            await vscode.window.showQuickPick(
              [
                {
                  label: vscode.l10n.t("Extractive summary"),
                  description: vscode.l10n.t("no extra call"),
                  detail: vscode.l10n.t(
                    "Goal, recent requests, last assistant state, previous summary and file lists, from the branch.",
                  ),
                  id: "extractive" as const,
                },
                {
                  label: vscode.l10n.t("LLM summary (pi's prompt)"),
                  description: llmDetail,
                  detail: vscode.l10n.t(
                    "Written by {0} through the same provider, in the format pi's own compactions use.",
                    p.identity.model,
                  ),
                  id: "llm" as const,
                },
              ],
              { title: vscode.l10n.t("Readable summary of the compacted history") },
            )
          )?.id;
          if (!summary) return undefined;
        }
        {
          const detail = [
            vscode.l10n.t(
              "Summarizes {0} messages (~{1} tokens of context) and keeps the branch from entry {2} ({3} entries).",
              p.summarizedMessages,
              p.tokensBefore,
              p.firstKeptEntryId,
              p.keptEntries,
            ),
            vscode.l10n.t("Provider: {0}", `${p.identity.surface} · ${p.identity.model}`) +
              (p.identity.deployment ? ` · ${vscode.l10n.t("deployment {0}", p.identity.deployment)}` : "") +
              (p.transport !== p.identity.endpoint ? ` (${vscode.l10n.t("via {0}", p.transport)})` : "") +
              ".",
            summary === "llm" && p.summaryCost
              ? vscode.l10n.t("Readable summary by the model: ~{0} input tokens", p.summaryCost.inputTokens) +
                (p.summaryCost.maxCost === null
                  ? ""
                  : `, ${vscode.l10n.t("at most {0}", formatCostAtMost(p.summaryCost.maxCost))}`) +
                "."
              : vscode.l10n.t("Readable summary: extractive."),
            vscode.l10n.t(
              "One compaction entry is appended; nothing else in the file changes. Close pi on this session first.",
            ),
          ].join("\n\n");
          const ok = await vscode.window.showInformationMessage(
            vscode.l10n.t('Compact "{0}"?', displayTitle(service.lib.get(file)!)),
            { modal: true, detail },
            compactButton,
          );
          if (ok !== compactButton) return undefined;
        }
        let result = await vscode.window.withProgress(
          {
            location: vscode.ProgressLocation.Notification,
            title: vscode.l10n.t("Compacting through {0}…", p.identity.surface),
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
            vscode.l10n.t(
              "Compaction failed ({0}): {1}. The session file is unchanged.",
              result.failureClass,
              result.message,
            ),
            fallbackButton,
            showLogButton,
          );
          if (choice === showLogButton) logger.show();
          if (choice === fallbackButton)
            result = await run(file, provider, model, { leafId, localOnly: result.failureClass });
        }
        if (result.state === "written") {
          await service.refreshFile(file);
          void vscode.window
            .showInformationMessage(
              result.checkpoint ? vscode.l10n.t("Checkpoint written: {0}.", result.message) : result.message,
              inspectButton,
            )
            .then((c) => {
              if (c === inspectButton)
                panels.show({
                  panel: "checkpoint",
                  file: file!,
                  entryId: result.state === "written" ? result.entryId : "",
                });
            });
        } else if (result.state === "refused") {
          throw new Error(vscode.l10n.t("not compacted: {0}", result.reason));
        }
        return result;
      },
      logger,
    ),
  );
}
