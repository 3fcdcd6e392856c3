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
import { targetOf } from "./commands/target.js";
import type { Command } from "./commands/command.js";
import { CommandId } from "./ids.js";
import { requireTrust } from "./trust.js";
import type { Logger } from "./logging.js";
import type { SessionService } from "./service.js";
import type { PanelManager } from "./webviews/panels.js";
import { confirmPlan, pickCompactFile, pickRoute, pickSummary, reportResult } from "./compactBranch.js";

const SECRET_KEY = (p: "openai" | "azure") => `piSessions.apiKey.${p}`;
/** How one run differs: the branch, a dry run, a readable-only fallback, cancellation, the summary kind. */
interface RunExtra {
  leafId?: string;
  dryRun?: boolean;
  localOnly?: FailureClass;
  signal?: AbortSignal;
  summary?: "extractive" | "llm";
}

/** Preset answers a caller may give (the provider, model and summary pickers); the confirmation is always asked. */
export interface CompactArgs {
  provider?: Provider;
  model?: string;
  leafId?: string;
  summary?: "extractive" | "llm";
}

function scopeOf(
  context: vscode.ExtensionContext,
  service: SessionService,
  panels: PanelManager,
  logger: Logger,
): Scope {
  const secrets = context.secrets;

  const credentials = async (provider: Provider): Promise<Credentials> => {
    if (provider === "codex") return { codexToken: readCodexToken() };
    const stored = await secrets.get(SECRET_KEY(provider));
    return {
      apiKey:
        stored || (provider === "openai" ? process.env.OPENAI_API_KEY : process.env.AZURE_OPENAI_API_KEY) || undefined,
    };
  };

  const run = async (file: string, provider: Provider, model: string, extra: RunExtra) => {
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

  return { service, panels, logger, secrets, run, describe };
}

/** What the commands below share. */
interface Scope {
  service: SessionService;
  panels: PanelManager;
  logger: Logger;
  secrets: vscode.SecretStorage;
  run: (file: string, provider: Provider, model: string, extra: RunExtra) => Promise<CompactResult>;
  describe: (r: CompactResult) => string;
}

export function compactCommands(
  context: vscode.ExtensionContext,
  service: SessionService,
  panels: PanelManager,
  logger: Logger,
): Command[] {
  const scope = scopeOf(context, service, panels, logger);
  return [setApiKeyCommand(scope), compactBranchCommand(scope)];
}

/** `SetApiKey`. */
function setApiKeyCommand({ logger, secrets }: Scope): Command {
  return {
    id: CommandId.SetApiKey,
    // The key is never taken from an argument: only what the user types into the input box is stored.
    execute: async (providerArg?: unknown) => {
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
  };
}

/** `CompactBranch`. */
function compactBranchCommand({ service, panels, logger, run, describe }: Scope): Command {
  return {
    id: CommandId.CompactBranch,
    execute: async (target?: unknown, argsArg?: unknown) => {
      requireTrust(vscode.l10n.t("Compact Branch"));
      const args = (argsArg && typeof argsArg === "object" ? argsArg : {}) as CompactArgs;
      await service.ensureStarted();
      const file = await pickCompactFile(service, target);
      if (!file) return undefined;
      service.resolve(file);
      const leafId = args.leafId ?? targetOf(target).entryId;
      const route = await pickRoute(args);
      if (!route) return undefined;
      const { provider, model } = route;
      const plan = await run(file, provider, model, { leafId, dryRun: true, summary: "llm" });
      if (plan.state !== "planned")
        throw new Error(vscode.l10n.t("cannot compact {0}: {1}", basename(file), describe(plan)));
      const p = plan.plan;
      const summary = args.summary || (await pickSummary(p));
      if (!summary || !(await confirmPlan(service, file, p, summary))) return undefined;
      let result = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: vscode.l10n.t("Compacting through {0}…", p.identity.surface),
          cancellable: true,
        },
        async (_progress, token) => {
          const controller = new AbortController();
          token.onCancellationRequested(() => controller.abort());
          return run(file, provider, model, { leafId, signal: controller.signal, summary });
        },
      );
      logger.info(
        `compact ${basename(file)} via ${p.identity.surface}/${p.identity.model}: ${result.state}` +
          (result.state === "failed" ? ` (${result.failureClass})` : ""),
      );
      if (result.state === "failed") {
        const fallbackButton = vscode.l10n.t("Write Readable-Only Compaction");
        const showLogButton = vscode.l10n.t("Show Log");
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
      await reportResult(service, panels, file, result);
      return result;
    },
  };
}
