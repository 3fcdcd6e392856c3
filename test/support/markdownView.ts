// How a reader sees Markdown: a permissive viewer (markdown-it with raw HTML allowed, as GitHub and VS Code's preview
// allow some) for exports, and the plain text of rendered HTML, for comparing what an export shows with what a
// message says.
import MarkdownIt from "markdown-it";

/** The worst viewer: raw HTML passes through, bare URLs become links, every link scheme markdown-it allows. */
export const permissiveViewer = new MarkdownIt({ html: true, linkify: true });

/**
 * The same viewer without its links of bare URLs: an export escapes punctuation in text, and linkify, which runs
 * before escaped characters join the text around them, may then link a bare address the message did not (a mail
 * address before `__`). A web or mail link, nothing else; what a reader sees is compared without it.
 */
export const permissiveUnlinkedViewer = new MarkdownIt({ html: true, linkify: false });

/** A message as its author's viewer reads it (raw HTML as text), images shown as `[image: alt]` and their URL. */
export const messageViewer = new MarkdownIt({ html: false, linkify: true });
messageViewer.validateLink = (url) => /^(https?:\/\/|mailto:)/i.test(url);
messageViewer.renderer.rules.image = (tokens, i) => {
  const t = tokens[i]!;
  const src = String(t.attrGet("src") ?? "");
  const esc = messageViewer.utils.escapeHtml;
  // Its alt as a reader sees it: the words of its label (escapes and entities read), on one line.
  const alt = (t.children ?? [])
    .map((c) => c.content)
    .join("")
    .replace(/\s+/g, " ")
    .trim();
  return esc(`[image: ${alt || "untitled"}]`) + (src ? ` (<code>${esc(src)}</code>)` : "");
};

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" };

/** The text a browser shows for `html` (tags dropped, entities decoded), whitespace collapsed. */
export function plainText(html: string): string {
  return (
    html
      // Inline elements (highlighted code's spans, links, emphasis) join their text; block elements separate it.
      .replace(/<\/?(span|a|code|em|strong|s)\b[^>]*>/g, "")
      .replace(/<[^>]*>/g, " ")
      .replace(/&(amp|lt|gt|quot|#39|#(\d+)|#x([0-9a-f]+));/gi, (m, name: string, dec?: string, hex?: string) =>
        dec ? String.fromCodePoint(Number(dec)) : hex ? String.fromCodePoint(parseInt(hex, 16)) : (ENTITIES[name] ?? m),
      )
      .replace(/\s+/g, " ")
      .trim()
  );
}

/** Every start tag in `html`: its name and its attributes as written. */
export function startTags(html: string): { name: string; attrs: string }[] {
  return [...html.matchAll(/<([a-zA-Z][\w-]*)([^>]*)>/g)].map((m) => ({ name: m[1]!.toLowerCase(), attrs: m[2]! }));
}
