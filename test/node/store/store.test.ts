/**
 * The session store over the real fixtures, laid out as real agent dirs under a temporary HOME:
 * discovery, lineage, fork deduplication (docs/session-format.md#forks), workspace matching, external parents,
 * nested sessions, fail-closed headers in listings, the metadata cache, and usage totals.
 */
import { strict as assert } from "node:assert";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, sep } from "node:path";
import { listedSession } from "../../../src/cli/list.js";
import { run } from "../../../src/cli/main.js";
import { slugMatches, workspaceSlugVariants } from "../../../src/core/slug.js";
import { usageReport } from "../../../src/node/report.js";
import { resolveRoots } from "../../../src/node/roots.js";

import {
  belongsToWorkspace,
  computeOwnership,
  loadStore,
  realFs,
  type StoreFs,
  type StoreSession,
} from "../../../src/node/store/index.js";
import { jsonl, plain } from "../../support/helpers.js";
import { oracleFor, REAL } from "../../support/fixtures.js";
import { fork, header } from "../../support/builders.js";

const O2 = "2026-11-29T18-50-21-986Z_01a228a4-d9a2-7000-85ca-ecf671b91f93.jsonl";
const O3 = "2026-11-29T18-50-22-033Z_01a228a4-d9d1-7000-a845-d846825115ab.jsonl";
const O4 = "2026-11-29T18-50-22-038Z_01a228a4-d9d6-7000-a79c-1eb84ee58afa.jsonl";
const S3 = "2026-11-29T18-50-20-901Z_01a228a4-d565-753b-85e0-3c4741e0caca.jsonl";
const S5A = "2026-11-29T18-50-21-130Z_01a228a4-d64a-7145-888a-572546d95234.jsonl";
const S5D = "2026-11-29T18-50-21-149Z_01a228a4-d65d-7016-8737-090e14ebe2f6.jsonl";

let home: string;
const host = () => ({ home, tmpdir: "/var/tmp/pi-fixture", windows: false });

/** A recording wrapper around the real file system: every path the store touches. */
function recordingFs(): StoreFs & { touched: string[]; reads: string[] } {
  const touched: string[] = [];
  const reads: string[] = [];
  return {
    touched,
    reads,
    readdir: (d) => (touched.push(d), realFs.readdir(d)),
    stat: (f) => (touched.push(f), realFs.stat(f)),
    readSession: (f) => (touched.push(f), reads.push(f), realFs.readSession(f)),
    readEnds: (f, n) => (touched.push(f), reads.push(f), realFs.readEnds(f, n)),
    realpath: (p) => (touched.push(p), realFs.realpath(p)),
  };
}

async function store(fs?: StoreFs, cacheFile: string | null = null) {
  return loadStore({ roots: resolveRoots({ home, env: {} }), cacheFile, fs });
}
const find = (sessions: StoreSession[], name: string) => {
  const s = sessions.find((x) => basename(x.file) === name);
  assert.ok(s, `session ${name} discovered`);
  return s;
};

describe("session store over real agent dirs", () => {
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "pse-home-"));
    cpSync(join(REAL, "pi"), join(home, ".pi", "agent"), { recursive: true });
    cpSync(join(REAL, "omp"), join(home, ".omp", "agent"), { recursive: true });
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("discovers every pi and OMP session, nested ones marked, lock/tmp/bak siblings skipped", async () => {
    const dir = join(home, ".omp", "agent", "sessions", "-src-proj");
    for (const junk of [`.${O2}.lock`, `${O2}.123.tmp`, `${O2}.456.bak`, `.hidden.jsonl`])
      writeFileSync(join(dir, junk), "{}\n");
    const { sessions } = await store();
    assert.equal(sessions.filter((s) => s.root.agent === "pi").length, 17);
    assert.equal(sessions.filter((s) => s.root.agent === "omp").length, 11);
    const nested = sessions.filter((s) => s.nestedIn);
    assert.deepEqual(nested.map((s) => basename(s.file)).sort(), ["0-Explore.jsonl", "Tan-1234567890123456789.jsonl"]);
    for (const n of nested) assert.equal(basename(n.nestedIn!), O2);
  });

  it("a file with a record before its header is listed with its rejection, never dropped; titles skipped", async () => {
    const dir = join(home, ".pi", "agent", "sessions", "--home-u-src-proj--");
    writeFileSync(
      join(dir, "bad.jsonl"),
      jsonl(
        { type: "message", id: "a", parentId: null, timestamp: "2026-01-01T00:00:00Z" },
        header({ id: "x", cwd: "/w" }),
      ),
    );
    writeFileSync(
      join(dir, "titled.jsonl"),
      jsonl(
        { type: "title", v: 1, title: "T", updatedAt: "2026-01-01T00:00:00Z", pad: "" },
        header({ id: "titled", cwd: "/w" }),
      ),
    );
    let out = "";
    const code = await run(["list", "--agent-dir", join(home, ".pi", "agent"), "--json", "--no-cache"], {
      out: (t) => (out += t),
      err: () => {},
    });
    assert.equal(code, 0);
    const json = JSON.parse(out);
    const bad = json.sessions.find((s: { file: string }) => s.file.endsWith("bad.jsonl"));
    assert.ok(bad, "rejected file is listed");
    assert.equal(bad.id, null);
    assert.ok(
      json.diagnostics.some(
        (d: { file: string; code: string; line: number }) =>
          d.file.endsWith("bad.jsonl") && d.code === "record-before-header" && d.line === 1,
      ),
    );
    assert.equal(json.sessions.find((s: { file: string }) => s.file.endsWith("titled.jsonl")).id, "titled");
  });

  it("lineage: OMP fork by id and by path, pi fork across projects, orphaning fork, v1 branchedFrom", async () => {
    const { sessions } = await store();
    const o2 = find(sessions, O2);
    assert.equal(find(sessions, O3).parent, o2, "OMP /fork names the parent by id");
    assert.equal(find(sessions, O3).parentState, "resolved");
    assert.equal(
      find(sessions, O4).parent,
      find(sessions, "2026-11-29T18-50-21-949Z_01a228a4-d97d-7000-81b9-790e6f289314.jsonl"),
      "OMP branch names the parent by path",
    );
    assert.equal(find(sessions, S5D).parent, find(sessions, S3), "pi forkFrom across projects");
    assert.equal(find(sessions, S5A).parentState, "resolved");
    const v1fork = find(sessions, "2026-11-29T18-50-19-332Z_40138620-2fc9-46fe-acf5-df59248b38af.jsonl");
    assert.equal(basename(v1fork.parent!.file), "2026-11-29T18-50-19-307Z_99c6cd96-447c-4389-a78a-0ae32fa20c5b.jsonl");
    assert.ok(o2.children.length >= 4);
  });

  it("a parentSession outside the roots is external, never opened (/etc/passwd, ../../, symlink)", async () => {
    const dir = join(home, ".pi", "agent", "sessions", "--w--");
    mkdirSync(dir, { recursive: true });
    const outside = mkdtempSync(join(tmpdir(), "pse-outside-"));
    try {
      writeFileSync(join(outside, "secret.jsonl"), jsonl(header({ id: "secret", cwd: "/w" })));
      symlinkSync(join(outside, "secret.jsonl"), join(dir, "link.jsonl"));
      const h = (id: string, parentSession: string) => fork(parentSession, { id, cwd: "/w" });
      writeFileSync(join(dir, "a.jsonl"), jsonl(h("a", "/etc/passwd")));
      writeFileSync(join(dir, "b.jsonl"), jsonl(h("b", "../../../../etc/shadow.jsonl")));
      writeFileSync(join(dir, "c.jsonl"), jsonl(h("c", join(outside, "secret.jsonl"))));
      const fs = recordingFs();
      const { sessions } = await store(fs);
      for (const id of ["a", "b", "c"]) {
        const s = sessions.find((x) => x.summary.ok && x.summary.id === id)!;
        assert.equal(s.parentState, "external", id);
        assert.equal(s.parent, null);
      }
      assert.ok(
        !sessions.some((s) => s.summary.ok && s.summary.id === "secret"),
        "the escaping symlink is not followed",
      );
      const roots = resolveRoots({ home, env: {} }).map((r) => r.dir);
      const strays = fs.touched.filter((p) => !roots.some((r) => p === r || p.startsWith(r + sep)));
      assert.deepEqual(
        strays.filter((p) => p !== join(dir, "link.jsonl")),
        [],
        "no path outside the roots was touched",
      );
      assert.ok(!fs.reads.some((p) => p.includes("passwd") || p.includes("shadow") || p.startsWith(outside)));
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("nested subagent and /tan sessions are marked nested and are never mistaken for projects", async () => {
    const { sessions } = await store();
    computeOwnership(sessions);
    const rows = sessions.map((s) => listedSession(s));
    const nested = rows.filter((r) => r.nested);
    assert.equal(nested.length, 2);
    for (const r of nested) assert.equal(r.cwd, "/home/u/src/proj");
    // the artifacts folder is not a slug folder: nothing is grouped under "<session id>" as a project
    assert.ok(!sessions.some((s) => s.slug?.endsWith("ecf671b91f93")));
    assert.ok(sessions.filter((s) => s.nestedIn).every((s) => s.slug === "-src-proj"));
  });

  it("the three OMP slug kinds (home-relative, tmp, legacy absolute) derive from header.cwd", async () => {
    const { sessions } = await store();
    const h = { home: "/home/u", tmpdir: "/var/tmp/pi-fixture", windows: false };
    const kinds = new Map<string, string>();
    for (const s of sessions.filter((x) => x.root.agent === "omp" && x.summary.ok)) {
      const cwd = (s.summary as { cwd: string }).cwd;
      assert.ok(slugMatches(s.slug!, workspaceSlugVariants(cwd, h)), `${s.slug} from ${cwd}`);
      kinds.set(s.slug!, cwd);
    }
    assert.deepEqual([...kinds.keys()].sort(), [
      "--opt-acme-proj--",
      "-src-legacy-omp",
      "-src-proj",
      "-tmp-other-proj",
    ]);
    // and a rejected file (no cwd to read) is still placed in its workspace by its folder name
    writeFileSync(join(home, ".omp", "agent", "sessions", "-tmp-other-proj", "broken.jsonl"), "not json\n");
    const again = await store();
    const broken = find(again.sessions, "broken.jsonl");
    assert.equal(broken.summary.ok, false);
    assert.ok(belongsToWorkspace(broken, "/var/tmp/pi-fixture/other-proj", h));
    assert.ok(!belongsToWorkspace(broken, "/var/tmp/pi-fixture/oth", h), "a prefix that stops mid-name does not match");
  });

  it("aborted and error turns with non-zero usage are counted, on every branch", async () => {
    const { sessions } = await store();
    const s2 = find(sessions, "2026-11-29T18-50-20-792Z_01a228a4-d4f8-7759-87f6-e1f7077b112f.jsonl");
    assert.ok(s2.summary.ok);
    const lines = readFileSync(s2.file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const errorTurn = lines.find((e) => e.message?.stopReason === "error");
    assert.ok(errorTurn, "S2 has an error turn");
    const rec = s2.summary.usage.find((r) => r.entryId === errorTurn.id);
    assert.ok(rec, "the error turn is counted");
    assert.equal(rec.active, false, "it is on the abandoned branch");
    const all = s2.summary.usage.reduce((a, r) => a + r.cost, 0);
    const active = s2.summary.usage.filter((r) => r.active).reduce((a, r) => a + r.cost, 0);
    assert.ok(all > active, "abandoned branches were paid for");
    assert.ok(Math.abs(usageReport([s2], { by: "session" }).total.cost - all) < 1e-12);
  });

  it("inherited entries of a fork whose parent is in the result count once, for the parent", async () => {
    const { sessions } = await store();
    const family = [find(sessions, O2), find(sessions, O3)];
    computeOwnership(family);
    const [parent, fork] = family.map((s) => listedSession(s));
    assert.equal(fork!.entryCount, 36);
    assert.equal(fork!.ownEntryCount, 0, "an OMP /fork copies every entry, with the same ids and timestamps");
    assert.equal(parent!.ownEntryCount, 36);
    const report = usageReport(family, { by: "session" });
    const oracle = oracleFor(join(REAL, "omp", "sessions", "-src-proj", O2)) as {
      usage: { cost: number; totalTokens: number };
    };
    assert.ok(Math.abs(report.total.cost - oracle.usage.cost) < 1e-12, "family total = parent total, not 2×");
    assert.equal(report.total.totalTokens, oracle.usage.totalTokens);
    const forkId = (family[1]!.summary as { id: string }).id;
    const forkRow = report.rows.find((r) => r.key === forkId);
    assert.ok(forkRow, "the fork has a row that shows what it inherited");
    assert.equal(forkRow.cost, 0, "a fork with no own usage costs nothing of its own");
    assert.ok(Math.abs(forkRow.inheritedCost! - oracle.usage.cost) < 1e-12, "its inherited cost is the parent's");
  });

  it("a fork family's total equals the parent's usage plus each fork's own usage", async () => {
    const { sessions } = await store();
    const parent = find(sessions, S3);
    const fork = find(sessions, S5D);
    const family = [parent, fork];
    const sum = (s: StoreSession, filter: (id: string) => boolean) =>
      s.summary.ok ? s.summary.usage.filter((r) => filter(r.entryId)).reduce((a, r) => a + r.cost, 0) : 0;
    computeOwnership(family);
    const own = sum(fork, (id) => !fork.inherited.has(id));
    const report = usageReport(family, { by: "session" });
    assert.ok(Math.abs(report.total.cost - (sum(parent, () => true) + own)) < 1e-12);
    assert.ok(fork.inherited.size > 0);
    assert.ok(Math.abs(report.total.inheritedCost - sum(fork, (id) => fork.inherited.has(id))) < 1e-12);
  });

  it("an orphan fork (parent not in the result) keeps its inherited entries", async () => {
    const { sessions } = await store();
    const result = sessions.filter((s) => belongsToWorkspace(s, "/home/u/src/other-project", host()));
    assert.deepEqual(
      result.map((s) => basename(s.file)),
      [S5D],
    );
    computeOwnership(result);
    const row = listedSession(result[0]!);
    assert.equal(row.parentState, "resolved");
    assert.equal(row.ownEntryCount, row.entryCount, "parent absent from the result: nothing is deduplicated");
    const report = usageReport(result, { by: "session" });
    assert.ok(report.total.cost > 0);
    assert.equal(report.total.inheritedCost, 0);
  });

  it("firstSeen and lastSeen cover exactly the entries a session owns", async () => {
    // a pi /fork of S3 (copied entries keep ids and timestamps), then two turns of its own
    const dir = join(home, ".pi", "agent", "sessions", "--home-u-src-proj--");
    const parentFile = join(dir, S3);
    const lines = readFileSync(parentFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const created = "2026-12-01T10:00:00.000Z";
    const copied = lines.slice(1);
    const last = copied.at(-1).id;
    const own1 = {
      type: "message",
      id: "own00001",
      parentId: last,
      timestamp: "2026-12-01T10:05:00.000Z",
      message: { role: "user", content: "next", timestamp: 1 },
    };
    const own2 = {
      type: "custom",
      id: "own00002",
      parentId: "own00001",
      timestamp: "2026-12-01T11:00:00.000Z",
      customType: "x",
    };
    writeFileSync(
      join(dir, "fork.jsonl"),
      jsonl(fork(parentFile, { id: "fork-1", time: created, cwd: "/home/u/src/proj" }), ...copied, own1, own2),
    );
    const { sessions } = await store();
    computeOwnership(sessions);
    const forked = find(sessions, "fork.jsonl");
    assert.equal(forked.parent, find(sessions, S3));
    const row = listedSession(forked);
    assert.equal(row.entryCount, copied.length + 2);
    assert.equal(row.ownEntryCount, 2);
    assert.equal(row.firstSeen, "2026-12-01T10:05:00.000Z");
    assert.equal(row.lastSeen, "2026-12-01T11:00:00.000Z");
    assert.equal(forked.forkPointId, last, "the fork point is the last inherited entry");
    const o3 = listedSession(find(sessions, O3));
    assert.equal(o3.firstSeen, null, "a fork that owns nothing has no time range");
    const parentRow = listedSession(find(sessions, S3));
    assert.equal(parentRow.firstSeen, new Date(Math.min(...copied.map((e) => Date.parse(e.timestamp)))).toISOString());
  });

  it("a copied entry time-stamped after the fork is the fork's own", async () => {
    const dir = join(home, ".pi", "agent", "sessions", "--home-u-src-proj--");
    const parentFile = join(dir, S3);
    const copied = readFileSync(parentFile, "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => JSON.parse(l));
    // header timestamp before the last copied entry: that entry is not provably inherited
    const created = new Date(Date.parse(copied.at(-1).timestamp) - 1).toISOString();
    writeFileSync(
      join(dir, "early.jsonl"),
      jsonl(fork(parentFile, { id: "early", time: created, cwd: "/home/u/src/proj" }), ...copied),
    );
    const { sessions } = await store();
    computeOwnership(sessions);
    const row = listedSession(find(sessions, "early.jsonl"));
    assert.ok(row.ownEntryCount >= 1 && row.ownEntryCount < row.entryCount);
  });

  it("per-session totals equal OMP's getUsageStatistics() for every OMP fixture; /tan inherits zero cost", async () => {
    const { sessions } = await store();
    for (const s of sessions.filter((x) => x.root.agent === "omp")) {
      const oracle = oracleFor(join(REAL, "omp", s.file.split(`${sep}.omp${sep}agent${sep}`)[1]!)) as {
        usage: Record<string, number>;
      };
      const t = usageReport([s], { by: "session" }).total;
      for (const k of ["input", "output", "cacheRead", "cacheWrite", "totalTokens"])
        assert.equal(t[k as keyof typeof t], oracle.usage[k], `${basename(s.file)} ${k}`);
      assert.ok(Math.abs(t.cost - oracle.usage.cost!) < 1e-12, `${basename(s.file)} cost`);
    }
    const tan = find(sessions, "Tan-1234567890123456789.jsonl");
    assert.equal(usageReport([tan], { by: "session" }).total.cost, 0);
    assert.ok(usageReport([tan], { by: "session" }).total.totalTokens > 0, "tokens are kept, only cost is zeroed");
  });

  it("a subagent session is shown with its usage but counted once, through its parent", async () => {
    const { sessions } = await store();
    const parent = find(sessions, O2);
    const sub = find(sessions, "0-Explore.jsonl");
    const report = usageReport([parent, sub], { by: "session" });
    const subRow = report.rows.find((r) => r.file === sub.file)!;
    assert.equal(subRow.includedInParent, true);
    assert.ok(subRow.cost > 0);
    assert.ok(Math.abs(report.total.cost - usageReport([parent], { by: "session" }).total.cost) < 1e-12);
    assert.ok(Math.abs(usageReport([sub], { by: "session" }).total.cost - subRow.cost) < 1e-12, "alone, it counts");
  });

  it("aggregates by model (served model), day and project with the same total", async () => {
    const { sessions } = await store();
    const totals = (["session", "model", "day", "project"] as const).map((by) => usageReport(sessions, { by }));
    for (const r of totals) assert.ok(Math.abs(r.total.cost - totals[0]!.total.cost) < 1e-9, r.by);
    for (const r of totals)
      assert.ok(
        Math.abs(r.rows.reduce((a, x) => a + (x.includedInParent ? 0 : x.cost), 0) - r.total.cost) < 1e-9,
        `${r.by} rows add up`,
      );
    assert.ok(totals[1]!.rows.some((r) => r.key === "anthropic/claude-opus-4-5"));
    assert.ok(totals[3]!.rows.some((r) => r.key === "/home/u/src/proj058"));
    assert.ok(
      !totals[3]!.rows.some((r) => r.key === "/home/u/src/other-project"),
      "a fully inherited cross-project fork adds no project row",
    );
  });

  it("a second listing reads no unchanged file; OMP's in-place slot rewrite (same size) is noticed", async () => {
    const cacheFile = join(home, "cache", "store.json");
    const first = recordingFs();
    const cold = await store(first, cacheFile);
    assert.equal(cold.filesRead, 28);
    const second = recordingFs();
    const warm = await store(second, cacheFile);
    assert.equal(warm.filesRead, 0);
    assert.deepEqual(second.reads, [], "no session file read");
    // Every summary comes back whole: the listing line at once, each session's details line when read.
    const summaries = (st: typeof cold) => plain(st.sessions.map((x) => [x.file, x.summary]));
    assert.deepEqual(summaries(warm), summaries(cold));
    // rewrite the slot in place: same size, new title, new mtime
    const file = join(home, ".omp", "agent", "sessions", "-src-proj", O2);
    const bytes = readFileSync(file);
    const oldSlot = bytes.subarray(0, 256).toString("utf8");
    const newSlot = oldSlot
      .replace('"title":"Stats helpers"', '"title":"Stats helpers!"')
      .replace(/ \s*"}\n$/, (m) => m.slice(1));
    assert.equal(Buffer.byteLength(newSlot), 256);
    const size = statSync(file).size;
    writeFileSync(file, Buffer.concat([Buffer.from(newSlot), bytes.subarray(256)]));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    assert.equal(statSync(file).size, size);
    const third = recordingFs();
    const after = await store(third, cacheFile);
    assert.equal(after.filesRead, 1);
    assert.deepEqual(third.reads, [file]);
    const s = find(after.sessions, O2);
    assert.equal(s.summary.ok && s.summary.name, "Stats helpers!");
    // That save wrote the unchanged entries back as they were stored (details never decoded): still whole.
    const fourth = await store(recordingFs(), cacheFile);
    assert.equal(fourth.filesRead, 0);
    assert.deepEqual(summaries(fourth), summaries(after));
  });
});
