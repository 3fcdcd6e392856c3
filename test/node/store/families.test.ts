/**
 * Fork families (issue #22): one row per family, forks named by what they did. Expectations are the texts and times
 * written into the files below (and the real OMP fixture's raw lines), never our own output.
 */
import { strict as assert } from "node:assert";
import { appendFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../src/cli/main.js";
import { parseSession } from "../../../src/core/session/index.js";
import { extendSummary, summarize } from "../../../src/core/summary.js";
import { resolveRoots } from "../../../src/node/roots.js";
import {
  computeOwnership,
  FamilyIndex,
  loadStore,
  newStoreSession,
  sessionTitle,
  type StoreSession,
} from "../../../src/node/store/index.js";
import { fork, header, message, sessionInfo } from "../../support/builders.js";
import { REAL } from "../../support/fixtures.js";
import { jsonl, plain, withTempDir } from "../../support/helpers.js";

/** A file written with the given records, its modification time `minutes` after a fixed moment. */
function write(file: string, minutes: number, ...records: unknown[]): string {
  writeFileSync(file, jsonl(...records));
  const t = new Date(Date.UTC(2026, 5, 1) + minutes * 60_000);
  utimesSync(file, t, t);
  return file;
}

/**
 * One project: A with fork A1 and A1's own fork A1a; B (a family of one); an orphan fork and an external fork; a fork
 * of A named like A; a fork of A that only copied; a subagent in A's artifacts dir. Entry times in seconds after
 * 2026-01-01 (`iso`); the files' mtimes (`write`'s minutes) order them otherwise, as a copy or a restore would.
 */
function writeStore(dir: string) {
  const agent = join(dir, "agent");
  const slug = join(agent, "sessions", "--p--");
  mkdirSync(join(slug, "A"), { recursive: true });
  const f = (name: string) => join(slug, name);
  const a = [
    message("a-u1", null, "user", "Build the parser", { time: 1 }),
    message("a-a1", "a-u1", "assistant", "Parser built", { time: 2 }),
    sessionInfo("a-n", "a-a1", "Parser work", { time: 3 }),
  ];
  const files = {
    A: write(f("A.jsonl"), 10, header({ id: "A", time: 0 }), ...a),
    A1: write(
      f("A1.jsonl"),
      90,
      fork(f("A.jsonl"), { id: "A1", time: 10 }),
      ...a,
      message("a1-u", "a-n", "user", "Try a streaming parser instead", { time: 11 }),
      sessionInfo("a1-n", "a1-u", "Streaming parser", { time: 12 }),
    ),
    A1a: write(
      f("A1a.jsonl"),
      60,
      fork(f("A1.jsonl"), { id: "A1a", time: 20 }),
      ...a,
      message("a1-u", "a-n", "user", "Try a streaming parser instead", { time: 11 }),
      message("a1a-u", "a1-u", "user", "Benchmark both", { time: 21 }),
    ),
    sameName: write(
      f("A2.jsonl"),
      20,
      fork(f("A.jsonl"), { id: "A2", time: 30 }),
      ...a,
      message("a2-u", "a-n", "user", "Add error recovery", { time: 31 }),
      sessionInfo("a2-n", "a2-u", "Parser work", { time: 32 }),
    ),
    copyOnly: write(f("A3.jsonl"), 15, fork(f("A.jsonl"), { id: "A3", time: 40 }), ...a),
    subagent: write(
      join(slug, "A", "0-Explore.jsonl"),
      11,
      fork(f("A.jsonl"), { id: "S", time: 50 }),
      { type: "session_init", id: "s-i", parentId: null, timestamp: "2026-01-01T00:00:50.000Z", task: "Find tests" },
      message("s-u", "s-i", "user", "Find tests", { time: 51 }),
    ),
    B: write(
      f("B.jsonl"),
      50,
      header({ id: "B", time: 100 }),
      message("b-u", null, "user", "Write docs", { time: 101 }),
    ),
    orphan: write(
      f("O.jsonl"),
      40,
      fork(f("gone.jsonl"), { id: "O", time: 200 }),
      message("o-u", null, "user", "Copied prompt of a parent that is gone", { time: 150 }),
    ),
    external: write(
      f("E.jsonl"),
      30,
      fork("/elsewhere/sessions/x/e.jsonl", { id: "E", time: 300 }),
      message("e-u", null, "user", "A prompt forked from outside", { time: 250 }),
    ),
  };
  return { agent, files };
}

async function storeOf(agent: string) {
  const store = await loadStore({ roots: resolveRoots({ agentDirs: [agent] }), cacheFile: null });
  computeOwnership(store.sessions);
  const byFile = (file: string) => store.sessions.find((s) => s.file === file)!;
  return { sessions: store.sessions, byFile };
}

describe("fork families", () => {
  it("groups each family under the session with no listed parent, newest family first", async () => {
    await withTempDir(async (dir) => {
      const { agent, files } = writeStore(dir);
      const { sessions, byFile } = await storeOf(agent);
      const families = new FamilyIndex(sessions);
      const files_ = (list: StoreSession[]) => list.map((s) => s.file);
      // Families by their newest entry's time (not the files' mtimes, which say the opposite): the external fork
      // (its header at second 300), the orphan (200), B (101), A's family (its subagent at 51).
      assert.deepEqual(files_(families.tops(sessions)), [files.external, files.orphan, files.B, files.A]);
      // Direct forks by their family's newest entry: A3 (its header at 40), A2 (32), A1 (its fork A1a at 21).
      assert.deepEqual(files_(families.forks(byFile(files.A))), [files.copyOnly, files.sameName, files.A1]);
      assert.deepEqual(files_(families.forks(byFile(files.A1))), [files.A1a]);
      assert.deepEqual(files_(families.subagents(byFile(files.A))), [files.subagent]);
      assert.equal(families.forkCount(byFile(files.A)), 4, "A1, A1a, A2, A3; the subagent is no fork");
      assert.deepEqual(files_(families.chain(byFile(files.A1a))), [files.A, files.A1, files.A1a]);
      // A project list that holds a fork but not its parent shows the fork as a row of its own.
      const without = sessions.filter((s) => s.file !== files.A);
      assert.ok(files_(families.tops(without)).includes(files.A1));
    });
  });

  it("names a fork by what it did: its own name, else its first own prompt, else what it copied last", async () => {
    await withTempDir(async (dir) => {
      const { agent, files } = writeStore(dir);
      const { byFile } = await storeOf(agent);
      const title = (f: string) => sessionTitle(byFile(f));
      assert.equal(title(files.A), "Parser work", "a root: its name");
      assert.equal(title(files.A1), "Streaming parser", "a fork that named itself");
      assert.equal(title(files.A1a), "Benchmark both", "no name of its own: its first prompt after the fork");
      assert.equal(title(files.sameName), "Add error recovery", "the parent's name again: its own prompt instead");
      assert.equal(title(files.copyOnly), "after “Build the parser” (no new prompt)");
      assert.equal(title(files.subagent), "Find tests");
      // Orphan and external forks: where they forked is unknown, so their plain title (first prompt).
      assert.equal(title(files.orphan), "Copied prompt of a parent that is gone");
      assert.equal(title(files.external), "A prompt forked from outside");
      assert.equal(title(files.B), "Write docs");
    });
  });

  it("an orphan fork: its own prompt over a copied name; no readable header time: the plain title", async () => {
    await withTempDir(async (dir) => {
      const slug = join(dir, "agent", "sessions", "--p--");
      mkdirSync(slug, { recursive: true });
      const copied = [
        message("u1", null, "user", "hello", { time: 1 }),
        sessionInfo("n1", "u1", "Parent name", { time: 2 }),
      ];
      const files = {
        // An orphan fork (its parent's file is gone) that copied the parent's name: titled by its own prompt.
        orphan: write(
          join(slug, "o.jsonl"),
          1,
          fork(join(slug, "gone.jsonl"), { id: "o", time: 10 }),
          ...copied,
          message("u2", "n1", "user", "fix the tests", { time: 11 }),
        ),
        parent: write(join(slug, "p.jsonl"), 1, header({ id: "p", time: 0 }), ...copied),
        // A fork whose header time cannot be read: where it starts is unknown, so its plain title.
        badTime: write(
          join(slug, "b.jsonl"),
          2,
          { ...fork(join(slug, "p.jsonl"), { id: "b" }), timestamp: "garbage" },
          ...copied,
          message("u3", "n1", "user", "a prompt of its own", { time: 12 }),
        ),
        // An own prompt written with no timestamp: not a copy (copies keep their parent's times).
        noTime: write(join(slug, "t.jsonl"), 3, fork(join(slug, "p.jsonl"), { id: "t", time: 10 }), ...copied, {
          ...message("u4", "n1", "user", "untimed own prompt"),
          timestamp: undefined,
        }),
      };
      const { byFile } = await storeOf(join(dir, "agent"));
      assert.equal(sessionTitle(byFile(files.orphan)), "fix the tests");
      assert.equal(sessionTitle(byFile(files.badTime)), "Parent name");
      assert.equal(sessionTitle(byFile(files.noTime)), "untimed own prompt");
    });
  });

  it("a fork's title follows its appends (extended = summarized again) and survives the metadata cache", async () => {
    await withTempDir(async (dir) => {
      const { agent, files } = writeStore(dir);
      const file = files.copyOnly;
      const cacheFile = join(dir, "cache.json");
      const load = async () => {
        const store = await loadStore({ roots: resolveRoots({ agentDirs: [agent] }), cacheFile });
        return sessionTitle(store.sessions.find((s) => s.file === file)!);
      };
      assert.equal(await load(), "after “Build the parser” (no new prompt)");
      let summary = summarize(parseSession(file, readFileSync(file)));
      const steps: [unknown, string][] = [
        [message("a3-u", "a-n", "user", "Port it to Rust", { time: 41 }), "Port it to Rust"],
        [message("a3-u2", "a3-u", "user", "And to Go", { time: 42 }), "Port it to Rust"],
        [sessionInfo("a3-n", "a3-u2", "Ports", { time: 43 }), "Ports"],
      ];
      for (const [record, expected] of steps) {
        appendFileSync(file, jsonl(record));
        const result = parseSession(file, readFileSync(file));
        const extended = extendSummary(summary, result);
        summary = summarize(result);
        assert.deepEqual(plain(extended), plain(summary));
        assert.equal(await load(), expected, "from the cache's listing after the file changed");
        assert.equal(await load(), expected, "from the cache unchanged");
      }
    });
  });

  it("the real OMP store: the subagent and the forks of Stats helpers sit in its family, none at the top", async () => {
    const { sessions } = await storeOf(join(REAL, "omp"));
    const families = new FamilyIndex(sessions);
    const stats = sessions.find((s) => s.file.endsWith("01a228a4-d9a2-7000-85ca-ecf671b91f93.jsonl"))!;
    const explore = sessions.find((s) => s.file.endsWith("0-Explore.jsonl"))!;
    assert.ok(!families.tops(sessions).includes(explore), "the subagent is not a row of its own");
    assert.deepEqual(families.subagents(stats), [explore]);
    // Its header names the parent's file; its session_init carries the task, its first prompt (raw lines).
    assert.equal(sessionTitle(explore), "Find all exported functions");
    const statsForks = sessions.filter((s) => s.parent === stats && !(s.summary.ok && s.summary.subagent));
    assert.ok(statsForks.length >= 2);
    for (const f of statsForks) {
      assert.ok(!families.tops(sessions).includes(f));
      // From the raw lines: its first user prompt timestamped after its header, else the last prompt it copied.
      const raw = readFileSync(f.file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map(
          (l) => JSON.parse(l) as { type: string; timestamp?: string; message?: { role?: string; content?: unknown } },
        );
      const created = Date.parse(raw.find((r) => r.type === "session")!.timestamp!);
      const prompts = raw
        .filter((r) => r.type === "message" && r.message?.role === "user")
        .map((r) => ({
          time: Date.parse(r.timestamp!),
          text: (r.message!.content as { text?: string }[]).map((b) => b.text ?? "").join(""),
        }));
      const own = prompts.find((p) => p.time > created);
      const expected = own ? own.text : `after “${prompts.at(-1)!.text}” (no new prompt)`;
      assert.equal(sessionTitle(f), expected, f.file);
      assert.notEqual(sessionTitle(f), sessionTitle(stats), `${f.file} is told apart from its parent`);
    }
  });

  it("a lineage 10,000 forks deep, an artifacts-dir cycle and an ambiguous subagent: no recursion, no loop", () => {
    const root = { dir: "/r", agent: "pi" as const, source: "test" };
    const make = (name: string, o: { subagent?: boolean; nestedIn?: string } = {}) =>
      newStoreSession(
        { file: `/r/p/${name}.jsonl`, root, slug: "p", nestedIn: o.nestedIn ?? null, size: 0, mtimeNs: 1_000_000n },
        {
          ok: true,
          subagent: o.subagent ?? false,
          parentSession: null,
          entries: [],
        } as unknown as StoreSession["summary"],
      );
    const chain = Array.from({ length: 10_000 }, (_, i) => make(`c${i}`));
    for (let i = 1; i < chain.length; i++) {
      chain[i]!.parent = chain[i - 1]!;
      chain[i]!.parentState = "resolved";
    }
    chain.at(-1)!.mtimeMs = 99; // the deepest fork is the newest: its family's latest activity
    // A holder whose parent is its own subagent (hostile): the artifacts-dir link is the one cut.
    const holder = make("h");
    const sub = make("h-sub", { subagent: true, nestedIn: holder.file });
    holder.parent = sub;
    holder.parentState = "resolved";
    // A subagent whose parent id is ambiguous: it still goes with the session whose folder holds it.
    const host = make("host");
    const amb = make("amb", { subagent: true, nestedIn: host.file });
    amb.parentState = "ambiguous";
    const families = new FamilyIndex([...chain, holder, sub, host, amb]);
    assert.deepEqual(
      families.tops([...chain, holder, sub, host, amb]).map((s) => s.file),
      [chain[0]!.file, sub.file, host.file].sort((a, b) => (a === chain[0]!.file ? -1 : a.localeCompare(b))),
    );
    assert.equal(families.forkCount(chain[0]!), 9_999);
    assert.equal(families.latest(chain[0]!), 99);
    assert.equal(families.root(chain.at(-1)!), chain[0]);
    assert.equal(families.chain(chain.at(-1)!).length, 10_000);
    assert.equal(families.parent(sub), null, "the cycle is cut at the artifacts-dir link");
    assert.equal(families.parent(holder), sub);
    assert.deepEqual(families.subagents(host), [amb]);
  });

  it("pi-sessions list: a title column, forks as 'fork of <parent title>', --tree and --json fields", async () => {
    await withTempDir(async (dir) => {
      const { agent, files } = writeStore(dir);
      const cli = async (...args: string[]) => {
        let out = "";
        const code = await run(args, { out: (t) => (out += t + "\n"), err: () => {} });
        assert.equal(code, 0);
        return out;
      };
      const json = JSON.parse(await cli("list", "--agent-dir", agent, "--no-cache", "--json"));
      const row = (file: string) => json.sessions.find((r: { file: string }) => r.file === file);
      assert.equal(row(files.A1a).title, "Benchmark both");
      assert.equal(row(files.A1a).firstOwnPrompt, "Benchmark both");
      assert.equal(row(files.A1a).familyRoot, files.A);
      assert.equal(row(files.A).familyRoot, files.A);
      assert.equal(row(files.A).firstOwnPrompt, null, "no fork");
      assert.equal(row(files.copyOnly).firstOwnPrompt, null);
      assert.equal(row(files.orphan).familyRoot, files.orphan);

      const text = await cli("list", "--agent-dir", agent, "--no-cache", "--tree");
      const lines = text.trimEnd().split("\n").slice(2);
      const at = (t: string) => lines.findIndex((l) => l.includes(t));
      assert.ok(at("Parser work") < at("└ Streaming parser"));
      assert.ok(at("└ Streaming parser") < at("  └ Benchmark both"), "A1a one level deeper, under A1");
      assert.ok(at("Write docs") < at("Parser work"), "B's family (newest entry at second 101) before A's (51)");
      assert.match(lines[at("└ Streaming parser")]!, /fork of Parser work/);
      assert.match(lines[at("└ Find tests")]!, /subagent of Parser work/);
      assert.match(lines[at("Copied prompt")]!, /orphan fork/);

      const flat = await cli("list", "--agent-dir", agent, "--no-cache");
      assert.match(flat.split("\n")[0]!, /title/);
      assert.ok(!flat.includes("└"), "the flat list does not indent");
    });
  });
});
