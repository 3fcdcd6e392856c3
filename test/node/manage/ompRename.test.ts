// Rename and label of Oh My Pi sessions, checked by the real OMP 18.2.3 (test/oracles/omp, under Bun) reading the file
// afterwards, and by the raw bytes: one appended line, the 256-byte title slot rewritten in place, nothing else.
import * as assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OMP_FIXTURES } from "../../support/fixtures.js";
import { askOmp, type OmpNames } from "../../support/omp.js";
import { cliIn } from "../../support/cli.js";

const TITLED = OMP_FIXTURES.find((f) => f.includes("01a228a4-d97d"))!;
const idle = (file: string) => utimesSync(file, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));

describe("rename and label of Oh My Pi sessions: what OMP reads after our CLI wrote", function () {
  this.timeout(120_000);
  let home: string;
  let agentDir: string;
  const cli = cliIn(() => agentDir);
  const put = (source: string, bytes?: Buffer) => {
    const dest = join(agentDir, "sessions", "-proj", "s.jsonl");
    if (bytes) writeFileSync(dest, bytes);
    else copyFileSync(source, dest);
    idle(dest);
    return dest;
  };
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "omp-manage-"));
    agentDir = join(home, "agent");
    mkdirSync(join(agentDir, "sessions", "-proj"), { recursive: true });
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("rename: OMP reads the name, source user; one title_change line; only the 256-byte slot rewritten", async () => {
    const file = put(TITLED);
    const before = readFileSync(file);
    const was = askOmp<OmpNames[]>({ op: "names", files: [file] })[0]!;
    const r = await cli("rename", file, "  CSV\timporter:\n  amounts\u0007 ", "--json");
    assert.equal(r.code, 0, r.err);
    const after = readFileSync(file);
    assert.deepEqual(after.subarray(256, before.length), before.subarray(256), "every byte after the slot unchanged");
    assert.equal(after.subarray(0, 256).toString("utf8").endsWith("\n"), true);
    const added = after.subarray(before.length).toString("utf8");
    assert.equal(added.split("\n").length, 2, "one whole line");
    const rec = JSON.parse(added) as Record<string, unknown>;
    assert.deepEqual(Object.keys(rec), ["type", "id", "parentId", "timestamp", "title", "source", "previousTitle"]);
    assert.equal(rec.type, "title_change");
    assert.equal(rec.previousTitle, was.name);
    const omp = askOmp<OmpNames[]>({ op: "names", files: [file] })[0]!;
    assert.equal(omp.name, "CSV importer: amounts", "OMP's own cleaning: control characters and runs of spaces");
    assert.equal(omp.titleSource, "user");
    assert.deepEqual(omp.titleSlot, { title: "CSV importer: amounts", source: "user", updatedAt: rec.timestamp });
  });

  it("a long title: the slot holds what fits and OMP names the session by it; ours by the whole record", async () => {
    const file = put(TITLED);
    const long = `Größe ${"lang ".repeat(80)}ende`;
    assert.equal((await cli("rename", file, long)).code, 0);
    assert.equal(readFileSync(file).indexOf(0x0a), 255, "the slot is still exactly 256 bytes");
    const omp = askOmp<OmpNames[]>({ op: "names", files: [file] })[0]!;
    assert.ok(long.startsWith(omp.titleSlot!.title) && omp.titleSlot!.title.length < long.length);
    assert.equal(omp.name, omp.titleSlot!.title);
    // Ours shows the whole title the user gave (the record keeps it), which begins with what OMP shows.
    const listed = await cli("list", "--json", "--no-cache");
    const { sessions } = JSON.parse(listed.out) as { sessions: { file: string; name: string | null }[] };
    const ours = sessions.find((s) => s.file === file);
    assert.equal(ours?.name, long);
  });

  it("label: OMP reads it; refused, nothing written: an empty name, a file without a title slot", async () => {
    const file = put(TITLED);
    const target = readFileSync(file, "utf8").split("\n")[2]!;
    const id = (JSON.parse(target) as { id: string }).id;
    assert.equal((await cli("label", file, id, "start here")).code, 0);
    assert.equal(askOmp<OmpNames[]>({ op: "names", files: [file] })[0]!.labels[id], "start here");
    idle(file);
    const bytes = readFileSync(file);
    const empty = await cli("rename", file, " \n ");
    assert.equal(empty.code, 3);
    assert.match(empty.err, /cannot clear/);
    assert.deepEqual(readFileSync(file), bytes);
    // The same session without its slot (as OMP before 18 wrote it): OMP would rewrite the file to rename it.
    const legacy = put(TITLED, bytes.subarray(256));
    const old = readFileSync(legacy);
    const refused = await cli("rename", legacy, "new");
    assert.equal(refused.code, 3);
    assert.match(refused.err, /no title slot/);
    assert.deepEqual(readFileSync(legacy), old);
  });
});
