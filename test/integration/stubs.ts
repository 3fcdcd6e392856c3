// Answers to the extension's dialogs, for the in-host tests: the extension always asks (a confirmation, an input
// box), and a test answers as a user would. The real window functions are put back by `restore()`.
import * as vscode from "vscode";

export interface Answers {
  /** What a modal information or warning dialog answers (its button's title), else dismissed. */
  modal?: string;
  /** What an input box returns (undefined: cancelled). */
  input?: string;
}

export interface UiStub {
  /** Every dialog shown: its kind and message (or title). */
  shown: { kind: "information" | "warning" | "error" | "input"; text: string; modal: boolean }[];
  restore(): void;
}

type Window = Record<string, (...args: unknown[]) => unknown>;

export function stubUi(answers: Answers): UiStub {
  const w = vscode.window as unknown as Window;
  const saved = {
    showInformationMessage: w.showInformationMessage,
    showWarningMessage: w.showWarningMessage,
    showErrorMessage: w.showErrorMessage,
    showInputBox: w.showInputBox,
  };
  const shown: UiStub["shown"] = [];
  const message =
    (kind: "information" | "warning" | "error") =>
    async (text: unknown, ...rest: unknown[]) => {
      const modal = !!(rest[0] && typeof rest[0] === "object" && (rest[0] as { modal?: boolean }).modal);
      shown.push({ kind, text: String(text), modal });
      return modal ? answers.modal : undefined;
    };
  w.showInformationMessage = message("information");
  w.showWarningMessage = message("warning");
  w.showErrorMessage = message("error");
  w.showInputBox = async (options: unknown) => {
    shown.push({ kind: "input", text: String((options as { title?: string } | undefined)?.title ?? ""), modal: false });
    return answers.input;
  };
  return { shown, restore: () => Object.assign(w, saved) };
}
