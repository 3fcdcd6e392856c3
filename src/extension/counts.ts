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

/** A fork count that says what it counts: "3 forks", or "3 forks (1 direct)" when forks of forks are among them. */
export const forksBelowText = (total: number, direct: number) =>
  total === direct ? forksText(total) : vscode.l10n.t("{0} ({1} direct)", forksText(total), formatCount(direct));

/**
 * What a list of session rows holds: "10 sessions", or "3 families · 10 sessions" when rows stand for fork families
 * (the rows are the families; the sessions are every one in them).
 */
export function rowsText(rows: number, sessions: number): string {
  if (rows === sessions) return sessionsText(sessions);
  const families = rows === 1 ? vscode.l10n.t("1 family") : vscode.l10n.t("{0} families", formatCount(rows));
  return `${families} · ${sessionsText(sessions)}`;
}

/** A branch's own entries, from its branch point on (the transcript counts the whole path from the root). */
export const entriesFromHereText = (n: number) =>
  n === 1
    ? vscode.l10n.t("1 entry from the branch point")
    : vscode.l10n.t("{0} entries from the branch point", formatCount(n));
