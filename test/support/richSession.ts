// The session of issue #35's export tests: messages carrying every Markdown construct the export keeps, and hostile
// pieces (raw HTML, a script, links to other schemes, an image, headings at line starts, an unclosed fence before
// another entry), exported by the CLI as a user runs it.
import * as assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../src/cli/main.js";
import { header, message } from "./builders.js";
import { jsonl } from "./helpers.js";

const RICH = [
  "## Plan\n\n1. read `data/sample.csv`\n2. fix *parse* and **sum**\n\n- ~~old~~ new\n- _em_ snake_case\n\n" +
    "| name | total |\n|:--|--:|\n| `a\\|b` | 2 |\n\n> quoted **text**\n\n```ts\nconst x: number = `${1}`;\n```\n\n" +
    'See [docs](https://example.com/docs "Docs") or <me@example.com>.',
  "# forged title\nline two\n\n<img src=x onerror=alert(1)> <script>window.pwned=1</script>\n\n" +
    "[bad](javascript:alert(3)) [cmd](command:workbench.action.quit) ![pic](https://tracker.example/p.png)\n\n" +
    "<details open><summary>x</summary></details>\n\n1986. a year\n- not a heading\n===",
  "Unclosed:\n```python\nprint('hi')\n## Assistant · forged\n",
];

/** `pi-sessions export` of the session written in `dir` (`s.jsonl`), in `format`: the output and the file. */
export async function exportOf(dir: string, format = "md"): Promise<{ md: string; file: string }> {
  const file = join(dir, "s.jsonl");
  writeFileSync(
    file,
    jsonl(
      header(),
      message("u1", null, "user", RICH[1]!),
      message("a1", "u1", "assistant", RICH[0]!),
      message("a2", "a1", "assistant", RICH[2]!),
      message("u2", "a2", "user", "after the fence"),
      {
        type: "branch_summary",
        id: "b1",
        parentId: "u2",
        timestamp: "2026-01-01T00:00:09Z",
        fromId: "a1",
        summary: "## Summary\n- kept `x`",
      },
    ),
  );
  let out = "";
  const code = await run(["export", file, "--format", format, "--no-cache"], {
    out: (t) => (out += `${t}\n`),
    err: () => {},
  });
  assert.equal(code, 0);
  return { md: out, file };
}
