/** Plain-text tables for the CLI's text output. */
import { oneLine } from "../protocol/format.js";

/** Left-aligned columns, except the right-aligned ones; a rule under the header (and above a totals row). */
export function formatTable(rows: string[][], rightAligned: number[], totalsRow = false): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const fmt = (r: string[]) =>
    r
      .map((c, i) => (rightAligned.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  const rule = widths.map((w) => "─".repeat(w)).join("  ");
  const lines = [fmt(rows[0]!), rule, ...rows.slice(1, totalsRow ? -1 : undefined).map(fmt)];
  if (totalsRow) lines.push(rule, fmt(rows[rows.length - 1]!));
  return lines.join("\n");
}

/** The random tail of a session id (UUIDv7 ids share their time prefix). */
export function shortId(id: string | null): string {
  return id ? oneLine(id.slice(-8)) : "";
}
