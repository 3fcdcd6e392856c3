// Breaks: the CLI must not import vscode.
import * as vscode from "vscode";
export const x = vscode.version;
