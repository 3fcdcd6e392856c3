// The one way figures are written (src/protocol/format.ts): what the tree, the panels and the CLI all show.
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  countOf,
  formatBytes,
  formatCost,
  formatCostAtMost,
  formatDuration,
  formatDateTime,
  formatTokens,
  oneLine,
  relativeTime,
  terminalSafe,
  truncate,
  cutAtWord,
} from "../../src/protocol/format.js";

describe("format", () => {
  it("cost: cents, four decimals below a cent, thousands separators", () => {
    assert.deepEqual([0, 0.00004, 0.0042, 0.01, 0.284, 12.345, 1234.5, -0.0042].map(formatCost), [
      "$0.00",
      "<$0.0001",
      "$0.0042",
      "$0.01",
      "$0.28",
      "$12.35",
      "$1,234.50",
      "-$0.0042",
    ]);
  });

  it("an upper bound is rounded up, never down", () => {
    assert.deepEqual([0.0149, 0.01, 0.00421, 2.001].map(formatCostAtMost), ["$0.02", "$0.01", "$0.0043", "$2.01"]);
  });

  it("tokens, counts, bytes and relative times", () => {
    assert.deepEqual([950, 4123, 48_400, 1_234_567].map(formatTokens), ["950", "4k", "48k", "1.2M"]);
    assert.equal(countOf(1, "entry", "entries"), "1 entry");
    assert.equal(countOf(1234, "session"), "1,234 sessions");
    assert.deepEqual([512, 4096, 12.3 * 1024 * 1024].map(formatBytes), ["512 B", "4.0 KB", "12.3 MB"]);
    const now = Date.parse("2026-11-30T12:00:00Z");
    assert.equal(relativeTime(now - 10_000, now), "just now");
    assert.equal(relativeTime(now - 5 * 60_000, now), "5 min ago");
    assert.equal(relativeTime(now - 40 * 86_400_000, now), "2026-10-21");
  });

  it("date and time: local, to the minute, one format (checked in a process with another time zone)", () => {
    const script =
      'import { formatDateTime, formatTimeOfDay } from "./src/protocol/format.ts";' +
      'const t = Date.parse("2026-11-30T22:55:07Z");' +
      "const iso = new Date(t).toISOString();" +
      "console.log(JSON.stringify([formatDateTime(t), formatDateTime(iso), formatTimeOfDay(t)]));";
    const run = (tz: string) =>
      JSON.parse(
        execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
          env: { ...process.env, TZ: tz },
          encoding: "utf8",
        }),
      ) as string[];
    assert.deepEqual(run("UTC"), ["2026-11-30 22:55", "2026-11-30 22:55", "22:55:07"]);
    // Kolkata is UTC+05:30: the next day, half past.
    assert.deepEqual(run("Asia/Kolkata"), ["2026-12-01 04:25", "2026-12-01 04:25", "04:25:07"]);
    assert.equal(formatDateTime(null), "-");
  });

  it("durations: ms below a second, then the two largest units", () => {
    assert.deepEqual(
      [850, 12_400, 60_000, 184_000, 7_500_000, 3 * 86_400_000 + 4 * 3_600_000, -1].map(formatDuration),
      ["850 ms", "12 s", "1 min", "3 min 4 s", "2 h 5 min", "3 d 4 h", "-"],
    );
  });

  it("terminal text: controls, DEL, C1 and bidi overrides become visible escapes; oneLine escapes newlines too", () => {
    assert.equal(
      terminalSafe("a\u001b[2Jb\u0007\u007f\u009b\u202e\u2066\nc"),
      "a\\x1b[2Jb\\x07\\x7f\\x9b\\u202e\\u2066\nc",
    );
    assert.equal(oneLine("x\nFORGED\r\t"), "x\\x0aFORGED\\x0d\\x09");
    assert.equal(terminalSafe("plain ünïcode ✓"), "plain ünïcode ✓");
    // Bidi marks and the Unicode line and paragraph separators (a terminal or viewer breaks the row at them).
    assert.equal(oneLine("a\u2028b\u2029c\u200e\u200f\u061cd"), "a\\u2028b\\u2029c\\u200e\\u200f\\u061cd");
  });

  it("truncate: one line, cut with an ellipsis, never inside a surrogate pair", () => {
    assert.equal(truncate("a  b\n c", 80), "a b c");
    assert.equal(truncate("abcdef", 4), "abc…");
    // "😀" is two UTF-16 units: cut before it rather than leave half of it (a lone surrogate is invalid JSON text).
    const cut = truncate(`${"y".repeat(2)}😀zz`, 4);
    assert.equal(cut, "yy…");
    assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(truncate(`${"N".repeat(38)}😀tail`, 40)));
    assert.equal(truncate(`${"y".repeat(2)}😀zz`, 5), "yy😀…");
  });

  it("cutAtWord: a cut label ends at a word when one ends in its last quarter", () => {
    assert.equal(cutAtWord("short", 40), "short");
    assert.equal(
      cutAtWord("Fix the parser for negative amounts in the bank CSV", 40),
      "Fix the parser for negative amounts in…",
    );
    // No word ends late enough: cut where the characters run out.
    assert.equal(cutAtWord("Fix supercalifragilisticexpialidociousnesses", 20), "Fix supercalifragil…");
    assert.equal(cutAtWord("one two, three", 11), "one two…", "punctuation before the cut goes");
    assert.ok(cutAtWord("x ".repeat(100), 40).length <= 40);
  });

  it("truncate walks the text only as far as it shows, with the result of collapsing the whole text", () => {
    // The definition: every run of whitespace becomes one space, the ends are trimmed, then the cut.
    const whole = (text: string, max: number) => {
      const flat = text.replace(/\s+/g, " ").trim();
      if (flat.length <= max) return flat;
      const end = max - 1 - (/[\ud800-\udbff]/.test(flat[max - 2] ?? "") ? 1 : 0);
      return `${flat.slice(0, end)}…`;
    };
    const spaces = ["\t", "\v", "\f", "\r", "\u00a0", "\u1680", "\u2000", "\u200a", "\u2028", "\u2029", "\u202f"];
    spaces.push("\u205f", "\u3000", "\ufeff");
    const near = ["\u200b", "\u0085", "\u180e", "\u1fff", "\u200c"]; // close to whitespace, and not
    const pieces = ["a", "word ", " ", "\n\n", "😀", "x".repeat(90), " ".repeat(700), ...spaces, ...near];
    let seed = 7;
    const next = () => {
      seed ^= seed << 13; // xorshift32: integer arithmetic only
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 4294967296;
    };
    for (let i = 0; i < 3000; i++) {
      let text = "";
      const n = Math.floor(next() * 60);
      for (let k = 0; k < n; k++) text += pieces[Math.floor(next() * pieces.length)];
      for (const max of [4, 40, 80, 200]) assert.equal(truncate(text, max), whole(text, max), JSON.stringify(text));
    }
    // A long run of whitespace before the text, and one long word.
    assert.equal(truncate(`${" ".repeat(100_000)}late  text`, 80), "late text");
    assert.equal(truncate(`${"w".repeat(100_000)} end`, 5), "wwww…");
  });
});
