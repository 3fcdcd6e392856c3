// Breaks: src/node must not import vscode.
import * as vscode from "vscode";
export const x = vscode.version;
