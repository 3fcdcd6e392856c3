// Rename and label, written as the agent writes them: checked by the real pi 0.73.1 (in process) and pi 1.6.0 (its
// own Node, test/oracles/pi16) reading the file afterwards, and by the raw bytes (the file only grows by one line).
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { parseSession } from "../../../src/core/session/index.js";
import { summarize } from "../../../src/core/summary.js";
import { transcript } from "../../../src/core/transcript.js";
import { lastActivity, lastWritten, type StoreSession } from "../../../src/node/store/index.js";
import { labelEntry, renameSession } from "../../../src/node/manage/appendEntry.js";
import { PI_FIXTURES, REAL } from "../../support/fixtures.js";
import { askPi16, type Pi16Names } from "../../support/pi16.js";
import { sleep } from "../../support/helpers.js";
import { cliIn } from "../../support/cli.js";

const PI = PI_FIXTURES.find((f) => f.includes("d4f8"))!;
const PI16 = join(
  REAL,
  "pi-1.6",
  "sessions",
  "--home-ana-src-tidepool--",
  "2026-11-24T08-23-59-262Z_01a20ca7-961d-7164-bbff-7f8b174cf507.jsonl",
);

type Raw = { type: string; id: string; name?: string; label?: string; targetId?: string };
const records = (file: string) =>
  readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Raw);
const idle = (file: string) => utimesSync(file, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));

/** pi 0.73.1's reading of a copy (its loader may add a newline to the file it opens). */
function pi073(file: string) {
  const dir = mkdtempSync(join(tmpdir(), "pi073-"));
  try {
    copyFileSync(file, join(dir, "s.jsonl"));
    const sm = SessionManager.open(join(dir, "s.jsonl"), dir);
    const labels = new Map(sm.getEntries().map((e) => [e.id, sm.getLabel(e.id) ?? null]));
    return { name: sm.getSessionName() ?? null, label: (id: string) => labels.get(id) ?? null };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("rename and label: what pi reads after our CLI wrote", function () {
  this.timeout(120_000);
  let home: string;
  let agentDir: string;
  const cli = cliIn(() => agentDir);
  const put = (source: string) => {
    const dest = join(agentDir, "sessions", "--proj--", "s.jsonl");
    copyFileSync(source, dest);
    // Idle: not written in the last seconds (a file written just now is in an agent's hands).
    idle(dest);
    return dest;
  };

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "pi-manage-"));
    agentDir = join(home, "agent");
    mkdirSync(join(agentDir, "sessions", "--proj--"), { recursive: true });
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("rename: pi 0.73 and pi 1.6 read the new name; the file grew by one line; an empty name clears it", async () => {
    for (const source of [PI, PI16]) {
      const file = put(source);
      const before = readFileSync(file);
      const r = await cli("rename", file, "  CSV importer:\n\tamounts\u0007 ", "--json");
      assert.equal(r.code, 0, r.err);
      const after = readFileSync(file);
      assert.deepEqual(after.subarray(0, before.length), before, "every byte before is unchanged");
      const added = after.subarray(before.length).toString("utf8");
      assert.equal(added.split("\n").length, 2, "one whole line");
      const rec = JSON.parse(added) as Record<string, unknown>;
      assert.deepEqual(Object.keys(rec), ["type", "id", "parentId", "timestamp", "name"], "pi's field order");
      assert.equal(rec.name, "CSV importer: amounts");
      assert.match(rec.id as string, /^[0-9a-f]{8}$/);
      assert.equal(pi073(file).name, "CSV importer: amounts");
      assert.equal(askPi16<Pi16Names>({ op: "names", files: [file] })[0]!.name, "CSV importer: amounts");
      idle(file);
      assert.equal((await cli("rename", file, "")).code, 0);
      assert.equal(pi073(file).name, null, "an empty name clears it");
    }
  });

  it("label and unlabel: pi 0.73 and pi 1.6 read them; an unknown entry is refused, nothing written", async () => {
    const file = put(PI16);
    const target = records(file).find((r) => r.type === "message")!.id;
    assert.equal((await cli("label", file, target, "before the refactor")).code, 0);
    assert.equal(pi073(file).label(target), "before the refactor");
    assert.equal(askPi16<Pi16Names>({ op: "names", files: [file] })[0]!.labels[target], "before the refactor");
    // The transcript shows it on the entry it marks.
    const parsed = parseSession(file, readFileSync(file));
    assert.ok(parsed.ok);
    assert.equal(transcript(parsed.session).find((i) => i.entryId === target)?.label, "before the refactor");
    idle(file);
    assert.equal((await cli("label", file, target)).code, 0);
    assert.equal(pi073(file).label(target), null);
    const removal = records(file).at(-1)!;
    assert.equal(removal.type, "label");
    assert.equal("label" in removal, false, "a removal has no label field, as pi writes it");
    idle(file);
    const bytes = readFileSync(file);
    const refused = await cli("label", file, "deadbeef", "x");
    assert.equal(refused.code, 3);
    assert.match(refused.err, /no entry "deadbeef"/);
    assert.deepEqual(readFileSync(file), bytes);
  });

  it("refused, nothing written: a file written just now, a file outside the session folders, a dry run", async () => {
    const file = put(PI);
    const bytes = readFileSync(file);
    const dry = await cli("rename", file, "x", "--dry-run", "--json");
    assert.equal(dry.code, 3);
    assert.equal((JSON.parse(dry.out) as { entry: Raw }).entry.name, "x");
    utimesSync(file, new Date(), new Date());
    const busy = await cli("rename", file, "x");
    assert.match(busy.err, /written in the last few seconds/);
    const outside = join(home, "elsewhere.jsonl");
    writeFileSync(outside, bytes);
    const far = await cli("rename", outside, "x");
    assert.equal(far.code, 3);
    assert.match(far.err, /not under the session folders/);
    assert.deepEqual(readFileSync(file), bytes);
    assert.deepEqual(readFileSync(outside), bytes);
  });

  it("a second change right after our own is no agent at work; a change by anyone else since is", async () => {
    const file = put(PI);
    await renameSession(file, "first");
    const target = records(file)[1]!.id;
    await labelEntry(file, target, "right after");
    assert.equal(pi073(file).label(target), "right after");
    // An agent appends: the file is no longer what our write left.
    const last = records(file).at(-1)!.id;
    const agentLine = { type: "custom", customType: "agent", id: "a9e9e9e9", parentId: last, timestamp: "2026-12-01" };
    writeFileSync(file, `${readFileSync(file, "utf8")}${JSON.stringify(agentLine)}\n`);
    await assert.rejects(renameSession(file, "third"), /written in the last few seconds/);
  });

  it("a name or label written later is no activity: the session keeps its age and is not taken for live", async () => {
    const file = put(PI16);
    await renameSession(file, "later name");
    const raw = records(file) as (Raw & { timestamp?: string })[];
    const activity = Math.max(
      ...raw.filter((r) => !["session", "session_info", "label"].includes(r.type)).map((r) => Date.parse(r.timestamp!)),
    );
    const summary = summarize(parseSession(file, readFileSync(file)));
    assert.ok(summary.ok);
    assert.equal(summary.lastActiveAt, activity);
    assert.equal(summary.metadataTail, true);
    const listed = { file, mtimeMs: statSync(file).mtimeMs, summary } as unknown as StoreSession;
    assert.equal(lastActivity(listed), activity, "as old as its last activity");
    assert.equal(lastWritten(listed), activity, "not written by an agent just now");
  });

  it("renames racing an agent's appends: every line of both is kept whole", async () => {
    const file = put(PI);
    const leaf = records(file).at(-1)!.id;
    const agent = spawn(process.execPath, [
      "-e",
      `const fs = require("node:fs");
       let parent = ${JSON.stringify(leaf)};
       for (let n = 0; n < 400; n++) {
         const id = (0x20000000 + n).toString(16);
         fs.appendFileSync(${JSON.stringify(file)}, JSON.stringify({ type: "custom", customType: "agent", id,
           parentId: parent, timestamp: new Date().toISOString(), data: { n, pad: "x".repeat(3000) } }) + "\\n");
         parent = id;
         const until = Date.now() + 2; while (Date.now() < until);
       }`,
    ]);
    const exited = new Promise((resolve) => agent.on("exit", resolve));
    let wrote = 0;
    for (let i = 0; i < 20; i++) {
      // The busy window is what refuses in daily use; here it is off, so that the writes really race.
      await renameSession(file, `race ${i}`, { busyWindowMs: 0 }).then(
        () => wrote++,
        // Refused either way the race can fall: the file grew since it was read, or an append was caught mid-line.
        (e: Error) =>
          assert.match(
            e.message,
            /(changed since it was read|the last line is incomplete \(.*\)); nothing was written/,
          ),
      );
      await sleep(5);
    }
    await exited;
    const parsed = readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Raw);
    assert.equal(parsed.filter((r) => r.type === "custom" && r.id.startsWith("2")).length, 400, "every agent line");
    const ours = parsed.filter((r) => r.type === "session_info" && r.name?.startsWith("race "));
    assert.equal(ours.length, wrote, "each rename that said it wrote, and no other");
    assert.ok(wrote > 0);
  });
});
