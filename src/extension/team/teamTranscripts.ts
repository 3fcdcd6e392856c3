/**
 * Team transcripts in the editor (Open Team Session…): a session of the team database as a read-only Markdown
 * document (`pi-sessions-team:` URIs, held in memory, the last few only), shown in the Markdown preview. Nothing is
 * written to disk; the text was made inert when it was rendered (core/export/teamMarkdown.ts).
 */
import { createHash } from "node:crypto";
import * as vscode from "vscode";

const SCHEME = "pi-sessions-team";
/** Transcripts kept for documents the user may still have open (each up to 16 MB: teamTranscript.ts). */
const KEEP = 5;

/** A name from the database as a path segment of ours: its safe characters only, short. */
const segment = (text: string, max: number) => text.replace(/[^\w.@-]+/g, "_").slice(0, max) || "_";

export class TeamTranscripts implements vscode.Disposable, vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(SCHEME, this);

  provideTextDocumentContent(uri: vscode.Uri): string {
    return (
      this.texts.get(uri.toString()) ??
      vscode.l10n.t("This team transcript is no longer in memory: open it again with Open Team Session….")
    );
  }

  /** Keep `markdown` as the machine's session's transcript and show it (read again if it was open). */
  async show(session: { machine: string; file: string }, sessionId: string, markdown: string): Promise<vscode.Uri> {
    // Named for a reader; one per machine and file (two files may hold one id, two ids may read alike here).
    const key = createHash("sha256").update(`${session.machine}\0${session.file}`).digest("hex").slice(0, 8);
    const name = `${segment(sessionId, 80)}-${key}.md`;
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${segment(session.machine, 63)}/${name}` });
    this.texts.delete(uri.toString());
    this.texts.set(uri.toString(), markdown);
    while (this.texts.size > KEEP) this.texts.delete(this.texts.keys().next().value!);
    this.changed.fire(uri);
    const document = await vscode.workspace.openTextDocument(uri);
    try {
      await vscode.commands.executeCommand("markdown.showPreview", uri);
    } catch {
      // No Markdown preview (its extension disabled): the document itself, read-only.
      await vscode.window.showTextDocument(document, { preview: true });
    }
    return uri;
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
    this.texts.clear();
  }
}
