/** One lazily created `LogOutputChannel` "Pi Sessions" behind a small Logger interface. */
import * as vscode from "vscode";

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, err?: unknown): void;
  show(): void;
}

export class OutputLogger implements Logger, vscode.Disposable {
  private channel: vscode.LogOutputChannel | undefined;

  private get out(): vscode.LogOutputChannel {
    this.channel ??= vscode.window.createOutputChannel("Pi Sessions", { log: true });
    return this.channel;
  }

  info(message: string): void {
    this.out.info(message);
  }

  warn(message: string): void {
    this.out.warn(message);
  }

  error(message: string, err?: unknown): void {
    if (err instanceof Error) this.out.error(`${message}: ${err.message}${err.stack ? `\n${err.stack}` : ""}`);
    else if (err !== undefined) this.out.error(`${message}: ${String(err)}`);
    else this.out.error(message);
  }

  show(): void {
    this.out.show(true);
  }

  dispose(): void {
    this.channel?.dispose();
  }
}
