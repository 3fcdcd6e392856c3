// Delete to the trash and restore (pi-sessions trash / restore): the freedesktop.org trash layout from the raw files
// (files/ and info/*.trashinfo), byte-identical round trips, and the listing, search and usage following.
import * as assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REAL } from "../../support/fixtures.js";
import { cliIn } from "../../support/cli.js";

const PARENT = "2026-11-29T18-50-21-986Z_01a228a4-d9a2-7000-85ca-ecf671b91f93";
const LONE = "2026-11-29T18-50-21-949Z_01a228a4-d97d-7000-81b9-790e6f289314";
/** A session nothing is forked from: its turns are in no other file. */
const UNFORKED = join("-src-legacy-omp", "2026-11-29T18-50-23-039Z_01a228a4-ddbf-7000-b787-4ee92607f669.jsonl");

interface Row {
  file: string;
  parentState: string;
}

/** The cost the raw file's assistant messages say they had. */
function rawCost(file: string): number {
  let sum = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { type: string; message?: { role?: string; usage?: { cost?: { total?: number } } } };
    if (r.type === "message" && r.message?.role === "assistant") sum += r.message.usage?.cost?.total ?? 0;
  }
  return sum;
}

describe("trash and restore (CLI)", function () {
  this.timeout(120_000);
  let home: string;
  let agentDir: string;
  let proj: string;
  const saved: Record<string, string | undefined> = {};
  const cli = cliIn(() => agentDir);
  const list = async () =>
    (JSON.parse((await cli("list", "--json", "--no-cache")).out) as { sessions: Row[] }).sessions;
  const total = async () =>
    (JSON.parse((await cli("usage", "--json", "--no-cache")).out) as { total: { cost: number } }).total.cost;
  const hits = async (q: string) =>
    (JSON.parse((await cli("search", q, "--json")).out) as { hits: { file: string }[] }).hits.map((h) => h.file);

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "pi-trash-"));
    for (const k of ["XDG_DATA_HOME", "PI_SESSIONS_CACHE_DIR"]) saved[k] = process.env[k];
    process.env.XDG_DATA_HOME = join(home, "data");
    process.env.PI_SESSIONS_CACHE_DIR = join(home, "cache");
    agentDir = join(home, "agent");
    cpSync(join(REAL, "omp"), agentDir, { recursive: true });
    proj = join(agentDir, "sessions", "-src-proj");
    const old = new Date(Date.now() - 3_600_000);
    for (const dir of readdirSync(join(agentDir, "sessions")))
      for (const f of readdirSync(join(agentDir, "sessions", dir)))
        utimesSync(join(agentDir, "sessions", dir, f), old, old);
  });
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(home, { recursive: true, force: true });
  });

  it("an OMP session goes with its subagents' folder; its forks stay, orphans; restore is byte-identical", async () => {
    const file = join(proj, `${PARENT}.jsonl`);
    const folder = join(proj, PARENT);
    const bytes = readFileSync(file);
    const { mtimeMs, ino } = statSync(file);
    const before = await list();
    const r = await cli("trash", file, "--json");
    assert.equal(r.code, 0, r.err);
    const trash = join(home, "data", "Trash");
    assert.deepEqual(readdirSync(join(trash, "files")).sort(), [PARENT, `${PARENT}.jsonl`].sort());
    const info = readFileSync(join(trash, "info", `${PARENT}.jsonl.trashinfo`), "utf8");
    assert.match(info, /^\[Trash Info\]\nPath=(.*)\nDeletionDate=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\n$/);
    assert.equal(decodeURIComponent(/^Path=(.*)$/m.exec(info)![1]!), file);
    assert.ok(!existsSync(file) && !existsSync(folder));
    const after = await list();
    assert.equal(after.length, before.length - 3, "the session and its two subagent sessions");
    const forks = after.filter((s) => readFileSync(s.file, "utf8").includes("d9a2-7000"));
    assert.ok(forks.length >= 2);
    for (const f of forks) assert.notEqual(f.parentState, "resolved", `${f.file} is an orphan now`);
    const listed = await cli("restore", "--json");
    const deleted = (JSON.parse(listed.out) as { sessions: { id: string; file: { original: string } }[] }).sessions;
    assert.deepEqual(
      deleted.map((d) => [d.id, d.file.original]),
      [["01a228a4-d9a2-7000-85ca-ecf671b91f93", file]],
    );
    assert.equal((await cli("restore", "01a228a4-d9a2-7000-85ca-ecf671b91f93")).code, 0);
    assert.deepEqual(readFileSync(file), bytes);
    assert.equal(statSync(file).mtimeMs, mtimeMs, "its times kept");
    assert.equal(statSync(file).ino, ino, "the same file, moved back");
    assert.ok(existsSync(join(folder, "0-Explore.jsonl")));
    assert.deepEqual(readdirSync(join(trash, "info")), [], "its trash info gone");
    assert.equal((await list()).length, before.length);
  });

  it("usage totals and search follow a delete and a restore", async () => {
    const file = join(agentDir, "sessions", UNFORKED);
    const cost = rawCost(file);
    assert.ok(cost > 0);
    const word = "legacy";
    const before = await total();
    assert.ok((await hits(word)).includes(file));
    assert.equal((await cli("trash", file)).code, 0);
    assert.ok(Math.abs(before - (await total()) - cost) < 1e-9, "its turns leave the totals");
    assert.ok(!(await hits(word)).includes(file));
    assert.equal((await cli("restore", file)).code, 0);
    assert.ok(Math.abs((await total()) - before) < 1e-9);
    assert.ok((await hits(word)).includes(file));
  });

  it("refused, nothing moved: a file written just now, a restore over a file that is there, a dry run", async () => {
    const file = join(proj, `${LONE}.jsonl`);
    const dry = await cli("trash", file, "--dry-run", "--json");
    assert.equal(dry.code, 3);
    assert.deepEqual((JSON.parse(dry.out) as { wouldMove: string[] }).wouldMove, [file]);
    assert.ok(existsSync(file));
    utimesSync(file, new Date(), new Date());
    const busy = await cli("trash", file);
    assert.equal(busy.code, 3);
    assert.match(busy.err, /written in the last few seconds/);
    utimesSync(file, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    const bytes = readFileSync(file);
    assert.equal((await cli("trash", file)).code, 0);
    cpSync(join(REAL, "omp", "sessions", "-src-proj", `${PARENT}.jsonl`), file);
    const over = await cli("restore", file);
    assert.equal(over.code, 3);
    assert.match(over.err, /a file is there now; nothing was restored/);
    rmSync(file);
    assert.equal((await cli("restore", file)).code, 0);
    assert.deepEqual(readFileSync(file), bytes);
    assert.match((await cli("restore", "no-such-id")).err, /no session of that path or id is in the trash/);
  });
});
