// Hardening of the store (issue #14, items 7-10): the lineage cycle guard is linear, symlinks never list one real
// file twice, two files with one session id stay two rows and their shared entries count once, and a damaged cache
// entry is dropped and its file read again.
import * as assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../../src/cli/main.js";
import type { SessionRoot } from "../../../src/node/roots.js";
import { usageReport } from "../../../src/node/report.js";
import {
  detailsRecovered,
  linkLineage,
  loadStore,
  newStoreSession,
  type StoreSession,
} from "../../../src/node/store/index.js";
import { fork, header, message, toolCall, usage } from "../../support/builders.js";
import { jsonl } from "../../support/helpers.js";

const ROOT: SessionRoot = { dir: "/r", agent: "pi", source: "test" };

/** A listed session with an id and a parent given by id (no file is read). */
function listed(id: string, parentId: string | null): StoreSession {
  const summary = {
    ok: true,
    id,
    parentSession: parentId === null ? null : { raw: parentId, kind: "id" },
    entries: [],
    usage: [],
  } as unknown as StoreSession["summary"];
  return newStoreSession({ file: `/r/p/${id}.jsonl`, root: ROOT, slug: "p", nestedIn: null, size: 0 }, summary);
}

/** A two-turn session whose assistant turns cost `cost` each. */
function session(id: string, cost: number, o: { parent?: string; time?: number } = {}) {
  const h = o.parent ? fork(o.parent, { id, time: o.time ?? 0 }) : header({ id, time: o.time ?? 0 });
  return jsonl(
    h,
    message("u0000001", null, "user", "one", { time: 1 }),
    message("a0000001", "u0000001", "assistant", "ok", { time: 2, usage: usage(100, 10, cost) }),
    message("u0000002", "a0000001", "user", "two", { time: 3 }),
    message("a0000002", "u0000002", "assistant", "ok", { time: 4, usage: usage(100, 10, cost) }),
  );
}

const cli = async (...args: string[]) => {
  let out = "";
  const code = await run(args, { out: (t) => (out += t + "\n"), err: () => {} });
  return { code, out, json: out.trim().startsWith("{") ? JSON.parse(out) : undefined };
};

describe("hardening: the store", function () {
  this.timeout(120_000);
  let dir: string;
  let root: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pse-store-"));
    root = join(dir, "sessions");
    mkdirSync(join(root, "--proj--"), { recursive: true });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const roots = (): SessionRoot[] => [{ dir: root, agent: "pi", source: "test" }];

  describe("lineage cycles", () => {
    it("a chain of 200,000 parents is linked in one pass (a quadratic guard would not finish)", () => {
      const chain = Array.from({ length: 200_000 }, (_, i) => listed(`s${i}`, i ? `s${i - 1}` : null));
      linkLineage(chain, [ROOT]);
      assert.equal(chain[199_999]!.parent, chain[199_998]);
      assert.equal(chain[0]!.children[0], chain[1]);
      assert.ok(chain.every((s, i) => s.parentState === (i ? "resolved" : "none")));
    });

    it("a cycle is broken once, at the session where the walk closes it; what hangs off it stays linked", () => {
      // a → b → c → a (each names the next as its parent), and d → a.
      const [a, b, c, d] = [listed("a", "b"), listed("b", "c"), listed("c", "a"), listed("d", "a")];
      linkLineage([a, b, c, d], [ROOT]);
      const cut = [a, b, c].filter((s) => s.parent === null);
      assert.equal(cut.length, 1, "exactly one link is cut");
      assert.equal(cut[0]!.parentState, "orphan");
      assert.equal(d.parent, a);
      // No cycle remains: every walk up ends.
      for (const s of [a, b, c, d]) {
        const seen = new Set<StoreSession>();
        for (let p: StoreSession | null = s; p; p = p.parent) {
          assert.ok(!seen.has(p));
          seen.add(p);
        }
      }
    });
  });

  it("a slug folder symlinked to another and a file symlinked beside itself list the real file once", async () => {
    writeFileSync(join(root, "--proj--", "a.jsonl"), session("a", 0.5));
    symlinkSync(join(root, "--proj--"), join(root, "--proj-alias--"));
    symlinkSync(join(root, "--proj--", "a.jsonl"), join(root, "--proj--", "a-link.jsonl"));
    const { sessions } = await loadStore({ roots: roots(), cacheFile: null });
    assert.deepEqual(
      sessions.map((s) => s.file),
      [join(root, "--proj--", "a.jsonl")],
      "the path that is not a link is the one kept",
    );
    const u = await cli("usage", "--session-dir", root, "--no-cache", "--json");
    assert.equal(u.json.total.cost, 1);
  });

  it("two files with one session id are two rows, each marked; their shared entries count once", async () => {
    writeFileSync(join(root, "--proj--", "a.jsonl"), session("same", 0.5));
    // The same session id, one shared turn (same ids and times), then a turn of its own.
    const other = session("same", 0.5).replace(/"id":"a0000002"/, '"id":"b0000002"');
    writeFileSync(join(root, "--proj--", "b.jsonl"), other);
    const u = await cli("usage", "--session-dir", root, "--no-cache", "--json");
    const rows = u.json.rows as { key: string; file: string; cost: number; sameIdAs?: string[] }[];
    assert.equal(rows.length, 2, "two rows");
    for (const r of rows) {
      assert.equal(r.key, "same");
      assert.equal(r.sameIdAs?.length, 1, "marked");
      assert.notEqual(r.sameIdAs![0], r.file);
    }
    // a: 2 × $0.5; b: its a0000001 is a0000001 of a (same id and time): only b0000002 is its own.
    assert.equal(u.json.total.cost, 1.5);
    const list = await cli("list", "--session-dir", root, "--no-cache", "--json");
    assert.ok(list.json.sessions.every((s: { sameIdAs: string[] }) => s.sameIdAs.length === 1));
    const text = await cli("list", "--session-dir", root, "--no-cache");
    assert.match(text.out, /same id/);
  });

  it("a byte-identical copy (a backup) adds nothing to any total", async () => {
    writeFileSync(join(root, "--proj--", "a.jsonl"), session("orig", 0.25));
    copyFileSync(join(root, "--proj--", "a.jsonl"), join(root, "--proj--", "a-copy.jsonl"));
    for (const by of ["session", "model", "day", "project"]) {
      const u = await cli("usage", "--by", by, "--session-dir", root, "--no-cache", "--json");
      assert.equal(u.json.total.cost, 0.5, `--by ${by}`);
    }
  });

  it("a fork whose parent id two files carry: linked to neither, its copies still counted once", async () => {
    writeFileSync(join(root, "--proj--", "a.jsonl"), session("p", 0.5));
    writeFileSync(join(root, "--proj--", "b.jsonl"), session("p", 0.5));
    writeFileSync(join(root, "--proj--", "c.jsonl"), session("child", 0.5, { parent: "p", time: 10 }));
    const { sessions } = await loadStore({ roots: roots(), cacheFile: null });
    const child = sessions.find((s) => s.file.endsWith("c.jsonl"))!;
    assert.equal(child.parentState, "ambiguous");
    assert.equal(child.parent, null);
    const list = await cli("list", "--session-dir", root, "--no-cache", "--json");
    const row = list.json.sessions.find((s: { file: string }) => s.file.endsWith("c.jsonl"));
    assert.equal(row.parentState, "ambiguous");
    assert.equal(row.parentFile, null);
    // Whichever file is the parent, the child's copies of its turns were paid for once: a and b are one session
    // ($1, b is a byte copy), the child only inherited them.
    const u = await cli("usage", "--session-dir", root, "--no-cache", "--json");
    assert.equal(u.json.total.cost, 1);
  });

  it("a damaged cache line, any line, is not trusted and its file read again: the totals stay right", async () => {
    for (const name of ["a", "b", "c"]) writeFileSync(join(root, "--proj--", `${name}.jsonl`), session(name, 0.5));
    const cacheFile = join(dir, "cache.json");
    const truth = usageReport((await loadStore({ roots: roots(), cacheFile: null })).sessions, { by: "session" });
    await loadStore({ roots: roots(), cacheFile });
    const good = readFileSync(cacheFile, "utf8");
    const lines = good.split("\n").filter(Boolean);
    assert.ok(lines.length >= 4, "a header or listing line and one details line per session");
    for (let i = 0; i < lines.length; i++) {
      for (const damage of [
        (l: string) => l.slice(0, Math.floor(l.length / 2)),
        (l: string) => l.replace(/[0-9]/, (d) => String((Number(d) + 1) % 10)),
        () => "garbage",
      ]) {
        const broken = [...lines];
        broken[i] = damage(broken[i]!);
        writeFileSync(cacheFile, `${broken.join("\n")}\n`);
        const recovered = detailsRecovered();
        const store = await loadStore({ roots: roots(), cacheFile });
        const report = usageReport(store.sessions, { by: "session" });
        assert.deepEqual(report.total, truth.total, `line ${i + 1} damaged`);
        assert.deepEqual(
          report.rows.map((r) => [r.key, r.cost, r.messages]),
          truth.rows.map((r) => [r.key, r.cost, r.messages]),
        );
        // The header, listing and index are checked at once (a damaged one: every file read again); a details line
        // when it is used (its session read again then).
        assert.ok(
          store.filesRead >= 1 || detailsRecovered() > recovered,
          `line ${i + 1}: the damaged entry's file was read again`,
        );
      }
    }
  });

  it("file touches have cache lines of their own; a damaged one is dropped and its file read again", async () => {
    for (const name of ["a", "b"]) {
      writeFileSync(
        join(root, "--proj--", `${name}.jsonl`),
        jsonl(
          header({ id: name, cwd: "/p" }),
          message("u1", null, "user", "edit it"),
          toolCall("c1", "u1", "edit", { path: `src/${name}.ts`, oldText: "x", newText: "y" }),
        ),
      );
    }
    const cacheFile = join(dir, "cache.json");
    const touchesOf = (sessions: StoreSession[]) =>
      sessions
        .map((s) => (s.summary.ok ? s.summary.touches.map((t) => `${s.file} ${t.kind} ${t.path}`) : []))
        .flat()
        .sort();
    // The expectation: each file's one edit call, as written above.
    const truth = ["a", "b"].map((n) => `${join(root, "--proj--", `${n}.jsonl`)} edit src/${n}.ts`);
    assert.deepEqual(touchesOf((await loadStore({ roots: roots(), cacheFile })).sessions), truth);
    const lines = readFileSync(cacheFile, "utf8").split("\n").filter(Boolean);
    const touchLines = lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith("[") && l.includes("edit"));
    assert.equal(touchLines.length, 2, "one touches line per session that has touches");
    const warm = await loadStore({ roots: roots(), cacheFile });
    assert.equal(warm.filesRead, 0);
    assert.deepEqual(touchesOf(warm.sessions), truth, "read back from the cache");
    for (const [line, i] of touchLines) {
      const broken = [...lines];
      broken[i] = line.replace("edit", "edjt");
      writeFileSync(cacheFile, `${broken.join("\n")}\n`);
      const recovered = detailsRecovered();
      const store = await loadStore({ roots: roots(), cacheFile });
      assert.deepEqual(touchesOf(store.sessions), truth);
      assert.equal(detailsRecovered(), recovered + 1, `line ${i + 1}: its session read again when its touches were`);
    }
  });
});
