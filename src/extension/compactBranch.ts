/**
 * The steps of "Compact Branch…" (compactCommand.ts registers it): which session, through which provider and model,
 * which readable summary, the confirmation with what will be sent and written, then the run with progress and Cancel.
 */
import * as vscode from "vscode";
import type { Provider } from "../core/compact/identity.js";
import type { CompactPlan, CompactResult } from "../node/compact/run.js";
import { lastActivity } from "../node/store/index.js";
import { formatCostAtMost } from "../protocol/format.js";
import { targetOf } from "./commands/target.js";
import type { SessionService } from "./service.js";
import type { PanelManager } from "./webviews/panels.js";
import { displayTitle, pickText } from "./titles.js";

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

/** The session to compact: the command's target, else one picked among the sessions pi can resume (version 3). */
export async function pickCompactFile(service: SessionService, target: unknown): Promise<string | undefined> {
  let file = targetOf(target).file;
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
  return file;
}

/** The provider and model: preset by the caller, else asked. */
export async function pickRoute(args: {
  provider?: Provider;
  model?: string;
}): Promise<{ provider: Provider; model: string } | undefined> {
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
  return { provider, model };
}

/** The readable summary: extractive (free), or pi's prompt through the same provider, with its cost shown first. */
export async function pickSummary(p: CompactPlan): Promise<"extractive" | "llm" | undefined> {
  const cost = p.summaryCost;
  const llmDetail = cost
    ? vscode.l10n.t("~{0} input tokens, up to {1} output tokens", cost.inputTokens, cost.maxOutputTokens) +
      (cost.maxCost === null
        ? ` ${vscode.l10n.t("(no price known for this model)")}`
        : `: ${vscode.l10n.t("at most {0}", formatCostAtMost(cost.maxCost))}`)
    : "";
  return (
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
}

/** The confirmation, with what is summarized, where it is sent and what it costs; it cannot be skipped. */
export async function confirmPlan(
  service: SessionService,
  file: string,
  p: CompactPlan,
  summary: "extractive" | "llm",
): Promise<boolean> {
  const compactButton = vscode.l10n.t("Compact");
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
  return ok === compactButton;
}

/** A written compaction refreshes the tree and offers "Inspect Checkpoint"; a refusal is an error. */
export async function reportResult(
  service: SessionService,
  panels: PanelManager,
  file: string,
  result: CompactResult,
): Promise<void> {
  const inspectButton = vscode.l10n.t("Inspect Checkpoint");
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
            file,
            entryId: result.state === "written" ? result.entryId : "",
          });
      });
  } else if (result.state === "refused") {
    throw new Error(vscode.l10n.t("not compacted: {0}", result.reason));
  }
}
