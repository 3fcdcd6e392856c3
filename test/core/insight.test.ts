/**
 * The IDE insight's pure parts: Resume in Terminal's command line per shell, the context fill against pi-ai's model
 * data (the generated table is checked against pi-ai itself), where pi compacts (pi's own `shouldCompact`), pi's
 * compaction settings, and the texts an edit's diff shows.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getModel, getModels, getProviders } from "@mariozechner/pi-ai";
import { shouldCompact } from "@mariozechner/pi-coding-agent";
import {
  clipboardShell,
  commandLine,
  hasControlCharacters,
  resumeArgs,
  resumeCommand,
  shellKindOf,
} from "../../src/core/resume.js";
import { compactionPercent, contextFill, contextWindowOf } from "../../src/core/contextWindows.js";
import { CONTEXT_WINDOWS } from "../../src/core/contextWindows.generated.js";
import { editInFile, promptBefore, readPathOf, touchDiffTexts } from "../../src/core/toolFiles.js";
import { summarize } from "../../src/core/summary.js";
import { piCompactionSettings } from "../../src/node/piSettings.js";
import { header, message, toolCall, toolResult, usage } from "../support/builders.js";
import { jsonl, parseOk, parseText, withTempDir } from "../support/helpers.js";

describe("Resume in Terminal: the command line", () => {
  it("knows the shell from its path", () => {
    assert.equal(shellKindOf("/bin/bash"), "posix");
    assert.equal(shellKindOf("/usr/bin/zsh"), "posix");
    assert.equal(shellKindOf("C:\\Program Files\\PowerShell\\7\\pwsh.exe"), "pwsh");
    assert.equal(shellKindOf("C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"), "pwsh");
    assert.equal(shellKindOf("C:\\Windows\\System32\\cmd.exe"), "cmd");
    assert.equal(shellKindOf(undefined), "unknown");
  });

  it("quotes the file for each shell, and the executable from the settings", () => {
    const line = (flavor: "pi" | "omp", file: string, shell: Parameters<typeof commandLine>[1], exe?: string) =>
      commandLine(resumeArgs(flavor, file, exe), shell);
    const file = "/h/My Sessions/it's.jsonl";
    assert.equal(resumeCommand("pi", file), "pi --session '/h/My Sessions/it'\\''s.jsonl'");
    assert.equal(line("omp", "/h/a.jsonl", "posix", "/opt/omp bin/omp"), "'/opt/omp bin/omp' --resume /h/a.jsonl");
    // fish: a backslash escapes inside single quotes.
    assert.equal(line("pi", "/h/a\\'b.jsonl", "fish"), "pi --session '/h/a\\\\\\'b.jsonl'");
    // PowerShell: ' and its curly look-alikes are doubled; a comma is quoted; a quoted executable needs `&`.
    assert.equal(
      line("pi", "C:\\Users\\me\\it's $x.jsonl", "pwsh", "C:\\Tools\\pi.cmd"),
      "C:\\Tools\\pi.cmd --session 'C:\\Users\\me\\it''s $x.jsonl'",
    );
    assert.equal(
      line("pi", "C:\\x\u2019; calc; \u2019.jsonl", "pwsh"),
      "pi --session 'C:\\x\u2019\u2019; calc; \u2019\u2019.jsonl'",
    );
    assert.equal(line("pi", "C:\\a,b\\s.jsonl", "pwsh"), "pi --session 'C:\\a,b\\s.jsonl'");
    assert.equal(
      line("pi", "C:\\a.jsonl", "pwsh", "C:\\Program Files\\pi\\pi.exe"),
      "& 'C:\\Program Files\\pi\\pi.exe' --session C:\\a.jsonl",
    );
    // cmd.exe: double quotes; `%` (expanded even inside them) and `"` cannot be written: no line.
    assert.equal(line("omp", "C:\\My Files\\a.jsonl", "cmd"), 'omp --resume "C:\\My Files\\a.jsonl"');
    assert.equal(line("pi", "C:\\100%USERPROFILE%\\a.jsonl", "cmd"), null);
    // A shell whose quoting is not known: no line (the agent runs without a shell).
    assert.equal(line("pi", "/h/a.jsonl", "unknown"), null);
    assert.equal(shellKindOf("/usr/bin/nu"), "unknown");
    assert.equal(shellKindOf("/usr/bin/fish"), "fish");
    assert.equal(line("pi", "/a.jsonl", "posix", "  "), "pi --session /a.jsonl");
  });

  it("Copy Resume Command quotes for the default terminal's shell; PowerShell on Windows when it is not known", () => {
    assert.equal(clipboardShell("cmd", true), "cmd");
    assert.equal(clipboardShell("pwsh", true), "pwsh");
    assert.equal(clipboardShell("fish", false), "fish");
    assert.equal(clipboardShell("unknown", true), "pwsh", "POSIX quotes do not hold in PowerShell");
    assert.equal(clipboardShell("unknown", false), "posix");
    // What POSIX quoting would copy for a Windows path runs a command in PowerShell; the PowerShell line does not.
    const file = "C:\s\a'; calc; '.jsonl";
    assert.equal(
      commandLine(resumeArgs("pi", file), clipboardShell("unknown", true)),
      "pi --session 'C:\s\a''; calc; ''.jsonl'",
    );
  });

  it("a path with a newline is refused (it would end the typed command)", () => {
    assert.ok(hasControlCharacters("/h/a\nrm -rf ~.jsonl"));
    assert.ok(hasControlCharacters("/h/a\u001b[2J.jsonl"));
    assert.ok(!hasControlCharacters("/h/ünïcode session.jsonl"));
  });
});

describe("Live status: context fill", () => {
  it("the generated table is pi-ai's model data (run scripts/context-windows.mjs after upgrading pi-ai)", () => {
    let n = 0;
    for (const provider of getProviders())
      for (const m of getModels(provider)) {
        assert.equal(CONTEXT_WINDOWS[provider]?.[m.id], m.contextWindow, `${provider}/${m.id}`);
        n++;
      }
    assert.equal(
      Object.values(CONTEXT_WINDOWS).reduce((a, t) => a + Object.keys(t).length, 0),
      n,
    );
  });

  it("finds a window by provider and model, else by a model id every provider agrees on", () => {
    const m = getModel("anthropic", "claude-sonnet-4-5");
    assert.equal(contextWindowOf("anthropic", "claude-sonnet-4-5"), m.contextWindow);
    // A provider pi-ai does not know (a proxy): the id alone, when every provider that has it agrees.
    for (const id of ["claude-sonnet-4-5", "gpt-5.1", "gpt-4o"]) {
      const windows = new Set(
        getProviders().flatMap((p) =>
          getModels(p)
            .filter((x) => x.id === id)
            .map((x) => x.contextWindow),
        ),
      );
      assert.ok(windows.size > 0, id);
      assert.equal(contextWindowOf("some-proxy", id), windows.size === 1 ? [...windows][0] : null, id);
    }
    assert.equal(contextWindowOf("nobody", "no-such-model"), null);
    // A model named like an object's own properties is no model.
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      assert.equal(contextWindowOf("anthropic", name), null, name);
      assert.equal(contextWindowOf(name, name), null, name);
    }
  });

  it("is the latest assistant message's input + cacheRead + cacheWrite, skipping turns with no usage", () => {
    const s = summarize(
      parseText(
        jsonl(
          header(),
          message("u1", null, "user", "hi"),
          message("a1", "u1", "assistant", "one", {
            provider: "anthropic",
            model: "claude-sonnet-4-5",
            usage: usage(1000, 50, 0, { read: 30_000, write: 2000 }),
          }),
          message("u2", "a1", "user", "again"),
          message("a2", "u2", "assistant", "", {
            provider: "anthropic",
            model: "claude-sonnet-4-5",
            usage: usage(0, 0),
            stopReason: "aborted",
          }),
        ),
      ),
    );
    assert.ok(s.ok);
    const fill = contextFill(s.usage)!;
    const window = getModel("anthropic", "claude-sonnet-4-5").contextWindow;
    assert.equal(fill.tokens, 33_000);
    assert.equal(fill.window, window);
    assert.equal(fill.percent, (33_000 / window) * 100);
  });

  it("compacts where pi's shouldCompact starts to say yes", () => {
    for (const [window, reserve] of [
      [200_000, 16_384],
      [128_000, 20_000],
    ] as const) {
      const at = compactionPercent(window, reserve)!;
      const threshold = Math.floor((at / 100) * window + 1e-6);
      assert.equal(
        shouldCompact(threshold, window, { enabled: true, reserveTokens: reserve, keepRecentTokens: 0 }),
        false,
      );
      assert.equal(
        shouldCompact(threshold + 1, window, { enabled: true, reserveTokens: reserve, keepRecentTokens: 0 }),
        true,
      );
    }
    assert.equal(compactionPercent(10_000, 16_384), null);
  });

  it("reads pi's compaction settings: defaults, the agent dir's settings.json, then the project's", () => {
    withTempDir((dir) => {
      const agent = join(dir, "agent");
      const cwd = join(dir, "proj");
      mkdirSync(agent);
      mkdirSync(join(cwd, ".pi"), { recursive: true });
      assert.deepEqual(piCompactionSettings(agent, cwd), { enabled: true, reserveTokens: 16384 });
      writeFileSync(join(agent, "settings.json"), JSON.stringify({ compaction: { reserveTokens: 30000 } }));
      assert.deepEqual(piCompactionSettings(agent, cwd), { enabled: true, reserveTokens: 30000 });
      writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ compaction: { enabled: false } }));
      assert.deepEqual(piCompactionSettings(agent, cwd), { enabled: false, reserveTokens: 30000 });
      writeFileSync(join(cwd, ".pi", "settings.json"), "{not json");
      assert.deepEqual(piCompactionSettings(agent, cwd), { enabled: true, reserveTokens: 30000 });
    });
  });
});

describe("file history: the turn and its texts", () => {
  it("an edit placed in the file as it is now: only where each new text is found once and none overlaps", () => {
    const now = "a\nNEW1\nb\nNEW2\nc\n";
    assert.deepEqual(
      editInFile(now, [
        { oldText: "old2", newText: "NEW2" },
        { oldText: "old1", newText: "NEW1" },
      ]),
      { before: "a\nold1\nb\nold2\nc\n", after: now },
    );
    assert.equal(editInFile("NEW NEW", [{ oldText: "x", newText: "NEW" }]), null, "twice: which one is a guess");
    assert.equal(editInFile(now, [{ oldText: "x", newText: "gone" }]), null);
    assert.equal(editInFile(now, [{ oldText: "x", newText: "" }]), null, "a deletion has no text to find");
    assert.equal(
      editInFile("abcd", [
        { oldText: "1", newText: "abc" },
        { oldText: "2", newText: "bcd" },
      ]),
      null,
      "overlapping",
    );
  });

  it("an edit's diff is its replaced and replacing texts; a write's is its text against nothing", () => {
    assert.deepEqual(touchDiffTexts("edit", { path: "a", oldText: "x", newText: "y" }), { before: "x", after: "y" });
    assert.deepEqual(
      touchDiffTexts("edit", {
        path: "a",
        edits: [
          { old: "1", new: "2" },
          { old_string: "3", new_string: "4" },
        ],
      }),
      { before: "1\n⋯\n3", after: "2\n⋯\n4" },
    );
    assert.equal(touchDiffTexts("edit", { path: "a", edits: [{ op: "update", diff: "@@" }] }), null);
    // As pi's prepareEditArguments reads them: `edits` as a JSON string, and a top-level pair after the list.
    assert.deepEqual(touchDiffTexts("edit", { path: "a", edits: JSON.stringify([{ oldText: "1", newText: "2" }]) }), {
      before: "1",
      after: "2",
    });
    assert.deepEqual(
      touchDiffTexts("edit", { path: "a", edits: [{ oldText: "1", newText: "2" }], oldText: "3", newText: "4" }),
      { before: "1\n⋯\n3", after: "2\n⋯\n4" },
    );
    assert.deepEqual(touchDiffTexts("write", { path: "a", content: "all" }), { before: "", after: "all" });
    assert.equal(touchDiffTexts("read", { path: "a" }), null);
  });

  it("the prompt behind a call is the nearest user message above it", () => {
    const s = parseOk(
      jsonl(
        header(),
        message("u1", null, "user", "first line\nsecond line"),
        toolCall("a1", "u1", "read", { path: "a.ts" }),
        toolResult("r1", "a1", "a1", "read", "text"),
        toolCall("a2", "r1", "edit", { path: "a.ts", oldText: "a", newText: "b" }),
      ),
    );
    assert.equal(promptBefore(s, "a2"), "first line");
    assert.equal(promptBefore(s, "missing"), "");
  });

  it("OMP read selectors are cut from the path", () => {
    for (const [raw, file] of <[string, string][]>[
      ["src/a.ts:20", "src/a.ts"],
      ["src/a.ts:20-40", "src/a.ts"],
      ["src/a.ts:-10", "src/a.ts"],
      ["src/a.ts:20+5", "src/a.ts"],
      ["src/a.ts:1-3,8-9", "src/a.ts"],
      ["src/a.ts:raw", "src/a.ts"],
      ["src/a.ts:20-40:raw", "src/a.ts"],
      ["C:\\a.ts", "C:\\a.ts"],
      ["notes:draft.md", "notes:draft.md"],
    ])
      assert.equal(readPathOf(raw), file, raw);
    // Linear whatever the path holds (a regex over the whole path took seconds on this one).
    const hostile = `${":1".repeat(200_000)}x`;
    assert.equal(readPathOf(hostile), hostile);
    assert.equal(readPathOf(`a${":1".repeat(200_000)}`), "a");
  });
});
