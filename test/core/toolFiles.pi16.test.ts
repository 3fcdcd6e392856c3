// pi 1.6's nested calls (a tool result's `nestedCalls`) touch files as direct calls do: CodeLens and Agent History
// count a nested read, edit or write, and "Show Edit Diff" finds a nested edit's texts.
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSession } from "../../src/core/session/index.js";
import { summarize } from "../../src/core/summary.js";
import { toolCallArgs, touchDiffTexts } from "../../src/core/toolFiles.js";
import { header, message } from "../support/builders.js";
import { jsonl, listFiles, parseOk } from "../support/helpers.js";
import { REAL } from "../support/fixtures.js";

describe("pi 1.6 nested calls as file touches", () => {
  it("the real codemode result's nested read is a touch of that result, with its path and arguments", () => {
    const file = listFiles(join(REAL, "pi-1.6", "sessions"), ".jsonl").find((f) =>
      readFileSync(f, "utf8").includes('"nestedCalls"'),
    )!;
    const raw = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((r) => r.message?.nestedCalls);
    const reads = raw.message.nestedCalls.calls.filter((c: { name: string }) => c.name === "read");
    const summary = summarize(parseSession(file, readFileSync(file)));
    assert.ok(summary.ok);
    const nested = summary.touches.filter((t) => t.entryId === raw.id);
    assert.deepEqual(
      nested.map((t) => [t.kind, t.path]),
      reads.map((c: { arguments: { path: string } }) => ["read", c.arguments.path]),
    );
    const session = parseOk(readFileSync(file, "utf8"));
    const entry = session.byId.get(raw.id)!;
    assert.deepEqual(toolCallArgs(entry, entry.touches![0]!), reads[0].arguments);
  });

  it("a nested edit and write: touches with their diff texts; a bash or a call without a path is none", () => {
    const calls = [
      { id: "c/1", name: "edit", status: "ok", arguments: { path: "a.ts", oldText: "x", newText: "y" } },
      { id: "c/2", name: "bash", status: "ok", arguments: { command: "ls" } },
      { id: "c/3", name: "write", status: "error", arguments: { path: "b.ts", content: "z" } },
      { id: "c/4", name: "read", status: "ok", argumentsBytes: 9000 },
    ];
    const session = parseOk(
      jsonl(
        header(),
        message("u", null, "user", "go"),
        message("r", "u", "toolResult", [], {
          extra: { toolCallId: "c", toolName: "codemode", isError: false, nestedCalls: { calls, complete: true } },
        }),
      ),
    );
    const entry = session.byId.get("r")!;
    assert.deepEqual(
      entry.touches!.map((t) => [t.index, t.toolCallId, t.kind, t.path]),
      [
        [0, "c/1", "edit", "a.ts"],
        [2, "c/3", "write", "b.ts"],
      ],
    );
    assert.deepEqual(touchDiffTexts("edit", toolCallArgs(entry, entry.touches![0]!)!), { before: "x", after: "y" });
    assert.deepEqual(touchDiffTexts("write", toolCallArgs(entry, entry.touches![1]!)!), { before: "", after: "z" });
    assert.equal(toolCallArgs(entry, { index: 0, toolCallId: "other" }), null, "the call is named by id too");
  });
});
