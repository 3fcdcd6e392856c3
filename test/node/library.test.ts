// The live library (src/node/library.ts) on real files: listing, the watcher's changes, the sweep behind the watcher,
// and opening a session while it is being read.
import * as assert from "node:assert/strict";
import { appendFileSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { parseSession } from "../../src/core/session/index.js";
import { SessionLibrary } from "../../src/node/library.js";
import { loadSqlite } from "../../src/node/sqlite.js";
import { resolveRoots } from "../../src/node/roots.js";
// @ts-expect-error: a plain ESM script shared with the VS Code runners (no type declarations)
import { buildFixtureHome } from "../../scripts/vscode/fixture-home.mjs";
import { header, message } from "../support/builders.js";
import { jsonl } from "../support/helpers.js";

describe("SessionLibrary: listing plus live changes", () => {
  let dir: string;
  let home: { home: string; workspace: string; piSessions: string; ompSessions: string };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "pi-lib-"));
    home = buildFixtureHome(join(dir, "home"));
  });
  // A library may still be writing its cache (temp file + rename) when a test ends.
  afterEach(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));

  const library = (opts: { includeOmp?: boolean } = {}) =>
    new SessionLibrary({
      roots: resolveRoots({ env: {}, home: home.home }),
      cacheFile: join(dir, "cache.json"),
      ...opts,
    });
  const hostPaths = () => ({ home: home.home, tmpdir: tmpdir(), windows: false });

  it("lists both agents, groups by project, and finds this workspace's sessions", async () => {
    const lib = library();
    await lib.ensureLoaded();
    // The first paint probes files larger than 16 KB (head and tail only); the background pass completes them.
    const partial = lib.sessions.filter((s) => s.summary.ok && s.summary.partial);
    assert.ok(partial.length > 0, "the large upstream session is probed first");
    for (const s of partial) assert.ok(s.summary.ok && s.summary.id && s.summary.cwd !== undefined);
    await lib.whenComplete();
    assert.ok(
      lib.sessions.every((s) => !(s.summary.ok && s.summary.partial)),
      "all complete",
    );
    assert.equal(lib.sessions.length, 29);
    const ws = lib.workspaceSessions([home.workspace], hostPaths());
    assert.ok(ws.length >= 10);
    assert.ok(ws.every((s) => (s.summary.ok && s.summary.cwd === home.workspace) || s.slug?.includes("src-proj")));
    const projects = lib.projects();
    assert.ok(projects.some((p) => p.cwd === home.workspace));
    // Newest first.
    for (let i = 1; i < projects.length; i++) assert.ok(projects[i - 1]!.lastActivity >= projects[i]!.lastActivity);
    const noOmp = library({ includeOmp: false });
    await noOmp.ensureLoaded();
    assert.ok(noOmp.sessions.every((s) => !s.summary.ok || s.summary.flavor === "pi"));
    assert.ok(noOmp.sessions.length < lib.sessions.length);
  });

  it("applies appends (not structural), new files and removals (structural); ignores paths outside roots", async () => {
    const lib = library();
    await lib.ensureLoaded();
    const s2 = lib.sessions.find((s) => s.file.includes("d4f8"))!;
    const opened = await lib.open(s2.file);
    assert.ok(opened.ok);
    const n = opened.session.entries.length;
    const line = jsonl(message("zz01", opened.session.leafId, "user", "more", { time: new Date().toISOString() }));
    appendFileSync(s2.file, line);
    let set = await lib.applyChanges([s2.file]);
    assert.deepEqual(set, { changes: [{ file: s2.file, kind: "changed" }], structural: false });
    const after = lib.peek(s2.file)!;
    assert.ok(after.ok && after.session.entries.length === n + 1);
    const summary = lib.get(s2.file)!.summary;
    assert.equal(summary.ok && summary.leafId, "zz01");

    const fresh = join(dirname(s2.file), "2026-11-29T20-00-00-000Z_new.jsonl");
    writeFileSync(fresh, jsonl(header({ id: "new-session", time: new Date().toISOString(), cwd: home.workspace })));
    set = await lib.applyChanges([fresh]);
    assert.deepEqual(set, { changes: [{ file: fresh, kind: "added" }], structural: true });
    assert.ok(lib.workspaceSessions([home.workspace], hostPaths()).some((s) => s.file === fresh));

    unlinkSync(fresh);
    set = await lib.applyChanges([fresh]);
    assert.deepEqual(set, { changes: [{ file: fresh, kind: "removed" }], structural: true });
    assert.equal(lib.get(fresh), undefined);

    const outside = join(dir, "outside.jsonl");
    writeFileSync(outside, readFileSync(s2.file));
    set = await lib.applyChanges([outside, "/etc/passwd"]);
    assert.deepEqual(set, { changes: [], structural: false });
    assert.equal(lib.get(outside), undefined);
  });

  it("a new Oh My Pi session takes its title from history.db when it appears", async () => {
    const Database = await loadSqlite();
    const db = new Database(join(home.home, ".omp", "agent", "history.db"));
    db.exec("CREATE TABLE session_titles (session_id TEXT PRIMARY KEY, title TEXT NOT NULL, updated_at INTEGER);");
    db.run("INSERT INTO session_titles VALUES ('omp-live-1', 'Named by OMP', 0)");
    db.close();
    const lib = library();
    await lib.ensureLoaded();
    const file = join(home.ompSessions, "-src-proj", "2026-11-29T20-00-00-000Z_omp-live-1.jsonl");
    const title = { type: "title", v: 1, title: "", updatedAt: new Date().toISOString(), pad: " ".repeat(40) };
    writeFileSync(
      file,
      jsonl(title, header({ id: "omp-live-1", time: new Date().toISOString(), cwd: home.workspace })),
    );
    const set = await lib.applyChanges([file]);
    assert.deepEqual(set.changes, [{ file, kind: "added" }]);
    assert.equal(lib.get(file)?.historyTitle, "Named by OMP");
  });

  it("a sweep finds what the watcher missed (appended, added, removed), and reads no unchanged file", async () => {
    const lib = library();
    await lib.whenComplete();
    const count = lib.sessions.length;
    // Nothing changed: no change, and no file followed (none was read).
    assert.deepEqual(await lib.sweep(), { changes: [], structural: false });
    assert.ok(lib.sessions.every((s) => !lib.tracker(s.file)));
    const s2 = lib.sessions.find((s) => s.file.includes("d4f8"))!;
    const leaf = s2.summary.ok ? s2.summary.leafId : null;
    appendFileSync(s2.file, jsonl(message("sw01", leaf, "user", "missed", { time: new Date().toISOString() })));
    const fresh = join(dirname(s2.file), "2026-11-29T20-00-00-000Z_swept.jsonl");
    writeFileSync(fresh, jsonl(header({ id: "swept", time: new Date().toISOString(), cwd: home.workspace })));
    const gone = lib.sessions.find(
      (s) => s.file !== s2.file && s.file.includes(home.piSessions) && !s.children.length,
    )!;
    unlinkSync(gone.file);
    const set = await lib.sweep();
    const kinds = new Map(set.changes.map((c) => [c.file, c.kind]));
    assert.deepEqual(
      [kinds.get(s2.file), kinds.get(fresh), kinds.get(gone.file), set.changes.length, set.structural],
      ["changed", "added", "removed", 3, true],
    );
    const after = lib.get(s2.file)!.summary;
    assert.equal(after.ok && after.leafId, "sw01");
    assert.equal(lib.sessions.length, count);
    assert.deepEqual(await lib.sweep(), { changes: [], structural: false }, "a second sweep finds nothing");
  });

  it("a sweep follows the settings by each session's agent, and repairs a listing older than its model", async () => {
    const root = join(dir, "any");
    mkdirSync(join(root, "--w--"), { recursive: true });
    const file = (name: string) => join(root, "--w--", `2026-01-01T00-00-00-000Z_${name}.jsonl`);
    const ompHeader = { ...header({ id: "omp-one" }), title: "OMP" }; // an OMP header: its title key
    writeFileSync(file("omp"), jsonl(ompHeader, message("o1", null, "user", "hi")));
    // A root of any agent (the agentDirs setting) with Oh My Pi left out.
    const lib = new SessionLibrary({
      roots: [{ dir: root, agent: "any", source: "test" }],
      cacheFile: null,
      includeOmp: false,
    });
    await lib.ensureLoaded();
    assert.deepEqual(lib.sessions, []);
    // A pi session whose watcher event was lost is taken in; the OMP one is neither listed, followed, nor read again.
    writeFileSync(file("pi"), jsonl(header({ id: "pi-one" }), message("p1", null, "user", "hi")));
    let set = await lib.sweep();
    assert.deepEqual(set.changes, [{ file: file("pi"), kind: "added" }]);
    assert.deepEqual([await lib.sweep(), lib.tracker(file("omp"))], [{ changes: [], structural: false }, undefined]);
    // A listing older than the followed model (a Refresh that overlapped the file's event) is brought up to it.
    await lib.open(file("pi"));
    appendFileSync(file("pi"), jsonl(message("p2", "p1", "user", "again")));
    await lib.applyChanges([file("pi")]);
    const listed = lib.get(file("pi"))!;
    const size = listed.sizeBytes;
    Object.assign(listed, { sizeBytes: 10, summary: { ...listed.summary, leafId: "p1" } });
    set = await lib.sweep();
    assert.deepEqual(set.changes, [{ file: file("pi"), kind: "changed" }]);
    const repaired = lib.get(file("pi"))!;
    assert.deepEqual([repaired.sizeBytes, repaired.summary.ok && repaired.summary.leafId], [size, "p2"]);
  });

  it("opens of a session while its first read runs (an open's, or an event's) get the whole model", async () => {
    const lib = library();
    await lib.ensureLoaded();
    const s2 = lib.sessions.find((s) => s.file.includes("d4f8"))!;
    const whole = parseSession(s2.file, readFileSync(s2.file));
    const [a, b] = await Promise.all([lib.open(s2.file), lib.open(s2.file)]);
    assert.ok(whole.ok && a.ok && b.ok);
    assert.deepEqual(
      [a.session.entries.length, b.session.entries.length, b.session.leafId],
      [whole.session.entries.length, whole.session.entries.length, whole.session.leafId],
    );
    // The same when the first read is a watcher event's (a session listed, not followed yet).
    const other = library();
    await other.ensureLoaded();
    const applying = other.applyChanges([s2.file]);
    // Its tracker is made at once (no I/O yet): its read cannot end in microtasks.
    while (!other.tracker(s2.file)) await Promise.resolve();
    const c = await other.open(s2.file);
    await applying;
    assert.ok(c.ok);
    assert.deepEqual(
      [c.session.entries.length, c.session.leafId],
      [whole.session.entries.length, whole.session.leafId],
    );
  });

  it("a re-listing keeps a followed session's live state", async () => {
    const lib = library();
    await lib.ensureLoaded();
    const s1 = lib.sessions.find((s) => s.file.includes("d404"))!;
    await lib.open(s1.file);
    const tracker = lib.tracker(s1.file)!;
    await lib.load();
    assert.equal(lib.tracker(s1.file), tracker);
    assert.equal(basename(lib.get(s1.file)!.file), basename(s1.file));
  });
});
