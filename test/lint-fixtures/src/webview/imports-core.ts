// Breaks: a webview bundle imports only ../protocol and its browser libraries.
import { parseSession } from "../core/session/index.js";
export const x = parseSession;
