// The team transcript's sections (issue #39), rendered as a permissive viewer shows them: what each entry is called,
// from its kind, or from its units in rows sent before kinds were kept; fields of ours that session text cannot
// bend. Expectations are the texts given here.
import * as assert from "node:assert/strict";
import { field } from "../../../src/core/export/markdown.js";
import { teamEntryMarkdown, type TeamTranscriptEntry } from "../../../src/core/export/teamMarkdown.js";
import { permissiveViewer, plainText } from "../../support/markdownView.js";

const entry = (kind: string | null, units: [string, string | null, string][], entryId = "e1"): TeamTranscriptEntry => ({
  entryId,
  kind,
  time: null,
  units: units.map(([role, tool, text], part) => ({ part, role, tool, text })),
});
const shown = (e: TeamTranscriptEntry) => plainText(permissiveViewer.render(teamEntryMarkdown(e)));

describe("team transcript sections", () => {
  it("a reply's calls are calls; a result's output is output; in older rows, one tool unit is not guessed", () => {
    const reply = entry("assistant", [["tool", "bash", "bash ls -la"]]);
    assert.match(shown(reply), /^Assistant entry e1 Tool call bash \(11 characters\) bash ls -la$/);
    assert.match(shown(entry("toolResult", [["tool", "bash", "total 0"]])), /^Tool result: bash entry e1 Output/);
    // Before schema 3 a reply with only a call and a tool result look alike: neither is called what it may not be.
    const old = shown(entry(null, [["tool", "bash", "bash ls -la"]]));
    assert.match(old, /^Tool: bash entry e1 Call or output \(11 characters\)/);
    assert.match(
      shown(
        entry(null, [
          ["thinking", null, "hm"],
          ["tool", "read", "read a.md"],
        ]),
      ),
      /Tool call read/,
    );
  });

  it("a message whose role is a name of ours or of Object's is a section of its own", () => {
    for (const role of ["constructor", "__proto__", "toString", "label", "session_info"]) {
      const md = teamEntryMarkdown(entry(role, [["custom", null, "# heading of the message"]]));
      const html = permissiveViewer.render(md);
      assert.equal([...html.matchAll(/<h2>/g)].length, 1, role);
      assert.ok(!/function Object|\[object Object\]/.test(md), role);
      assert.ok(plainText(html).startsWith(`${role} entry e1 heading of the message`), role);
    }
    assert.equal(teamEntryMarkdown(entry("label", [["meta", null, "before-trim"]])), "*Label: before-trim*");
  });

  it("an entry id or a label with emphasis marks and a backslash reads as written", () => {
    const html = permissiveViewer.render(teamEntryMarkdown(entry("user", [["user", null, "hi"]], "a*b_c\\")));
    assert.match(html, /<em>entry a\*b_c\\<\/em>/);
    const label = permissiveViewer.render(teamEntryMarkdown(entry("label", [["meta", null, "lbl *x* \\"]])));
    assert.match(label, /<em>Label: lbl \*x\* \\<\/em>/);
  });

  it("a field reads as written inside our emphasis and in a <summary> (where a backslash escape shows)", () => {
    for (const t of ["__init__ *x* a\\", "project_context", "C:\\Users\\me", "\\[x\\]", "lbl *x* \\"]) {
      const inline = permissiveViewer.renderInline(`*${field(t)}*`);
      assert.equal(inline, `<em>${permissiveViewer.utils.escapeHtml(t)}</em>`, t);
      const summary = permissiveViewer.render(`<details><summary>${field(t)}</summary>\n\nx\n\n</details>`);
      assert.equal(plainText(summary.replace(/<\/summary>[\s\S]*/, "")), t, t);
    }
    assert.equal(field("project_context"), "project_context", "an identifier's underscore stays as written");
  });

  it("a call or an output of 16 KB says it was cut there", () => {
    const long = `write ${"x".repeat(16 * 1024 - 6)}`;
    assert.match(
      shown(entry("assistant", [["tool", "write", long]])),
      /Tool call write \(16,384 characters, its first 16 KB\)/,
    );
    assert.match(shown(entry("toolResult", [["tool", "read", "y".repeat(16 * 1024)]])), /its first 16 KB/);
  });
});
