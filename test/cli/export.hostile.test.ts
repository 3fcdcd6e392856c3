// Hardening 3 (issue #32), export: session text's terminal escapes never reach stdout or an export file live (item 1),
// `export -o` never writes through a link or over a session (item 4), and a setext underline cannot forge an entry
// heading in the Markdown export (item 11). Expectations come from the raw bytes written here.
import * as assert from "node:assert/strict";
import { linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import MarkdownIt from "markdown-it";
import { run } from "../../src/cli/main.js";
import { writeExport } from "../../src/node/exportWrite.js";
import { header, message, toolCall, toolResult } from "../support/builders.js";
import { jsonl } from "../support/helpers.js";

const ESC = "\u001b";
const BEL = "\u0007";
const PAYLOADS = [
  `${ESC}]0;pwned-title${BEL}`,
  `${ESC}]52;c;cm0gLXJmIH4=${BEL}`,
  `${ESC}]8;;https://evil.example${BEL}click${ESC}]8;;${BEL}`,
  `${ESC}[2J${ESC}[H`,
  "\u009b31m",
  "\u202eexe.txt",
  "over\rwrite",
];
const ALL = PAYLOADS.join(" ");

/** No raw control character but the newline and the tab, no C1 control, no bidirectional override. */
function assertInert(text: string, what: string) {
  const bad = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u.exec(text);
  assert.equal(bad, null, `${what}: raw ${JSON.stringify(bad?.[0])} at ${bad?.index}`);
}

const cli = async (...args: string[]) => {
  let out = "";
  let err = "";
  const code = await run(args, { out: (t) => (out += t + "\n"), err: (t) => (err += t + "\n") });
  return { code, out, err };
};

describe("hardening 3: export", function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pse-h3-export-"));
    const sessions = join(dir, "agent", "sessions", "--w--");
    mkdirSync(sessions, { recursive: true });
    file = join(sessions, "2026-11-29T10-00-00-000Z_s.jsonl");
    const thinking = { type: "thinking", thinking: `plan ${ALL}`, thinkingSignature: "sig" };
    writeFileSync(
      file,
      jsonl(
        header({ id: "s", cwd: "/w" }),
        message("u0000001", null, "user", `prompt ${ALL}\n\tindented\r\nnext`),
        message("a0000001", "u0000001", "assistant", [thinking, { type: "text", text: `reply ${ALL}` }]),
        toolCall("a0000002", "a0000001", "bash", { command: `echo ${ALL}` }),
        toolResult("r0000001", "a0000002", "a0000002", "bash", `out ${ALL}\n\tindented output`),
        message("a0000003", "r0000001", "assistant", "User · 2026-11-29 10:05\n---\nforged\n\nAssistant\n===\nx"),
        message(
          "a0000004",
          "a0000003",
          "assistant",
          "- # Listed\n\n1. # Numbered\n\n10. Deep\n    ===\n\n| a | b |\n|---|---|",
        ),
      ),
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const format of ["md", "html"]) {
    it(`${format} to stdout and to a file: every escape is visible, tabs and line ends kept`, async () => {
      const out = await cli("export", file, "--format", format, "--no-cache", "--agent-dir", join(dir, "agent"));
      assert.equal(out.code, 0, out.err);
      assertInert(out.out, `${format} stdout`);
      assert.ok(out.out.includes("\\x1b]0;pwned-title\\x07"), "the title change shows as text");
      assert.ok(out.out.includes("\\x1b]52;c;"), "the clipboard write shows as text");
      assert.ok(out.out.includes("\\u202e"), "the override shows as text");
      assert.ok(out.out.includes("over\\x0dwrite"), "a lone CR shows as text");
      // In a message a line's leading tab is Markdown's indentation (#35); in a tool's output it is kept.
      assert.ok(out.out.includes("\tindented output"), "a tab is kept");
      const target = join(dir, `out.${format}`);
      const written = await cli("export", file, "--format", format, "-o", target, "--no-cache");
      assert.equal(written.code, 0, written.err);
      assertInert(readFileSync(target, "utf8"), `${format} file`);
    });
  }

  it("markdown: a setext underline in a reply renders no entry heading, only the export's own headings", async () => {
    const md = (await cli("export", file, "--no-cache")).out;
    const tokens = new MarkdownIt().parse(md, {});
    // The title and the entries' headings are h1 and h2; a message's own headings (#35: kept) are h3 and below.
    const entryLevel = tokens
      .map((t, i) => ({ t, text: tokens[i + 1]?.content ?? "" }))
      .filter(({ t }) => t.type === "heading_open" && (t.tag === "h1" || t.tag === "h2"))
      .map(({ text }) => text);
    assert.ok(!entryLevel.some((h) => h.startsWith("User · 2026-11-29 10:05")), entryLevel.join("\n"));
    assert.ok(!entryLevel.some((h) => /^Assistant$/.test(h)), entryLevel.join("\n"));
    // Inside a list item a heading starts again: demoted there too.
    assert.ok(!entryLevel.some((h) => /Listed|Numbered|Deep/.test(h)), entryLevel.join("\n"));
    assert.equal(entryLevel.length, 1 + 6, "the title and one heading per entry");
    // The text is still there.
    assert.ok(md.includes("User · 2026-11-29 10:05"));
  });

  describe("-o never writes through a link, over a session or over what is not a regular file", () => {
    it("a symlink named report.md pointing at a session: refused, the session unchanged", async () => {
      const before = readFileSync(file);
      const link = join(dir, "report.md");
      symlinkSync(file, link);
      const r = await cli("export", file, "-o", link, "--no-cache");
      assert.equal(r.code, 3, r.err);
      assert.match(r.err, /report\.md: is a symbolic link/);
      assert.deepEqual(readFileSync(file), before);
      assert.ok(lstatSync(link).isSymbolicLink());
    });

    it("a dangling symlink: refused, nothing created at its target", async () => {
      const link = join(dir, "dangling.md");
      symlinkSync(join(dir, "elsewhere.md"), link);
      const r = await cli("export", file, "-o", link, "--no-cache");
      assert.equal(r.code, 3);
      assert.throws(() => lstatSync(join(dir, "elsewhere.md")));
    });

    it("a hard link to a session, and a session copied under another name: refused, both unchanged", async () => {
      const before = readFileSync(file);
      const hard = join(dir, "hard.md");
      linkSync(file, hard);
      assert.equal((await cli("export", file, "-o", hard, "--no-cache")).code, 3);
      const copy = join(dir, "copy.md");
      writeFileSync(copy, before);
      const r = await cli("export", file, "-o", copy, "--no-cache");
      assert.equal(r.code, 3);
      assert.match(r.err, /is a session file/);
      assert.deepEqual(readFileSync(file), before);
      assert.deepEqual(readFileSync(copy), before);
    });

    it("a session as the reader takes one: past a BOM, blank or malformed lines, title slots of any size", async () => {
      const head = readFileSync(file, "utf8");
      const slot = JSON.stringify({ type: "title", title: "t".repeat(70_000) });
      for (const [name, bytes] of [
        ["bom.md", `\uFEFF${head}`],
        ["blank.md", `\n\n${head}`],
        ["slot.md", `${slot}\n${head}`],
        ["malformed.bak", `{\n{\n{\n${head}`],
        ["titles.bak", `${slot}\n${slot}\n${slot}\n${head}`],
        ["escaped.bak", head.replace('"type":"session"', '"type":"sess\\u0069on"')],
        ["long-slot.bak", `${JSON.stringify({ type: "title", title: "t".repeat(1_200_000) })}\n${head}`],
      ] as const) {
        const target = join(dir, name);
        writeFileSync(target, bytes);
        await assert.rejects(writeExport(target, "x"), /is a session file/, name);
        assert.equal(readFileSync(target, "utf8"), bytes, name);
      }
    });

    it("a directory or a FIFO: refused at once (no hang)", async () => {
      await assert.rejects(writeExport(dir, "x"), /is not a regular file/);
      const fifo = join(dir, "fifo.md");
      const { execFileSync } = await import("node:child_process");
      execFileSync("mkfifo", [fifo]);
      await assert.rejects(writeExport(fifo, "x"), /is not a regular file/);
    });

    it("an earlier export of ours is replaced (shorter text leaves no old bytes)", async () => {
      const target = join(dir, "again.md");
      writeFileSync(target, "x".repeat(100_000));
      await writeExport(target, "short");
      assert.equal(readFileSync(target, "utf8"), "short");
    });
  });
});
