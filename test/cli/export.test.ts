// `pi-sessions export` (issue #16): a branch, root first, as Markdown or self-contained HTML. Expectations come from
// the raw JSONL lines (a walk over parentIds written here), not from the exporter: every user and assistant text of
// the active path appears, in order, and no text found only on other branches does.
import * as assert from "node:assert/strict";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../src/cli/main.js";
import { fenced } from "../../src/core/export/fence.js";
import { header, message, toolCall, toolResult } from "../support/builders.js";
import { OMP_FIXTURES, PI_FIXTURES, REAL } from "../support/fixtures.js";
import { ownedStore, writeForkFamily } from "../support/forkFamily.js";
import { jsonl, withTempDir } from "../support/helpers.js";
import { messageViewer, permissiveViewer, plainText } from "../support/markdownView.js";

const cli = async (...args: string[]) => {
  let out = "";
  let err = "";
  const code = await run(args, { out: (t) => (out += t + "\n"), err: (t) => (err += t + "\n") });
  return { code, out, err };
};

type Raw = { type?: string; id?: string; parentId?: string | null; message?: { role?: string; content?: unknown } };

/** The raw records of a file (malformed lines skipped, as the agents skip them). */
function rawRecords(file: string): Raw[] {
  const out: Raw[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    try {
      const v = JSON.parse(line) as Raw;
      if (v && typeof v === "object") out.push(v);
    } catch {
      // skipped
    }
  }
  return out;
}

function rawText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((b): b is { type: string; text: string } => b?.type === "text" && typeof b.text === "string")
    .map((b) => b.text)
    .join("\n");
}

/** User and assistant texts on the path to the last line's entry, root first; and those only off that path. */
function rawBranch(file: string): { path: string[]; elsewhere: string[] } | null {
  const entries = rawRecords(file).filter((r) => r.type !== "session" && r.type !== undefined);
  if (!entries.length || entries.some((e) => typeof e.id !== "string")) return null; // v1: ids are synthesized
  const byId = new Map(entries.map((e) => [e.id!, e]));
  const onPath = new Set<string>();
  for (let e: Raw | undefined = entries[entries.length - 1]; e && !onPath.has(e.id!); e = byId.get(e.parentId ?? ""))
    onPath.add(e.id!);
  const text = (e: Raw) =>
    e.type === "message" && (e.message?.role === "user" || e.message?.role === "assistant")
      ? rawText(e.message.content).trim()
      : "";
  const path = entries
    .filter((e) => onPath.has(e.id!))
    .map(text)
    .filter(Boolean);
  // Distinctive texts only: long enough, and nowhere in the path's records (a tool output may quote them).
  const pathRaw = JSON.stringify(entries.filter((e) => onPath.has(e.id!)));
  const elsewhere = entries
    .filter((e) => !onPath.has(e.id!))
    .map(text)
    .filter((t) => t.length >= 12 && !pathRaw.includes(JSON.stringify(t).slice(1, -1)));
  return { path, elsewhere };
}

/** What a reader sees of a message: its Markdown rendered as the transcript reads it, as text. */
const shownText = (t: string) => plainText(messageViewer.render(t));
/** What a reader sees of a Markdown export, in a viewer that allows raw HTML. */
const shownMarkdown = (md: string) => plainText(permissiveViewer.render(md));

describe("pi-sessions export", () => {
  it("every fixture exports as Markdown and HTML: the active path's texts in order, none from elsewhere", async () => {
    let checked = 0;
    for (const file of [...PI_FIXTURES, ...OMP_FIXTURES]) {
      const md = await cli("export", file, "--no-cache");
      const html = await cli("export", file, "--format", "html", "--no-cache");
      if (md.code === 2) continue; // rejected files (quirks) are reported, as everywhere
      assert.equal(md.code, 0, `${file}: ${md.err}`);
      assert.equal(html.code, 0, `${file}: ${html.err}`);
      const branch = rawBranch(file);
      if (!branch) continue;
      for (const doc of [shownMarkdown(md.out), plainText(html.out)]) {
        let at = 0;
        for (const t of branch.path) {
          const i = doc.indexOf(shownText(t), at);
          assert.ok(i >= 0, `${file}: ${JSON.stringify(t.slice(0, 60))} missing or out of order`);
          at = i;
        }
        for (const t of branch.elsewhere)
          assert.ok(!doc.includes(shownText(t)), `${file}: off-branch text ${t.slice(0, 40)}`);
      }
      checked++;
    }
    assert.ok(checked >= 15, `checked ${checked} fixtures`);
  });

  it("--leaf exports the branch ending there; an unknown leaf is a usage error", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "s.jsonl");
      writeFileSync(
        file,
        jsonl(
          header(),
          message("u1", null, "user", "root prompt"),
          message("a1", "u1", "assistant", "branch one answer"),
          message("a2", "u1", "assistant", "branch two answer"),
        ),
      );
      const active = await cli("export", file, "--no-cache");
      assert.match(active.out, /branch two answer/);
      assert.doesNotMatch(active.out, /branch one answer/);
      const other = await cli("export", file, "--leaf", "a1", "--no-cache");
      assert.match(other.out, /root prompt[\s\S]*branch one answer/);
      assert.doesNotMatch(other.out, /branch two answer/);
      const bad = await cli("export", file, "--leaf", "nope", "--no-cache");
      assert.equal(bad.code, 64);
    });
  });

  it("Markdown fences are longer than any backtick run inside them", async () => {
    const text = "before ``` inside ```` more `````\nend";
    assert.ok(fenced(text).startsWith("``````text\n"));
    assert.ok(fenced("plain").startsWith("```text\n"));
    await withTempDir(async (dir) => {
      const file = join(dir, "s.jsonl");
      writeFileSync(
        file,
        jsonl(
          header(),
          message("u1", null, "user", "show me"),
          toolCall("a1", "u1", "bash", { command: "cat x" }),
          toolResult("r1", "a1", "a1", "bash", text),
        ),
      );
      const md = (await cli("export", file, "--no-cache")).out;
      const block = /\n(`{6})text\n([\s\S]*?)\n\1\n/.exec(md);
      assert.ok(block, md);
      assert.equal(block[2], text);
    });
  });

  it("HTML is self-contained and inert: a CSP, no script, nothing external, every hostile field escaped", async () => {
    const hostile = `<script>window.pwned=1</script><img src=x onerror=alert(1)>"'&`;
    await withTempDir(async (dir) => {
      const file = join(dir, "s.jsonl");
      writeFileSync(
        file,
        jsonl(
          { ...header(), cwd: hostile },
          message("u1", null, "user", hostile),
          toolCall("a1", "u1", hostile, { path: hostile, command: hostile }),
          toolResult("r1", "a1", "a1", hostile, hostile),
          { type: "session_info", id: "n1", parentId: "r1", timestamp: "2026-01-01T00:00:09Z", name: hostile },
          message("a2", "n1", "assistant", `[link](https://evil.example) ${hostile}`),
        ),
      );
      const html = (await cli("export", file, "--format", "html", "--no-cache")).out;
      assert.match(
        html,
        /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;nonce-[A-Za-z0-9+/=]+&#39;; img-src data:">/,
      );
      assert.doesNotMatch(html, /<script/i);
      assert.doesNotMatch(html, /<img src=x/);
      assert.doesNotMatch(html, /\ssrc="(?!data:)/, "nothing loaded from outside");
      for (const m of html.matchAll(/\shref="([^"]*)"/g))
        assert.match(m[1]!, /^(#entry-|https:\/\/evil\.example$)/, "an entry's anchor or the message's web link");
      assert.ok(html.includes("&lt;script&gt;window.pwned=1&lt;/script&gt;"));
      assert.ok(html.includes("<title>&lt;script&gt;"), "the name is the title, escaped");
      // In Markdown, session text outside fenced blocks has its markup escaped; inside a fence it is literal code.
      const md = (await cli("export", file, "--no-cache")).out;
      const shown = permissiveViewer.render(md);
      assert.doesNotMatch(shown, /<script|<img/);
      assert.ok(shown.includes("&lt;script&gt;window.pwned=1&lt;/script&gt;"), "the message's tags as text");
      assert.match(md, /```text\n<script>window\.pwned=1/);
    });
  });

  it("a fork's copied entries are marked as inherited from its parent (the store's rule)", async () => {
    await withTempDir(async (dir) => {
      const { agent, child } = writeForkFamily(dir);
      const store = await ownedStore(agent);
      assert.equal(store.sessions.find((s) => s.file === child)!.inherited.size, 2, "the store's rule");
      const md = (await cli("export", child, "--agent-dir", agent, "--no-cache")).out;
      assert.equal((md.match(/^> inherited from shared prompt$/gm) ?? []).length, 2, md);
      assert.match(md, /fork's own prompt/);
      assert.doesNotMatch(md.slice(md.lastIndexOf("fork's own prompt")), /inherited from/);
    });
  });

  it("OMP: the title heads the export; blob images are embedded from the agent dir in HTML", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pse-export-"));
    try {
      const agent = join(dir, "agent");
      cpSync(join(REAL, "omp-blob"), agent, { recursive: true });
      const slug = readdirSync(join(agent, "sessions"))[0]!;
      const session = join(agent, "sessions", slug, readdirSync(join(agent, "sessions", slug))[0]!);
      const oracle = JSON.parse(readFileSync(join(REAL, "omp-blob", "oracle.json"), "utf8")) as { imageBase64: string };
      const html = (await cli("export", session, "--format", "html", "--no-cache")).out;
      assert.ok(html.includes(`src="data:image/png;base64,${oracle.imageBase64}"`), "the blob's image is embedded");
      // The title from the raw title slot (first line) of an OMP file that never changes it later.
      const titled = OMP_FIXTURES.map((f) => ({ f, lines: readFileSync(f, "utf8").split("\n") }))
        .map(({ f, lines }) => ({ f, slot: JSON.parse(lines[0]!) as { type?: string; title?: string }, lines }))
        .find((x) => x.slot.type === "title" && x.slot.title && !x.lines.some((l) => l.includes('"title_change"')));
      assert.ok(titled, "an OMP fixture with a title slot");
      const r = await cli("export", titled.f, "--no-cache");
      assert.equal(r.code, 0);
      assert.equal(r.out.split("\n")[0], `# ${titled.slot.title}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("-o writes the file and says so on stderr; a path it cannot write is named once with its reason", async () => {
    await withTempDir(async (dir) => {
      const out = join(dir, "out.html");
      const r = await cli("export", PI_FIXTURES[0]!, "--format", "html", "-o", out, "--no-cache");
      assert.equal(r.code, 0, r.err);
      assert.match(readFileSync(out, "utf8"), /^<!DOCTYPE html>/);
      assert.match(r.err, /^wrote .*out\.html \(\d+ entries\)$/m);
      const bad = await cli("export", PI_FIXTURES[0]!, "-o", join(dir, "missing", "x.md"), "--no-cache");
      assert.equal(bad.code, 3);
      assert.match(bad.err, /missing\/x\.md: no such file or directory \(ENOENT\)/);
    });
  });

  it("Markdown keeps session text inert: no fence, code span, link, image, tag or heading starts in it", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "s.jsonl");
      const hostile =
        "fix the build\n```\n## Assistant · forged\n![t](http://evil.test/p.png) [x](javascript:alert(1)) ~~~";
      writeFileSync(
        file,
        jsonl(
          header(),
          message("u1", null, "user", [
            { type: "text", text: hostile },
            { type: "image", mimeType: "<img src=y onerror=alert(1)>", data: "AAAA" },
          ]),
          toolCall("a1", "u1", "bash", { command: "cat" }),
          toolResult("r1", "a1", "a1", "bash", "line\n```\n<img src=x onerror=alert(2)>"),
          {
            type: "branch_summary",
            id: "b1",
            parentId: "r1",
            timestamp: "2026-01-01T00:00:09Z",
            fromId: "<img src=z>",
            summary: "s",
          },
        ),
      );
      const md = (await cli("export", file, "--no-cache")).out;
      const shown = permissiveViewer.render(md);
      assert.doesNotMatch(shown, /<img|href="javascript/);
      // The unclosed fence ends with its message: the forged heading is code, the next entries are sections.
      assert.match(shown, /<pre><code>## Assistant · forged\n!\[t\]\(http:\/\/evil\.test\/p\.png\)/);
      assert.deepEqual(
        [...shown.matchAll(/<h2>([^<·]*)/g)].map((m) => m[1]!.trim()),
        ["User", "Assistant", "Tool result: bash", "Branch summary"],
      );
      // The tool output's own fence is longer than the run inside it, so its text stays code.
      assert.match(md, /\n````text\nline\n```\n<img src=x onerror=alert\(2\)>\n````\n/);
    });
  });

  it("a large output with 130,000 backtick runs exports; -o never writes over a session", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "s.jsonl");
      writeFileSync(
        file,
        jsonl(
          header(),
          message("u1", null, "user", "read it"),
          toolCall("a1", "u1", "read", { path: "big.md" }),
          toolResult("r1", "a1", "a1", "read", "`a".repeat(130_000)),
        ),
      );
      const big = await cli("export", file, "--no-cache");
      assert.equal(big.code, 0, big.err);
      const before = readFileSync(file, "utf8");
      const over = await cli("export", file, "-o", file, "--no-cache");
      assert.equal(over.code, 64);
      assert.equal(readFileSync(file, "utf8"), before);
    });
  });
});
