/**
 * What a session is called in the extension's own text: the store's rule (`sessionTitle`: a fork says what it did),
 * with its words translated.
 */
import * as vscode from "vscode";
import { sessionTitle, type StoreSession } from "../node/store/index.js";
import { truncate } from "../protocol/format.js";

/** A fork with no prompt of its own, named by the last prompt it copied (where it forked). */
const noNewPromptText = (last: string | null) =>
  last ? vscode.l10n.t("(no new prompt) after “{0}”", truncate(last, 60)) : vscode.l10n.t("(no new prompt)");

export function displayTitle(s: StoreSession): string {
  return sessionTitle(s, noNewPromptText);
}

/**
 * Session text for a quick pick's label, description or detail, where `$(name)` is drawn as an icon: escaped the way
 * VS Code escapes it (`\$(`), so a prompt cannot show an icon or pass for one of ours.
 */
export function pickText(text: string): string {
  return text.replace(/\$\(/g, "\\$(");
}
