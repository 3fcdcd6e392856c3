// Breaks: src/protocol imports only itself and zod (not another package).
import MarkdownIt from "markdown-it";
export const x = MarkdownIt;
