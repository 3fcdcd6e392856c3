// Crash-safe writing and repair. A child process that appends compaction entries is killed (SIGKILL) at random
// moments: afterwards the file still loads in the real pi SessionManager, every earlier entry is intact, and a partial
// last line is reported by our reader and refused as a write target until it is repaired.
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { run } from "../../src/cli/main.js";
import { parseSession } from "../../src/core/session/index.js";
import { compactBranch } from "../../src/node/compact/run.js";
import { inspectTail, repairTail } from "../../src/node/repair.js";
import { PI_FIXTURES } from "../support/fixtures.js";
import { sleep } from "../support/helpers.js";

const S1 = PI_FIXTURES.find((f) => f.includes("d404"))!;
const TRUNCATED = PI_FIXTURES.find((f) => f.includes("pi-truncated-last-line"))!;
const TRIALS = Number(process.env.CRASH_TRIALS ?? 200);

// The writer: appends compaction entries forever, each in one write (as we do) or, one in three, in two writes (as
// a crashing agent might leave it). Plain JS, so each trial starts fast.
const WRITER = `
const fs = require("node:fs");
const [file, leaf] = process.argv.slice(2);
let parent = leaf, n = 0;
for (;;) {
  const id = (0x10000000 + n++).toString(16);
  const summary = "s".repeat(2000 + (n % 7) * 5000);
  const timestamp = new Date().toISOString();
  const record = { type: "compaction", id, parentId: parent, timestamp, summary, firstKeptEntryId: leaf };
  const line = JSON.stringify({ ...record, tokensBefore: 1000, fromHook: true }) + "\\n";
  if (n % 3 === 0) {
    const fd = fs.openSync(file, "a");
    fs.writeSync(fd, line.slice(0, line.length >> 1));
    fs.writeSync(fd, line.slice(line.length >> 1));
    fs.closeSync(fd);
  } else fs.appendFileSync(file, line);
  parent = id;
}
`;

describe("crash-safe writing", function () {
  this.timeout(0);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "pi-crash-"));
    writeFileSync(join(dir, "writer.cjs"), WRITER);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(`${TRIALS} SIGKILLs at random: pi loads the file, earlier entries intact, a partial line refused`, async () => {
    const original = readFileSync(S1);
    const leaf = parseSession(S1, original);
    assert.ok(leaf.ok);
    let partial = 0;
    let loaded = 0;
    for (let t = 0; t < TRIALS; t++) {
      const file = join(dir, `t${t}.jsonl`);
      copyFileSync(S1, file);
      const child = spawn(process.execPath, [join(dir, "writer.cjs"), file, leaf.session.leafId!], { stdio: "ignore" });
      await sleep(40 + Math.floor(Math.random() * 40));
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      const bytes = readFileSync(file);
      assert.ok(bytes.subarray(0, original.length).equals(original), "every entry that existed before is intact");
      const ours = parseSession(file, bytes);
      assert.ok(ours.ok);
      const cut = bytes[bytes.length - 1] !== 0x0a;
      if (cut) {
        partial++;
        assert.equal(ours.session.truncatedTail, true, "our reader reports the partial line");
        assert.ok(ours.session.diagnostics.some((d) => d.code === "truncated-last-line" && d.line > 0));
        utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
        const r = await compactBranch({
          file,
          provider: "openai",
          model: "gpt-5.1",
          credentials: { apiKey: "k" },
          baseUrl: "http://127.0.0.1:9/v1",
        });
        assert.equal(r.state, "refused");
        assert.match(r.state === "refused" ? r.reason : "", /last line is incomplete/);
      }
      // pi opens it (on a copy: pi may rewrite what it opens).
      const copy = join(dir, "pi-copy.jsonl");
      copyFileSync(file, copy);
      const entries = SessionManager.open(copy).getEntries();
      assert.ok(entries.length >= leaf.session.entries.length);
      loaded++;
      rmSync(file);
    }
    assert.equal(loaded, TRIALS);
    console.log(`      ${TRIALS} kills, ${partial} left a partial last line`);
  });

  it("Repair removes only the incomplete last line, after a backup; the CLI shows it first", async () => {
    const file = join(dir, "cut.jsonl");
    copyFileSync(TRUNCATED, file);
    const past = new Date(Date.now() - 60_000);
    utimesSync(file, past, past);
    const original = readFileSync(file);
    let out = "";
    const show = await run(["repair", file], { out: (t) => (out += t), err: () => {} });
    assert.equal(show, 3, "without --yes nothing is written");
    assert.match(out, /the last line is incomplete/);
    assert.ok(readFileSync(file).equals(original));
    out = "";
    const code = await run(["repair", file, "--yes", "--json"], { out: (t) => (out += t), err: () => {} });
    assert.equal(code, 0);
    const r = JSON.parse(out);
    assert.equal(r.repaired, true);
    assert.ok(readFileSync(r.backup).equals(original), "the backup is the file as it was");
    const after = readFileSync(file);
    const cut = original.lastIndexOf(0x0a) + 1;
    assert.ok(after.equals(original.subarray(0, cut)), "only the incomplete line is gone");
    const parsed = parseSession(file, after);
    assert.ok(parsed.ok && !parsed.session.truncatedTail);
    assert.equal(await inspectTail(file), null, "nothing left to repair");
    assert.ok(!existsSync(`${file}.lock`));
  });

  it("Repair refuses when the file changed since it was inspected, or was just written", async () => {
    const file = join(dir, "cut2.jsonl");
    copyFileSync(TRUNCATED, file);
    const past = new Date(Date.now() - 60_000);
    utimesSync(file, past, past);
    const seen = (await inspectTail(file))!;
    writeFileSync(file, `${readFileSync(file, "utf8")}more}\n`);
    await assert.rejects(repairTail(file, seen), /changed since it was inspected/);
    copyFileSync(TRUNCATED, file);
    const fresh = (await inspectTail(file))!;
    await assert.rejects(repairTail(file, fresh), /written in the last few seconds/);
    // A complete record that only lacks its newline is not damage.
    writeFileSync(file, `${readFileSync(S1, "utf8").trimEnd()}`);
    assert.equal(await inspectTail(file), null);
  });
});
