/** Fenced blocks no text inside can close: the Markdown export's code, outputs and arguments. */

/** The longest run of backticks in `text`. */
export function longestBacktickRun(text: string): number {
  // A loop, not Math.max(...runs): a spread of 100,000+ runs overflows the stack.
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) if (m[0].length > longest) longest = m[0].length;
  return longest;
}

/** A backtick fence longer than any backtick run in `text` (at least three). */
function fenceFor(text: string): string {
  return "`".repeat(Math.max(3, longestBacktickRun(text) + 1));
}

/** A fenced block that no backtick run in `text` can close. */
export function fenced(text: string, lang = "text"): string {
  const fence = fenceFor(text);
  return `${fence}${lang}\n${text}${text.endsWith("\n") || !text ? "" : "\n"}${fence}`;
}

/** One line as an inline code span no backtick run inside it can close (shown literally, markup inert). */
export function codeSpan(text: string): string {
  const line = text.replace(/[\r\n]+/g, " ");
  const ticks = "`".repeat(longestBacktickRun(line) + 1);
  const pad = line.startsWith("`") || line.endsWith("`") || !line.trim() ? " " : "";
  return `${ticks}${pad}${line}${pad}${ticks}`;
}
