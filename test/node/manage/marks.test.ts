// Pins and archives: an Oh My Pi pin is read back by the real OMP 18.2.3's loadPinnedSessionIds (test/oracles/omp);
// pi pins and archives are ours, by session id, and change no session file. Races: OMP toggling pins under its own
// lock while we pin, and two of our processes pinning at once, lose nothing.
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliIn } from "../../support/cli.js";
import { setOmpPin } from "../../../src/node/manage/ompPins.js";
import { REAL } from "../../support/fixtures.js";
import { askOmp, askOmpAsync } from "../../support/omp.js";
import { pathToFileURL } from "node:url";

interface Row {
  id: string;
  file: string;
  pinned: boolean;
  archived: boolean;
  familyRoot: string;
}

describe("pin, unpin, archive, unarchive (CLI)", function () {
  this.timeout(120_000);
  let home: string;
  let saved: string | undefined;
  const cli = (agentDir: string, ...args: string[]) => cliIn(() => agentDir)(...args);
  const list = async (agentDir: string, ...more: string[]) =>
    (JSON.parse((await cli(agentDir, "list", "--json", "--no-cache", ...more)).out) as { sessions: Row[] }).sessions;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "pi-marks-"));
    saved = process.env.PI_SESSIONS_CACHE_DIR;
    process.env.PI_SESSIONS_CACHE_DIR = join(home, "cache");
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.PI_SESSIONS_CACHE_DIR;
    else process.env.PI_SESSIONS_CACHE_DIR = saved;
    rmSync(home, { recursive: true, force: true });
  });

  it("an Oh My Pi pin is in OMP's session-pins.json, as OMP reads it; unpin removes it", async () => {
    const agentDir = join(home, "omp");
    cpSync(join(REAL, "omp"), agentDir, { recursive: true });
    const before = await list(agentDir);
    const last = before.at(-1)!;
    const r = await cli(agentDir, "pin", last.file, "--json");
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(askOmp<string[]>({ op: "pins", agentDir }), [last.id]);
    const pins = join(agentDir, "session-pins.json");
    assert.equal(readFileSync(pins, "utf8"), `[\n\t${JSON.stringify(last.id)}\n]`, "as OMP writes it");
    assert.equal(statSync(pins).mode & 0o777, 0o600);
    const after = await list(agentDir);
    assert.equal(after.find((s) => s.file === last.file)?.pinned, true);
    assert.equal(after[0]!.familyRoot, last.familyRoot, "its family lists first");
    // Pinned by OMP itself: we read it too.
    const other = before[0]!;
    askOmp({ op: "togglePins", agentDir, ids: [other.id] });
    assert.equal((await list(agentDir)).find((s) => s.file === other.file)?.pinned, true);
    assert.equal((await cli(agentDir, "unpin", last.file)).code, 0);
    assert.deepEqual(askOmp<string[]>({ op: "pins", agentDir }), [other.id]);
    assert.equal((await cli(agentDir, "unpin", last.file)).code, 3, "already unpinned: nothing written");
  });

  it("pi: a pinned fork's family lists first; archive hides, --archived shows; no file changes", async () => {
    const agentDir = join(home, "pi");
    cpSync(join(REAL, "pi"), agentDir, { recursive: true });
    const before = await list(agentDir);
    const fork = before.find((s) => s.file.includes("ce6744ae"))!;
    const bytes = readFileSync(fork.file);
    assert.notEqual(before[0]!.familyRoot, fork.familyRoot);
    assert.equal((await cli(agentDir, "pin", fork.file)).code, 0);
    const pinned = await list(agentDir);
    assert.deepEqual(
      pinned.slice(0, 2).map((s) => s.familyRoot),
      [fork.familyRoot, fork.familyRoot],
      "the fork and its parent first",
    );
    assert.ok(readFileSync(join(home, "cache", "session-marks.json"), "utf8").includes(fork.id));
    const dry = await cli(agentDir, "archive", fork.file, "--dry-run", "--json");
    assert.equal(dry.code, 3);
    assert.equal((JSON.parse(dry.out) as { changed: boolean }).changed, true);
    assert.equal((await list(agentDir)).length, before.length, "a dry run archives nothing");
    assert.equal((await cli(agentDir, "archive", fork.file)).code, 0);
    const hidden = await list(agentDir);
    assert.equal(hidden.length, before.length - 1);
    assert.equal(
      hidden.some((s) => s.file === fork.file),
      false,
    );
    const all = await list(agentDir, "--archived");
    assert.equal(all.find((s) => s.file === fork.file)?.archived, true);
    assert.equal((await cli(agentDir, "unarchive", fork.file)).code, 0);
    assert.equal((await list(agentDir)).length, before.length);
    assert.deepEqual(readFileSync(fork.file), bytes, "the session file is never touched");
  });

  it("refused, nothing written: a pins file that is not a list, a file outside the session folders", async () => {
    const agentDir = join(home, "omp");
    cpSync(join(REAL, "omp"), agentDir, { recursive: true });
    const file = (await list(agentDir))[0]!.file;
    writeFileSync(join(agentDir, "session-pins.json"), '{"not": "a list"}');
    const r = await cli(agentDir, "pin", file);
    assert.equal(r.code, 3);
    assert.match(r.err, /session-pins\.json: is not a list of session ids; nothing was written/);
    assert.equal(readFileSync(join(agentDir, "session-pins.json"), "utf8"), '{"not": "a list"}');
    const outside = join(home, "x.jsonl");
    writeFileSync(outside, readFileSync(file));
    assert.match((await cli(agentDir, "pin", outside)).err, /not under the session folders/);
  });

  it("races: OMP toggling pins under its lock, and two of our processes at once, keep every pin", async () => {
    const agentDir = join(home, "race");
    const theirs = Array.from({ length: 150 }, (_, i) => `omp-${i}`);
    const omp = askOmpAsync<boolean[]>({ op: "togglePins", agentDir, ids: theirs, gapMs: 3 });
    const module = pathToFileURL(join(import.meta.dirname, "../../../src/node/manage/ompPins.ts")).href;
    const ours = (tag: string) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(
          process.execPath,
          [
            "--import",
            "tsx",
            "--input-type=module",
            "-e",
            `const { setOmpPin } = await import(${JSON.stringify(module)});
             for (let i = 0; i < 25; i++) await setOmpPin(${JSON.stringify(agentDir)}, "${tag}-" + i, true);`,
          ],
          { stdio: "inherit" },
        );
        child.on("exit", resolve);
      });
    const [a, b] = await Promise.all([ours("a"), ours("b"), omp]);
    assert.equal(a, 0);
    assert.equal(b, 0);
    for (let i = 0; i < 5; i++) await setOmpPin(agentDir, `c-${i}`, true);
    const expected = [
      ...theirs,
      ...[..."ab"].flatMap((t) => Array.from({ length: 25 }, (_, i) => `${t}-${i}`)),
      ...Array.from({ length: 5 }, (_, i) => `c-${i}`),
    ].sort();
    const pins = askOmp<string[]>({ op: "pins", agentDir });
    const missing = expected.filter((id) => !pins.includes(id));
    assert.deepEqual({ missing, extra: pins.filter((id) => !expected.includes(id)) }, { missing: [], extra: [] });
  });
});
