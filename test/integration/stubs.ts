// Answers to the extension's dialogs, for the in-host tests: the extension always asks (a confirmation, an input
// box), and a test answers as a user would. The real window functions are put back by `restore()`.
import * as vscode from "vscode";

export interface Answers {
  /** What a modal information or warning dialog answers (its button's title), else dismissed. */
  modal?: string;
  /** What an input box returns (undefined: cancelled). */
  input?: string;
  /** Which quick pick item is taken: the first whose label includes this text (else the pick is dismissed). */
  pick?: string;
}

export interface UiStub {
  /** Every dialog shown: its kind and message (or title). */
  shown: { kind: "information" | "warning" | "error" | "input"; text: string; modal: boolean; detail?: string }[];
  /** Every quick pick shown (from a list of items): its title and its items' labels, in order. */
  picks: { title: string; labels: string[] }[];
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
    showQuickPick: w.showQuickPick,
  };
  const shown: UiStub["shown"] = [];
  const message =
    (kind: "information" | "warning" | "error") =>
    async (text: unknown, ...rest: unknown[]) => {
      const options = rest[0] && typeof rest[0] === "object" ? (rest[0] as { modal?: boolean; detail?: string }) : {};
      const modal = !!options.modal;
      shown.push({ kind, text: String(text), modal, ...(options.detail ? { detail: options.detail } : {}) });
      return modal ? answers.modal : undefined;
    };
  w.showInformationMessage = message("information");
  w.showWarningMessage = message("warning");
  w.showErrorMessage = message("error");
  w.showInputBox = async (options: unknown) => {
    shown.push({ kind: "input", text: String((options as { title?: string } | undefined)?.title ?? ""), modal: false });
    return answers.input;
  };
  const picks: UiStub["picks"] = [];
  w.showQuickPick = async (items: unknown, options: unknown) => {
    const list = (await items) as vscode.QuickPickItem[];
    const labels = list.map((i) => i.label);
    picks.push({ title: String((options as { title?: string } | undefined)?.title ?? ""), labels });
    return answers.pick === undefined ? undefined : list.find((i) => i.label.includes(answers.pick!));
  };
  return { shown, picks, restore: () => Object.assign(w, saved) };
}
