/** The HTML export's style sheet: the page, the messages' Markdown, and highlight.js's classes, light and dark. */

/** The page: entries as bordered articles, muted headings and footers. */
export const CSS = `
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --card: #f6f8fa; --line: #d1d9e0;
  --user: #0969da; --error: #cf222e; --inherited: #8250df; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --card: #151b23;
  --line: #3d444d; --user: #4493f8; --error: #f85149; --inherited: #ab7df8; } }
body { font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); max-width: 60rem;
  margin: 2rem auto; padding: 0 1rem; }
header p { color: var(--muted); margin: 0.2rem 0; }
article { border-left: 3px solid var(--line); padding: 0.2rem 0 0.2rem 1rem; margin: 1.2rem 0; }
article.user { border-color: var(--user); }
article.error { border-color: var(--error); }
article.inherited { opacity: 0.75; }
article.note { border: none; padding-left: 0; color: var(--muted); font-size: 0.9em; }
h2 { font-size: 0.95rem; margin: 0 0 0.4rem; color: var(--muted); }
h2 a.anchor { color: inherit; text-decoration: none; } h2 a.anchor:hover { text-decoration: underline; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--card); border: 1px solid var(--line);
  border-radius: 6px; padding: 0.6rem; font: 13px/1.45 ui-monospace, monospace; }
details { margin: 0.4rem 0; } summary { cursor: pointer; color: var(--muted); }
.tool { font-family: ui-monospace, monospace; }
.footer, .inherited-mark { color: var(--muted); font-size: 0.85em; }
.inherited-mark { color: var(--inherited); }
.del { color: var(--error); } .card { background: var(--card); border-radius: 6px; padding: 0.6rem; }
img { max-width: 100%; border: 1px solid var(--line); }
`;

/** A message's Markdown (export/messageHtml.ts). */
export const MARKDOWN_CSS = `
.markdown { overflow-wrap: anywhere; }
.markdown > :first-child { margin-top: 0; } .markdown > :last-child { margin-bottom: 0; }
.markdown h3, .markdown h4, .markdown h5, .markdown h6 { margin: 0.8rem 0 0.3rem; }
.markdown code { font: 0.9em ui-monospace, monospace; background: var(--card); border-radius: 4px;
  padding: 0.1em 0.3em; }
.markdown pre code { background: none; padding: 0; font: inherit; }
.markdown blockquote { margin: 0.4rem 0; padding-left: 0.8rem; border-left: 3px solid var(--line);
  color: var(--muted); }
.markdown table { border-collapse: collapse; margin: 0.4rem 0; display: block; overflow-x: auto; }
.markdown th, .markdown td { border: 1px solid var(--line); padding: 0.2rem 0.5rem; }
.markdown .align-left { text-align: left; } .markdown .align-right { text-align: right; }
.markdown .align-center { text-align: center; }
.markdown a { color: var(--user); }
.image-ref { color: var(--muted); font-style: italic; }
`;

/** highlight.js's classes, in GitHub's colours. */
export const HIGHLIGHT_CSS = `
:root { --hl-keyword: #cf222e; --hl-title: #8250df; --hl-string: #0a3069; --hl-number: #0550ae;
  --hl-comment: #59636e; --hl-name: #116329; --hl-meta: #953800; }
@media (prefers-color-scheme: dark) { :root { --hl-keyword: #ff7b72; --hl-title: #d2a8ff; --hl-string: #a5d6ff;
  --hl-number: #79c0ff; --hl-comment: #9198a1; --hl-name: #7ee787; --hl-meta: #ffa657; } }
.hljs-keyword, .hljs-doctag, .hljs-template-tag, .hljs-type, .hljs-variable.language_ { color: var(--hl-keyword); }
.hljs-title, .hljs-title.class_, .hljs-title.function_ { color: var(--hl-title); }
.hljs-attr, .hljs-attribute, .hljs-literal, .hljs-meta, .hljs-number, .hljs-operator, .hljs-variable,
  .hljs-selector-attr, .hljs-selector-class, .hljs-selector-id { color: var(--hl-number); }
.hljs-regexp, .hljs-string, .hljs-meta .hljs-string { color: var(--hl-string); }
.hljs-built_in, .hljs-symbol, .hljs-params { color: var(--hl-meta); }
.hljs-comment, .hljs-code, .hljs-formula { color: var(--hl-comment); font-style: italic; }
.hljs-name, .hljs-quote, .hljs-selector-tag, .hljs-selector-pseudo, .hljs-addition { color: var(--hl-name); }
.hljs-deletion { color: var(--error); } .hljs-section { color: var(--hl-number); font-weight: bold; }
.hljs-emphasis { font-style: italic; } .hljs-strong { font-weight: bold; }
`;
