/** Links in session text, clicked in a webview (a transcript, a compare panel): the host decides whether one opens. */
import * as vscode from "vscode";
import { truncate } from "../../protocol/format.js";

/** A link in session text opens only over http(s), and only after the user says so (a modal names the host). */
export async function openLink(url: string): Promise<void> {
  let uri: vscode.Uri;
  try {
    uri = vscode.Uri.parse(url, true);
  } catch {
    return;
  }
  if (uri.scheme !== "http" && uri.scheme !== "https") {
    void vscode.window.showInformationMessage(vscode.l10n.t("Only http and https links open from a session’s text."));
    return;
  }
  const open = vscode.l10n.t("Open Link");
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t("Open a link from a session's text on {0}?", uri.authority),
    { modal: true, detail: truncate(uri.toString(true), 500) },
    open,
  );
  if (choice === open) await vscode.env.openExternal(uri);
}
