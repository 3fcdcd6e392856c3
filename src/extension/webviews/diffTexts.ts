/**
 * "Open as Diff" for an agent's edit or write: the two texts become read-only virtual documents
 * (`pi-sessions-diff:` URIs, held in memory, most recent few only) shown with `vscode.diff`.
 */
import { basename } from "node:path";
import * as vscode from "vscode";

const SCHEME = "pi-sessions-diff";
/** Texts kept for diffs the user may still have open (older ones show empty once evicted). */
const KEEP = 40;

export class DiffTexts implements vscode.Disposable, vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private next = 0;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? "";
  }

  private uri(text: string, name: string, side: string): vscode.Uri {
    const key = `${++this.next}-${side}`;
    this.texts.set(key, text);
    while (this.texts.size > KEEP) this.texts.delete(this.texts.keys().next().value!);
    // The file name (for the language mode and the tab) is the path's last part only; the text is in memory.
    return vscode.Uri.from({ scheme: SCHEME, path: `/${side}/${basename(name) || "text"}`, query: key });
  }

  async open(before: string, after: string, title: string, path: string): Promise<void> {
    await vscode.commands.executeCommand(
      "vscode.diff",
      this.uri(before, path, "before"),
      this.uri(after, path, "after"),
      title,
      { preview: true },
    );
  }

  /** A text in memory (left) against a file on disk (right, editable as the file itself). */
  async openAgainst(before: string, file: vscode.Uri, title: string): Promise<void> {
    await vscode.commands.executeCommand("vscode.diff", this.uri(before, file.fsPath, "before"), file, title, {
      preview: true,
    });
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}
