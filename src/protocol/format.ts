/**
 * One way to write each figure, everywhere: the tree, the panels, the CLI and messages. A user sees the same cost,
 * token count, size, time or entry label written the same way wherever it appears. No dependencies, so the
 * extension host, the CLI and the webview bundles all import it.
 */

/** US dollars: `$0.00`, `$0.0042` below a cent (cheap calls stay visible), `<$0.0001`, `$1,234.56`. */
export function formatCost(usd: number): string {
  if (!Number.isFinite(usd)) return "$?";
  if (usd === 0) return "$0.00";
  const sign = usd < 0 ? "-" : "";
  const abs = Math.abs(usd);
  if (abs < 0.0001) return `${sign}<$0.0001`;
  if (abs < 0.01) return `${sign}$${abs.toFixed(4)}`;
  return `${sign}$${grouped(abs.toFixed(2))}`;
}

/** `1234567.89` as `1,234,567.89`, without Intl (whose first use costs a webview tens of milliseconds). */
function grouped(digits: string): string {
  const [whole, fraction] = digits.split(".");
  const out = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return fraction === undefined ? out : `${out}.${fraction}`;
}

/** An upper bound in dollars, written as `formatCost` writes it but rounded up, so "at most" is never less. */
export function formatCostAtMost(usd: number): string {
  if (!Number.isFinite(usd) || usd <= 0) return formatCost(usd);
  const step = usd < 0.01 ? 1e-4 : 0.01;
  return formatCost(Math.ceil(usd / step - 1e-9) * step);
}

/**
 * The cost of a usage row whose records may carry no price (server compactions): `$1.20 *` when some do not (the
 * star's note says their cost is left out), `no price *` when none does.
 */
export function formatRowCost(row: { cost: number; unpriced: number; messages: number }): string {
  if (row.unpriced && row.unpriced === row.messages) return "no price *";
  return formatCost(row.cost) + (row.unpriced ? " *" : "");
}

/** The note a `*` in a cost refers to, or null when every record was priced. */
export function unpricedNote(unpriced: number): string | null {
  if (!unpriced) return null;
  const what = unpriced === 1 ? "1 server compaction" : `${formatCount(unpriced)} server compactions`;
  const them = unpriced === 1 ? "it" : "them";
  return `* ${what}: tokens counted; the provider gives no price, so the cost leaves ${them} out`;
}

/** A share as a whole percentage ("63%"); under 1 but above 0 reads "<1%". */
export function formatPercent(percent: number): string {
  if (percent > 0 && percent < 1) return "<1%";
  return `${Math.round(percent)}%`;
}

/** A token count at a glance: `950`, `48k`, `1.2M`. Exact counts (tables of totals) use `formatCount`. */
export function formatTokens(n: number): string {
  if (!Number.isFinite(n)) return "?";
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1000) return `${Math.round(n / 1000)}k`;
  return String(n);
}

/** An exact whole number with thousands separators: `1,234,567`. */
export function formatCount(n: number): string {
  if (Number.isSafeInteger(n)) return (n < 0 ? "-" : "") + grouped(String(Math.abs(n)));
  return n.toLocaleString("en-US");
}

/** `n` and the noun, plural unless one: `1 session`, `3 entries` (with the plural given). */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 ? singular : plural}`;
}

/** A file size: `512 B`, `4.0 KB`, `12.3 MB`. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 * 1024) return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${n} B`;
}

/** A span of time: `850 ms`, `12 s`, `3 min 4 s`, `2 h 5 min`, `3 d 4 h`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "-";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/** How long ago: `just now`, `5 min ago`, `3 h ago`, `2 d ago`, then the date (`2026-11-01`). */
export function relativeTime(ms: number, now = Date.now()): string {
  if (!Number.isFinite(ms) || ms <= 0) return "unknown time";
  const s = Math.round((now - ms) / 1000);
  if (s < 45) return "just now";
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 30) return `${d} d ago`;
  return formatDateTime(ms).slice(0, 10);
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/**
 * A moment as `2026-11-30 09:55` in local time (minutes), or `-` when unknown: the one way every view, hover and the
 * CLI's tables write a date and time (rows say how long ago with `relativeTime`).
 */
export function formatDateTime(time: number | string | null | undefined): string {
  const ms = typeof time === "string" ? Date.parse(time) : (time ?? Number.NaN);
  // A Date holds ±8.64e15 ms; past that it is invalid.
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return "-";
  const d = new Date(ms);
  const date = `${String(d.getFullYear()).padStart(4, "0")}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;
  return `${date} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
}

/** A moment's time of day, `09:55:12` local (`09:55:12.033` with `millis`): what tells apart two sessions of a day. */
export function formatTimeOfDay(ms: number, millis = false): string {
  const d = new Date(ms);
  const time = `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
  return millis ? `${time}.${String(d.getMilliseconds()).padStart(3, "0")}` : time;
}

/**
 * Characters a terminal acts on or that reorder or break a line: C0 controls but the newline, DEL, C1 controls,
 * bidirectional marks, overrides and isolates, and the Unicode line and paragraph separators.
 */
const TERMINAL_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
const TERMINAL_CONTROLS_AND_NEWLINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

const visibleEscape = (c: string) => {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
};

/**
 * Text for a terminal: every control character but the newline, DEL, C1 controls and bidirectional overrides are
 * written as visible escapes (`\x1b`, `\u202e`), so session text can change no title, clipboard, link or screen.
 */
export function terminalSafe(text: string): string {
  return text.replace(TERMINAL_CONTROLS, visibleEscape);
}

/** What `JSON.stringify` leaves raw and a terminal may act on, or that reorders a line: DEL, C1, bidi, separators. */
const JSON_RAW_CONTROLS = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/**
 * Raw output (JSON documents, exports) for stdout: those characters as JSON's own `\uXXXX` escapes, so a document
 * parses to the same values and no C1 control or override reaches the terminal live. C0 controls are JSON-escaped
 * already, and text output is `terminalSafe`.
 */
export function jsonSafe(text: string): string {
  return text.replace(JSON_RAW_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The controls of `terminalSafe` but the tab: what an export keeps of session text (indented code keeps its tabs). */
const EXPORT_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/**
 * A whole export (Markdown or HTML) as `terminalSafe` writes text, tabs kept: it goes to a terminal (no `-o`) or to a
 * file a viewer may show raw, so no escape, bell or bidirectional override of a session reaches either live.
 */
export function exportSafe(text: string): string {
  // A CRLF line end is a line end (Windows tool output); a lone CR, which returns over a line, is escaped.
  return text.replace(/\r\n/g, "\n").replace(EXPORT_CONTROLS, visibleEscape);
}

/** One field of a line or table row: `terminalSafe`, and newlines escaped too (a newline would forge a row). */
export function oneLine(text: string): string {
  return text.replace(TERMINAL_CONTROLS_AND_NEWLINE, visibleEscape);
}

/** Text on one line, whitespace collapsed, cut to `max` characters with an ellipsis (never inside a surrogate pair). */
export function truncate(text: string, max = 80): string {
  // Words joined by one space, walked only until one character more than fits: a long text (a pasted log) costs no
  // more than its start. The same as `text.replace(/\s+/g, " ").trim()` then cut, at a tenth of its time.
  let flat = "";
  let word = -1; // where the current word starts
  for (let i = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) {
      if (word >= 0) flat += (flat ? " " : "") + text.slice(word, i);
      word = -1;
      continue;
    }
    if (word < 0) word = i;
    if (flat.length + (flat ? 1 : 0) + (i + 1 - word) > max) {
      flat += (flat ? " " : "") + text.slice(word, i + 1);
      let end = max - 1;
      const last = flat.charCodeAt(end - 1);
      if (last >= 0xd800 && last <= 0xdbff) end--; // a high surrogate whose pair would be cut off
      return `${flat.slice(0, end)}…`;
    }
  }
  return word >= 0 ? flat + (flat ? " " : "") + text.slice(word) : flat;
}

/**
 * `truncate`, but a cut text ends at a word when one ends in the last quarter of `max` ("Fix the parser for…", not
 * "Fix the parser for ne…"): a row's label that reads as words.
 */
export function cutAtWord(text: string, max = 40): string {
  const cut = truncate(text, max);
  if (!cut.endsWith("…") || cut.length < max) return cut;
  const body = cut.slice(0, -1);
  const space = body.lastIndexOf(" ");
  return space >= Math.floor((max * 3) / 4) ? `${body.slice(0, space).replace(/[\s,;:.-]+$/, "")}…` : cut;
}

/** JavaScript's whitespace (`\s`, what `trim` removes): line terminators, tab, VT, FF and the space separators. */
function isSpace(c: number): boolean {
  if (c > 32 && c < 0xa0) return false;
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
