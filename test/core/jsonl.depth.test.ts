// Hardening (issue #14, item 5): a record nested past the bound is a line-numbered diagnostic and skipped; no stack
// overflow reaches a user, and a huge line of `[` costs a small multiple of its length, not gigabytes.
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../src/cli/main.js";
import { MAX_NESTING, nestingExceeds } from "../../src/core/jsonl.js";
import { header, message, toolCall, toolResult } from "../support/builders.js";
import { ROOT } from "../support/fixtures.js";
import { jsonl } from "../support/helpers.js";

const cli = async (...args: string[]) => {
  let out = "";
  let err = "";
  const code = await run(args, { out: (t) => (out += t + "\n"), err: (t) => (err += t + "\n") });
  return { code, out, err };
};

/** `{"a":{"a":…}}` and `[[…]]`, `depth` levels, as JSON text (JSON.stringify itself overflows on them). */
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
/** A record's JSON line with the value "DEEP" replaced by `deep` (JSON text). */
const withDeep = (record: unknown, deep: string) => JSON.stringify(record).replace('"DEEP"', deep);

describe("hardening: deep nesting and huge lines", function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pse-deep-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A session whose tool call arguments (line 3) and tool result details (line 4) are 100,000 levels deep. */
  function deepSession(): string {
    const file = join(dir, "deep.jsonl");
    const result = toolResult("r0000001", "a0000001", "a0000001", "read", "ok", { extra: { details: "DEEP" } });
    writeFileSync(
      file,
      jsonl(
        header(),
        message("u0000001", null, "user", "read it"),
        withDeep(toolCall("a0000001", "u0000001", "read", { path: "DEEP" }), deepObject(100_000)),
        withDeep(result, deepArray(100_000)),
        message("a0000002", "r0000001", "assistant", "done"),
        message("u0000002", "a0000002", "user", "next"),
        message("a0000003", "u0000002", "assistant", "ok"),
      ),
    );
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(file, past, past);
    return file;
  }

  for (const args of [["tree", "--json"], ["context", "--json"], ["tree"], ["context"], ["lint"]]) {
    it(`${args.join(" ")}: the deep lines are diagnostics with their line numbers; no stack overflow`, async () => {
      const r = await cli(args[0]!, deepSession(), ...args.slice(1));
      const all = r.out + r.err;
      assert.ok(!/Maximum call stack|RangeError|internal error/.test(all), all.slice(0, 400));
      assert.ok([0, 2].includes(r.code), `exit ${r.code}`);
      if (args[0] === "tree" && args[1] === "--json") {
        const json = JSON.parse(r.out);
        const deep = json.diagnostics.filter((d: { code: string }) => d.code === "too-deep");
        assert.deepEqual(
          deep.map((d: { line: number }) => d.line),
          [3, 4],
        );
      }
      if (args[0] === "lint") assert.match(r.out, /:3: error too-deep: nested deeper than 1000 levels/);
    });
  }

  it("compact refuses a deep record, naming its line (pi reads it; a summary would leave it out)", async () => {
    const file = deepSession();
    const r = await cli("compact", file, "--provider", "openai", "--model", "gpt-5.1", "--dry-run", "--json");
    assert.ok(!/Maximum call stack|RangeError|internal error/.test(r.out + r.err), (r.out + r.err).slice(0, 400));
    assert.equal(r.code, 3, r.out + r.err);
    assert.equal(JSON.parse(r.out).state, "refused");
    assert.match(JSON.parse(r.out).reason, /line 3 is nested too deeply/);
  });

  it("a 40 MB line of `[` is refused at once, in a process limited to 256 MB of heap", () => {
    const file = join(dir, "brackets.jsonl");
    writeFileSync(file, `${JSON.stringify(header())}\n${"[".repeat(40 * 1024 * 1024)}\n`);
    for (const args of [
      ["lint", file],
      ["list", "--no-cache", "--session-dir", dir, "--json"],
    ]) {
      const r = spawnSync(
        process.execPath,
        ["--max-old-space-size=256", "--import", "tsx", join(ROOT, "src", "cli", "bin.ts"), ...args],
        { encoding: "utf8", timeout: 60_000 },
      );
      assert.equal(r.signal, null, `${args[0]}: killed (${r.signal}), out of memory or time`);
      assert.ok([0, 2].includes(r.status ?? -1), `${args[0]}: exit ${r.status}\n${r.stderr.slice(0, 300)}`);
      if (args[0] === "lint") assert.match(r.stdout, /:2: error too-deep/);
    }
  });

  it("nestingExceeds: exact at the bound, strings and escapes do not count", () => {
    assert.equal(nestingExceeds(deepArray(MAX_NESTING)), false);
    assert.equal(nestingExceeds(deepArray(MAX_NESTING + 1)), true);
    assert.equal(nestingExceeds(deepObject(MAX_NESTING + 1)), true);
    assert.equal(nestingExceeds(JSON.stringify({ s: "[".repeat(5000), t: '\\"[[[' })), false);
    assert.equal(nestingExceeds(`[${'"\\\\",'.repeat(3000)}${"[".repeat(MAX_NESTING)}`), true);
  });
});
