/**
 * The two ways a command's session can be wrong, said one way everywhere: the file is not a session the store
 * listed (commands open nothing outside the configured roots), or the session cannot be read (its first bad line).
 */
import { basename } from "node:path";
import * as vscode from "vscode";
import type { Rejection } from "../core/diagnostics.js";

/** The file is not a session under the configured session roots (or no session was given). */
export class NotASessionError extends Error {
  constructor(readonly file: string | undefined) {
    super(
      file === undefined
        ? vscode.l10n.t("no session selected")
        : vscode.l10n.t("{0} is not a session under the configured session roots", file),
    );
    this.name = "NotASessionError";
  }
}

/** The session was rejected by the reader: the file, the line and the reason. */
export class UnreadableSessionError extends Error {
  constructor(
    readonly file: string,
    readonly rejection: Rejection,
  ) {
    super(vscode.l10n.t("{0} cannot be read: line {1}: {2}", basename(file), rejection.line, rejection.message));
    this.name = "UnreadableSessionError";
  }
}
