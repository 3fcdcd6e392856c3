/** What every rendering of session Markdown shares: the transcript view and both exports. */

/** Code longer than this is shown plain: highlighting it would stall the page, or an export of a large session. */
export const HIGHLIGHT_MAX = 20_000;

/**
 * The links an export keeps as links: the web and mail. Any other scheme (javascript:, command:, file:, data:) stays
 * the text it was written as, so a reader sees what it is and nothing runs when it is clicked.
 */
export function isExportLink(url: string): boolean {
  return /^(https?:\/\/|mailto:)/i.test(url);
}
