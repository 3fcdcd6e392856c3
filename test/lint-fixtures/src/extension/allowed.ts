// Passes: the extension may use vscode, the lower layers, and the tree's index.
import * as vscode from "vscode";
import { loadStore } from "../node/store/index.js";
import { SessionsTreeProvider } from "./tree/index.js";
export const x = [vscode.version, loadStore, SessionsTreeProvider];
