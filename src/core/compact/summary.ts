/**
 * The default readable summary (docs/checkpoints.md#summary): deterministic and extractive, never empty. Pi uses it
 * whenever the checkpoint does not replay, and as the previous summary of its next native compaction.
 */
import type { ContextMessage } from "../context/index.js";
import { contentText } from "../entryText.js";
import { formatFileOperations, type Preparation } from "./prepare.js";

const clip = (text: string, max: number) => {
  const flat = text.trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function userText(m: ContextMessage): string {
  return m.role === "user" ? contentText(m.content).trim() : "";
}

export function extractiveSummary(p: Preparation, label: string): string {
  const all = [...p.messagesToSummarize, ...p.turnPrefixMessages];
  const users = all.map(userText).filter(Boolean);
  const lastAssistant = [...all].reverse().find((m) => m.role === "assistant" && contentText(m.content).trim());
  const parts = [
    `Server-side compaction applied by Pi Session Explorer (${label}). ` +
      "If this model and provider are not active, this summary stands in for the earlier history.",
  ];
  parts.push(`## Goal\n${users[0] ? clip(users[0], 1200) : "(no user request in the summarized history)"}`);
  const recent = users.slice(-5);
  if (recent.length)
    parts.push(`## Recent user requests\n${recent.map((u) => `- ${clip(u, 600).replace(/\n/g, " ")}`).join("\n")}`);
  if (lastAssistant) parts.push(`## Last assistant state\n${clip(contentText(lastAssistant.content), 1500)}`);
  if (p.previousSummary) parts.push(`## Previous summary\n${clip(p.previousSummary, 6000)}`);
  parts.push(
    `## Summarized\n${all.length} messages (about ${p.tokensBefore} tokens of context before this compaction).`,
  );
  return parts.join("\n\n") + formatFileOperations(p.readFiles, p.modifiedFiles);
}
