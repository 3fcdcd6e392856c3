/**
 * The one host of the extension's webview pages (the panels, transcripts, search results): it creates and revives
 * them (a `WebviewPanelSerializer` whose saved state zod validates first), renders their HTML, validates every
 * message a page sends before its kind sees it, keeps the ready handshake and the sequence number of what was sent,
 * debounces refreshes, and forgets a page when it is closed. A kind says only what is its own (`PageKind`): its
 * state and messages, its title, and what it does with a message.
 */
import * as vscode from "vscode";
import type * as z from "zod";
import type { Logger } from "../logging.js";
import { renderHtml, webviewOptions } from "./html.js";

/** One open page: its panel, its state, and the host's bookkeeping. */
export interface HostedPage<S> {
  readonly panel: vscode.WebviewPanel;
  state: S;
  /** The page said "ready" (and, for kinds that tear down hidden pages, is visible since). */
  ready: boolean;
  /** The sequence number of the last model or reset sent; a page's answers name the one they are about. */
  seq: number;
  /** A refresh is due when the page shows again (it was hidden when asked). */
  dirty: boolean;
  timer?: NodeJS.Timeout;
}

/** What one kind of page is: its schemas, how it looks, and what it does. */
export interface PageKind<S extends object, In, P extends HostedPage<S>> {
  readonly viewType: string;
  /** The page's bundle (dist/webview/<page>.js). */
  readonly page: string;
  /** A page's saved state, checked before a revived page is trusted with it. */
  readonly stateSchema: z.ZodType<S>;
  /** Every message a page may send. */
  readonly messageSchema: z.ZodType<In>;
  /** Whether pages are revived after a reload (a serializer is registered). */
  readonly restorable: boolean;
  readonly html?: Parameters<typeof renderHtml>[5];
  readonly panelOptions?: vscode.WebviewPanelOptions;
  /** A hidden page is torn down (no `retainContextWhenHidden`): it is not ready until it says so again. */
  readonly unreadyWhenHidden?: boolean;
  /** The page's record, made when it is opened or revived. */
  create(panel: vscode.WebviewPanel, state: S): P;
  title(page: P): string;
  receive(page: P, message: In): Promise<void>;
  /** The page shows again (after being hidden). */
  shown?(page: P): void;
  disposed?(page: P): void;
}

export class WebviewHost<S extends object, In, P extends HostedPage<S>> implements vscode.Disposable {
  readonly pages: P[] = [];
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly logger: Logger,
    private readonly kind: PageKind<S, In, P>,
  ) {
    if (kind.restorable)
      this.disposables.push(
        vscode.window.registerWebviewPanelSerializer(kind.viewType, {
          deserializeWebviewPanel: async (panel, raw) => {
            const parsed = kind.stateSchema.safeParse(raw);
            if (!parsed.success) {
              logger.warn(`not restoring a ${kind.page} page: its saved state is not valid`);
              panel.dispose();
              return;
            }
            this.attach(panel, parsed.data);
          },
        }),
      );
  }

  /** Open a new page showing `state`. */
  open(state: S, title: string): P {
    const panel = vscode.window.createWebviewPanel(this.kind.viewType, title, vscode.ViewColumn.Active, {
      ...webviewOptions(this.extensionUri),
      ...this.kind.panelOptions,
    });
    return this.attach(panel, state);
  }

  private attach(panel: vscode.WebviewPanel, state: S): P {
    panel.webview.options = webviewOptions(this.extensionUri);
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, "media", "pi-sessions.svg");
    const page = this.kind.create(panel, state);
    this.pages.push(page);
    panel.title = this.kind.title(page);
    panel.webview.html = renderHtml(panel.webview, this.extensionUri, this.kind.page, panel.title, state, {
      ...this.kind.html,
    });
    const subs = [
      panel.webview.onDidReceiveMessage((raw: unknown) => void this.receive(page, raw)),
      panel.onDidChangeViewState(() => {
        if (!panel.visible && this.kind.unreadyWhenHidden) page.ready = false;
        if (panel.visible) this.kind.shown?.(page);
      }),
    ];
    panel.onDidDispose(() => {
      for (const s of subs) s.dispose();
      if (page.timer) clearTimeout(page.timer);
      this.pages.splice(this.pages.indexOf(page), 1);
      this.kind.disposed?.(page);
    });
    return page;
  }

  /** Whether the page is still open (a message to a closed page is dropped). */
  isOpen(page: P): boolean {
    return this.pages.includes(page);
  }

  /** Send a message to an open page; false when it was closed meanwhile. */
  async post(page: P, message: unknown): Promise<boolean> {
    if (!this.isOpen(page)) return false;
    await page.panel.webview.postMessage(message);
    return true;
  }

  /** Run `refresh` once, `ms` after the last call for this page (changes come in bursts). */
  debounce(page: P, ms: number, refresh: () => Promise<void>): void {
    if (page.timer) clearTimeout(page.timer);
    page.timer = setTimeout(() => void refresh(), ms);
  }

  /** Rename every open page (after the listing names their sessions). */
  retitle(): void {
    for (const p of this.pages) p.panel.title = this.kind.title(p);
  }

  private async receive(page: P, raw: unknown): Promise<void> {
    const parsed = this.kind.messageSchema.safeParse(raw);
    if (!parsed.success) {
      this.logger.warn(`the ${this.kind.page} page sent a message that is not valid; ignored`);
      return;
    }
    await this.kind.receive(page, parsed.data);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    for (const p of [...this.pages]) p.panel.dispose();
  }
}
