/**
 * Counted nouns in the extension's own text, translatable: VS Code's l10n has no plural rules, so each noun has a
 * string for one and one for many (the CLI writes them with `countOf` in the format module).
 */
import * as vscode from "vscode";
import { formatCount } from "../protocol/format.js";

export const sessionsText = (n: number) =>
  n === 1 ? vscode.l10n.t("1 session") : vscode.l10n.t("{0} sessions", formatCount(n));
export const projectsText = (n: number) =>
  n === 1 ? vscode.l10n.t("1 project") : vscode.l10n.t("{0} projects", formatCount(n));
export const forksText = (n: number) =>
  n === 1 ? vscode.l10n.t("1 fork") : vscode.l10n.t("{0} forks", formatCount(n));
export const entriesText = (n: number) =>
  n === 1 ? vscode.l10n.t("1 entry") : vscode.l10n.t("{0} entries", formatCount(n));
export const problemsText = (n: number) =>
  n === 1 ? vscode.l10n.t("1 problem") : vscode.l10n.t("{0} problems", formatCount(n));
