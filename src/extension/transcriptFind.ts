/**
 * "Find in Transcript" (Ctrl+F / Cmd+F in a transcript): every entry of the branch shown, with the entries a
 * compaction replaced and a fork's inherited ones (`findOnBranch`), as you type; choosing a hit opens what hides it
 * and scrolls there. The webview's own find widget stays on the page's ⋯ (it finds only the rows built).
 */
import * as vscode from "vscode";
import { findOnBranch } from "../node/views/transcriptFind.js";
import { snippetPlainText } from "../protocol/markdown.js";
import type { Command } from "./commands/command.js";
import { CommandId } from "./ids.js";
import { pickLine } from "./search/searchResults.js";
import type { OpenTranscript, TranscriptPanels } from "./webviews/transcriptPanel.js";

type Item = vscode.QuickPickItem & { entryId?: string };

const FIND_DEBOUNCE_MS = 120;

/** The transcript the reader is in: the active one, else the one open. */
function current(transcripts: TranscriptPanels): OpenTranscript | undefined {
  return (
    transcripts.open.find((t) => t.panel.active) ?? (transcripts.open.length === 1 ? transcripts.open[0] : undefined)
  );
}

export function findInTranscriptCommand(transcripts: TranscriptPanels): Command {
  return {
    id: CommandId.FindInTranscript,
    execute: async (initial?: unknown) => {
      const t = current(transcripts);
      if (!t?.doc) {
        void vscode.window.showInformationMessage(vscode.l10n.t("Open a transcript to find in it."));
        return undefined;
      }
      const doc = t.doc;
      const pick = vscode.window.createQuickPick<Item>();
      pick.title = vscode.l10n.t("Find in Transcript: every entry of this branch");
      pick.placeholder = vscode.l10n.t("Text to find, replaced and inherited entries included");
      pick.matchOnDescription = false;
      pick.matchOnDetail = false;
      const update = (text: string) => {
        const { hits, more } = findOnBranch(doc.plan, text);
        const items: Item[] = hits.map((hit) => ({
          label: pickLine(snippetPlainText(hit.snippet).replace(/[«»]/g, ""), 200),
          description: [hit.role, hit.hidden ? vscode.l10n.t("replaced by a compaction: opening shows it") : ""]
            .filter(Boolean)
            .join(" · "),
          alwaysShow: true,
          entryId: hit.entryId,
        }));
        if (text.trim() && !items.length)
          items.push({ label: vscode.l10n.t("Not on this branch: {0}", pickLine(text, 80)), alwaysShow: true });
        if (more) items.push({ label: vscode.l10n.t("More matches: type more of the text"), alwaysShow: true });
        pick.items = items;
      };
      const chosen = new Promise<string | undefined>((resolve) => {
        // Searched once the reader pauses (a long branch's texts take a while to scan).
        let timer: NodeJS.Timeout | undefined;
        pick.onDidChangeValue((text) => {
          clearTimeout(timer);
          timer = setTimeout(() => update(text), FIND_DEBOUNCE_MS);
        });
        pick.onDidAccept(() => {
          const id = pick.selectedItems[0]?.entryId;
          if (!id) return;
          resolve(id);
          pick.hide();
        });
        pick.onDidHide(() => {
          resolve(undefined);
          pick.dispose();
        });
      });
      if (typeof initial === "string" && initial) {
        pick.value = initial;
        update(initial);
      }
      pick.show();
      const entryId = await chosen;
      if (entryId) await transcripts.reveal(t, entryId);
      return entryId;
    },
  };
}
