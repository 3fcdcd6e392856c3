/**
 * A compaction: "Compaction · 48k tokens before · kept from …", described by how it was made ("server · OpenAI",
 * "local fallback (remote_error)"), expanding to its summary, its method (with Blackmagic's timeline entry folded in),
 * the kept range and the replaced range.
 */
import * as vscode from "vscode";
import { formatTokens, truncate } from "../../protocol/format.js";
import { entryLabel } from "../../core/entryText.js";
import { ContextValue, type DetailKind } from "./contextValues.js";
import { type RowContext, RowNode } from "./rowNode.js";

export class CompactionNode extends RowNode {
  protected override details({ outline, entry }: Omit<RowContext, "desc" | "forks">): DetailKind[] {
    const { info, method } = outline.compactionFacts(entry);
    const out: DetailKind[] = ["summary"];
    if (method) out.push("method");
    if (info?.keptFromId) out.push("kept");
    if (info?.replacesThroughId) out.push("replaced");
    return out;
  }

  protected render(t: vscode.TreeItem, { outline, entry, desc }: RowContext): void {
    // The outline computes a compaction's facts once (its record, the kept entry, how it was made).
    const { info, kept, method } = outline.compactionFacts(entry);
    const tokens =
      info?.tokensBefore != null
        ? vscode.l10n.t("{0} tokens before", formatTokens(info.tokensBefore))
        : vscode.l10n.t("history summarized");
    const keptText = kept
      ? vscode.l10n.t("kept from {0}", truncate(entryLabel(kept), 40))
      : vscode.l10n.t("nothing kept");
    t.label = vscode.l10n.t("Compaction · {0} · {1}", tokens, keptText);
    const color = this.item.active ? "charts.yellow" : "disabledForeground";
    t.iconPath = new vscode.ThemeIcon("fold", new vscode.ThemeColor(color));
    t.collapsibleState = vscode.TreeItemCollapsibleState.Collapsed;
    t.contextValue = ContextValue.Compaction;
    if (info?.tokensAfter != null) desc.push(`→ ${formatTokens(info.tokensAfter)}`);
    // How it was made (Blackmagic's format, ours too): "server · OpenAI", "local fallback (remote_error)".
    if (method) desc.push(method);
  }
}
