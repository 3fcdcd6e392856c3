// Passes: a webview bundle may import the protocol, itself and its browser libraries.
import MarkdownIt from "markdown-it";
import type { PanelModel } from "../protocol/views.js";
import { h } from "./common.js";
export const x: [unknown, PanelModel | null, unknown] = [MarkdownIt, null, h];
