/** The pi-sessions CLI: JSON shapes, text output, exit codes, on every fixture and on bad input. */
import { strict as assert } from "node:assert";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { run } from "../../src/cli/main.js";
import { jsonl, plain, tempCopy, withTempDir } from "../support/helpers.js";
import { OMP_FIXTURES, PI_FIXTURES, REAL, ROOT } from "../support/fixtures.js";
import { header, message } from "../support/builders.js";

const CLI = join(ROOT, "dist", "cli.js");

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await run(args, { out: (t) => (out += t + "\n"), err: (t) => (err += t + "\n") });
  return { code, out, err };
}

const EMPTY = join(REAL, "quirks", "empty.jsonl");
const S2 = join(
  REAL,
  "pi",
  "sessions",
  "--home-u-src-proj--",
  "2026-11-29T18-50-20-792Z_01a228a4-d4f8-7759-87f6-e1f7077b112f.jsonl",
);
const S3 = join(
  REAL,
  "pi",
  "sessions",
  "--home-u-src-proj--",
  "2026-11-29T18-50-20-901Z_01a228a4-d565-753b-85e0-3c4741e0caca.jsonl",
);

describe("pi-sessions CLI", () => {
  before(function () {
    this.timeout(60_000);
    if (!existsSync(CLI)) execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs")], { cwd: ROOT });
  });

  it("tree --json: the specified shape for every fixture, entries in file order with physical lines", async () => {
    for (const file of [...PI_FIXTURES, ...OMP_FIXTURES]) {
      const { code, out } = await cli("tree", file, "--json");
      const json = JSON.parse(out);
      if (file === EMPTY) {
        assert.equal(code, 2);
        assert.deepEqual(Object.keys(json), ["file", "rejected"]);
        assert.deepEqual(Object.keys(json.rejected), ["line", "code", "message"]);
        continue;
      }
      assert.equal(code, 0, file);
      assert.deepEqual(Object.keys(json), [
        "file",
        "flavor",
        "version",
        "header",
        "titleSlot",
        "name",
        "leafId",
        "roots",
        "entries",
        "compactions",
        "forkOf",
        "diagnostics",
      ]);
      const lines = readFileSync(file, "utf8").split("\n");
      assert.deepEqual(json.header, JSON.parse(lines.find((l) => l.includes('"type":"session"'))!), "header verbatim");
      let previous = 0;
      for (const e of json.entries) {
        assert.ok(e.line > previous, "file order");
        previous = e.line;
        assert.equal(JSON.parse(lines[e.line - 1]!).type, e.type, `line ${e.line} holds a ${e.type}`);
      }
    }
  });

  it("tree --json written in pieces is the same text, byte for byte, in pieces of 2,000 entries", async () => {
    const inPieces = async (file: string) => {
      const pieces: string[] = [];
      let out = "";
      const io = { out: (t: string) => (out += t + "\n"), err: () => {}, part: (t: string) => pieces.push(t) };
      const code = await run(["tree", file, "--json"], io);
      return { code, pieces, text: pieces.join("") + out };
    };
    for (const file of [...PI_FIXTURES, ...OMP_FIXTURES]) {
      const whole = await cli("tree", file, "--json");
      const parts = await inPieces(file);
      assert.deepEqual([parts.code, parts.text], [whole.code, whole.out], file);
    }
    await withTempDir(async (dir) => {
      const file = join(dir, "long.jsonl");
      const ids = Array.from({ length: 4500 }, (_, i) => `e${i}`);
      const entries = ids.map((id, i) => message(id, i ? ids[i - 1]! : null, i % 2 ? "assistant" : "user", `t${i}`));
      writeFileSync(file, jsonl(header(), ...entries));
      const parts = await inPieces(file);
      // The keys before the entries, three pieces of entries, the keys after them.
      assert.equal(parts.pieces.length, 5);
      const json = JSON.parse(parts.text);
      assert.deepEqual(
        json.entries.map((e: { id: string }) => e.id),
        ids,
      );
      assert.equal(parts.text, (await cli("tree", file, "--json")).out);
    });
  });

  it("tree --json on S3 lists both compactions with their kept ranges", async () => {
    const json = JSON.parse((await cli("tree", S3, "--json")).out);
    assert.equal(json.compactions.length, 2);
    for (const c of json.compactions) {
      assert.equal(c.keptFromId, c.firstKeptEntryId);
      assert.ok(c.tokensBefore > 0);
      assert.equal(c.onActivePath, true);
      assert.equal(json.entries.find((e: { id: string }) => e.id === c.id).parentId, c.replacesThroughId);
    }
  });

  it("tree draws the tree with box characters, the active path and labels; branches in pi's /tree order", async () => {
    const { code, out } = await cli("tree", S2);
    assert.equal(code, 0);
    assert.match(out, /^"Stats helpers \(sum\/avg\/median\)"/);
    // The branch holding the leaf first (pi's /tree), though the file writes it second.
    assert.match(
      out,
      /├─ ● \w+ model → anthropic\/claude-sonnet-4-5 {2}Branch 1\/2\n[^]*└─ ○ \w+ user: "Also add avg\(xs\)\." {2}Branch 2\/2/,
    );
    assert.match(out, /\[sum-added \(v2\)\]/);
    assert.match(out, /◀ leaf/);
  });

  it("context --json equals pi's buildSessionContext for every pi fixture, at the leaf and at --leaf", async () => {
    let leaves = 0;
    for (const file of PI_FIXTURES.filter((f) => f !== EMPTY)) {
      const { code, out } = await cli("context", file, "--json");
      assert.equal(code, 0);
      const ours = JSON.parse(out);
      assert.deepEqual(Object.keys(ours), ["leafId", "messages", "thinkingLevel", "model"]);
      const tree = JSON.parse((await cli("tree", file, "--json")).out);
      // a mid-tree leaf: the first entry with children that is not on the way to the active leaf's end
      const midLeaf =
        tree.version >= 2 ? tree.entries.find((e: { children: string[] }) => e.children.length > 0)?.id : undefined;
      const atMid = midLeaf ? JSON.parse((await cli("context", file, "--leaf", midLeaf, "--json")).out) : undefined;
      withTempDir((dir) => {
        const sm = SessionManager.open(tempCopy(dir, file));
        const theirs = plain(sm.buildSessionContext());
        assert.deepEqual(ours.messages, theirs.messages, file);
        assert.equal(ours.thinkingLevel, theirs.thinkingLevel);
        assert.deepEqual(ours.model, theirs.model ?? null);
        if (midLeaf) {
          sm.branch(midLeaf);
          assert.equal(atMid.leafId, midLeaf);
          assert.deepEqual(atMid.messages, plain(sm.buildSessionContext()).messages, `${file} @ ${midLeaf}`);
          leaves++;
        }
      });
    }
    assert.ok(leaves >= 10, `compared --leaf on ${leaves} files`);
  });

  it("context text output lists messages; an unknown --leaf is a usage error", async () => {
    const { code, out } = await cli("context", S3);
    assert.equal(code, 0);
    assert.match(out, /compactionSummary/);
    const bad = await cli("context", S3, "--leaf", "nope0000", "--json");
    assert.equal(bad.code, 64);
    assert.match(bad.err, /nope0000/);
  });

  it("lint prints FILE:LINE: severity code: message and exits 2 when any file is rejected", async () => {
    const malformed = join(REAL, "quirks", "pi-malformed-middle-line.jsonl");
    const truncated = join(REAL, "quirks", "pi-truncated-last-line.jsonl");
    const ok = await cli("lint", malformed, truncated);
    assert.equal(ok.code, 0);
    assert.match(
      ok.out,
      new RegExp(`^${malformed.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:5: error malformed-json: `, "m"),
    );
    assert.match(ok.out, /pi-truncated-last-line\.jsonl:\d+: warning truncated-last-line: /);
    const bad = await cli("lint", malformed, EMPTY);
    assert.equal(bad.code, 2);
    assert.match(bad.out, /empty\.jsonl:0: error empty-file: file is empty \(file rejected\)/);
  });

  it("lint is clean on every real fixture except the quirks", async () => {
    for (const file of [...PI_FIXTURES, ...OMP_FIXTURES]) {
      if (file.includes("quirks")) continue;
      const { code, out } = await cli("lint", file);
      assert.equal(code, 0);
      // orphans (T4) are real in fork output; nothing else is expected on agent-written files
      assert.deepEqual(
        out
          .split("\n")
          .filter(Boolean)
          .filter((l) => !/ warning orphan: /.test(l)),
        [],
        file,
      );
    }
  });

  it("usage errors exit 64; a missing file exits 2 with the reason", async () => {
    assert.equal((await cli()).code, 64);
    assert.equal((await cli("frobnicate")).code, 64);
    assert.equal((await cli("tree")).code, 64);
    assert.equal((await cli("tree", S2, "--bogus")).code, 64);
    const missing = await cli("tree", "/nonexistent/x.jsonl");
    assert.equal(missing.code, 2);
    assert.match(missing.err, /ENOENT/);
  });

  it("the built dist/cli.js runs as a program with the documented exit codes", () => {
    withTempDir((dir) => {
      const dup = join(dir, "dup.jsonl");
      const h = header({ id: "s", cwd: "/w" });
      writeFileSync(
        dup,
        jsonl(h, { type: "custom", id: "a", parentId: null, timestamp: "2026-01-01T00:00:00Z", customType: "x" }, h),
      );
      const rejected = spawnSync(process.execPath, [CLI, "tree", dup, "--json"], { encoding: "utf8" });
      assert.equal(rejected.status, 2);
      assert.deepEqual(JSON.parse(rejected.stdout), {
        file: dup,
        rejected: {
          line: 3,
          code: "duplicate-header",
          message: "a second session header (first on line 1); the file is ambiguous",
        },
      });
      const ok = spawnSync(process.execPath, [CLI, "tree", S2, "--json"], { encoding: "utf8" });
      assert.equal(ok.status, 0);
      assert.equal(JSON.parse(ok.stdout).name, "Stats helpers (sum/avg/median)");
      assert.equal(spawnSync(process.execPath, [CLI, "nope"], { encoding: "utf8" }).status, 64);
    });
  });
});
