/**
 * Plain-text tables for the CLI's text output. Every cell is made inert (`oneLine`) here, whatever the caller did,
 * and measured by display width (string-width: CJK and emoji take two columns, combining marks none), so columns line
 * up in a terminal. A table wider than the terminal shrinks its widest text columns, cutting cells with `…`.
 */
import stringWidth from "string-width";
import { oneLine } from "../protocol/format.js";

export interface TableStyle {
  /** The terminal's width; undefined when the output is not a terminal (nothing is cut). */
  columns?: number;
  /** ANSI styles: a bold header and total, a dim rule. Only for a terminal that wants colour. */
  color?: boolean;
}

/** Narrowest a text column is cut to (its header may be cut too). */
const MIN_COLUMN = 6;
const GAP = "  ";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** `text` cut to at most `max` display columns, ending in `…` when cut. */
export function fitWidth(text: string, max: number): string {
  if (stringWidth(text) <= max) return text;
  let out = "";
  let width = 0;
  for (const { segment } of segmenter.segment(text)) {
    const w = stringWidth(segment);
    if (width + w > max - 1) break;
    out += segment;
    width += w;
  }
  return `${out}…`;
}

function pad(text: string, width: number, right: boolean): string {
  const fill = " ".repeat(Math.max(0, width - stringWidth(text)));
  return right ? fill + text : text + fill;
}

/** Column widths that fit `columns`: the widest text columns give way first, never below MIN_COLUMN. */
function fitColumns(widths: number[], rightAligned: number[], columns: number | undefined): number[] {
  const fitted = [...widths];
  if (!columns) return fitted;
  const total = () => fitted.reduce((a, b) => a + b, 0) + GAP.length * (fitted.length - 1);
  while (total() > columns) {
    let widest = -1;
    for (let i = 0; i < fitted.length; i++)
      if (!rightAligned.includes(i) && fitted[i]! > MIN_COLUMN && (widest < 0 || fitted[i]! > fitted[widest]!))
        widest = i;
    if (widest < 0) break; // only numbers left: a terminal this narrow wraps
    fitted[widest]!--;
  }
  return fitted;
}

/** Left-aligned columns, except the right-aligned ones; a rule under the header (and above a totals row). */
export function formatTable(
  rows: string[][],
  rightAligned: number[],
  totalsRow = false,
  style: TableStyle = {},
): string {
  const safe = rows.map((r) => r.map((c) => oneLine(c ?? "")));
  // A reduce, not Math.max(...): a spread of 100,000+ rows overflows the stack.
  const natural = safe[0]!.map((_, i) => safe.reduce((w, r) => Math.max(w, stringWidth(r[i] ?? "")), 0));
  const widths = fitColumns(natural, rightAligned, style.columns);
  const paint = (code: string, text: string) => (style.color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const fmt = (r: string[]) =>
    r
      .map((c, i) => pad(fitWidth(c, widths[i]!), widths[i]!, rightAligned.includes(i)))
      .join(GAP)
      .trimEnd();
  const rule = paint("2", widths.map((w) => "─".repeat(w)).join(GAP));
  const body = safe.slice(1, totalsRow ? -1 : undefined).map(fmt);
  const lines = [paint("1", fmt(safe[0]!)), rule, ...body];
  if (totalsRow) lines.push(rule, paint("1", fmt(safe[safe.length - 1]!)));
  return lines.join("\n");
}

/** The random tail of a session id (UUIDv7 ids share their time prefix). */
export function shortId(id: string | null): string {
  return id ? oneLine(id.slice(-8)) : "";
}
