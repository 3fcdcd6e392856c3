/**
 * What a session is called in the extension's own text: the store's rule (`sessionTitle`: a fork says what it did),
 * with its words translated.
 */
import * as vscode from "vscode";
import { sessionTitle, type StoreSession } from "../node/store/index.js";
import { truncate } from "../protocol/format.js";
import { type Branch, branchNumbers } from "../core/branches.js";

/** A fork with no prompt of its own, named by the last prompt it copied (where it forked), what differs first: the
 * tree's rows say it the same way ("after “…”"). */
const noNewPromptText = (last: string | null) =>
  last ? vscode.l10n.t("after “{0}” (no new prompt)", truncate(last, 60)) : vscode.l10n.t("(no new prompt)");

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

/** A branch's one name everywhere (tree, transcript switcher, compare): "Branch 2/3: its first prompt". */
export function branchTitle(b: Pick<Branch, "number" | "of" | "name">): string {
  return vscode.l10n.t("Branch {0}/{1}: {2}", b.number, b.of, b.name);
}

/**
 * A leaf named by the branches taken to reach it (`branchesOnPath`), outermost first: "Branch 2/2: …" under one
 * branch point, "Branch 2/2 › 1/3: …" under two; null when no branch point is above it.
 */
export function leafBranchTitle(path: readonly Branch[]): string | null {
  const inner = path.at(-1);
  if (!inner) return null;
  if (path.length === 1) return branchTitle(inner);
  return vscode.l10n.t("Branch {0}: {1}", branchNumbers(path), inner.name);
}
