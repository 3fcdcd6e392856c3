// Hardening 3 (issue #32), the search index: a cache dir others can write is refused and index names that are links
// are never opened through (item 5); queries that parse never reach FTS5 as errors (item 9); the index holds no raw
// bytes of a session's tail, so no signature or encrypted field (item 10); and a lock left by a killed indexer is
// taken over at once, a busy one reported in a line (item 12).
import * as assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { MAX_WORDS, parseQuery } from "../../../src/core/search/query.js";
import { SearchIndex } from "../../../src/node/search/searchIndex.js";
import { indexFileFor } from "../../../src/node/search/indexName.js";
import { indexTargets } from "../../../src/node/search/targets.js";
import { header, message, toolResult } from "../../support/builders.js";
import { ownedStore } from "../../support/forkFamily.js";
import { jsonl, withTempDir } from "../../support/helpers.js";

const ROOTS = [{ dir: "/roots" }];
const SIGNATURE = "c2lnbmF0dXJlLXNlY3JldC1ieXRlcy0xMjM0NTY3ODkw";
const ENCRYPTED = "gAAAAABencryptedcontentsecretZZZ";
/** A session's words are in three of its texts: the prompt, the reply and the tool's output. */
const HITS = 3;

function session(id: string, words: string) {
  return jsonl(
    header({ id, cwd: "/w/p" }),
    message("u1", null, "user", `please find ${words}`),
    message("a1", "u1", "assistant", [
      { type: "thinking", thinking: "hmm", thinkingSignature: SIGNATURE },
      { type: "text", text: `found ${words}` },
    ]),
    toolResult("r1", "a1", "a1", "bash", `output ${words}`),
    message("a2", "r1", "assistant", [
      { type: "thinking", thinking: "", thinkingSignature: JSON.stringify({ encrypted_content: ENCRYPTED }) },
      { type: "text", text: "done" },
    ]),
  );
}

/** Run the built CLI (another process, as a user runs it); `env` adds to this process's. */
function cli(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, ["dist/cli.js", ...args], { env: { ...process.env, ...env }, encoding: "utf8" });
}

function store(dir: string, n = 1) {
  const agent = join(dir, "agent");
  const slug = join(agent, "sessions", "--w-p--");
  mkdirSync(slug, { recursive: true });
  for (let i = 0; i < n; i++) writeFileSync(join(slug, `s${i}.jsonl`), session(`s${i}`, `okapiword${i} okapiall`));
  return { agent, slug };
}

describe("hardening 3: the search index", function () {
  this.timeout(120_000);

  it("queries that parse never fail in FTS5: 300 exclusions are bounded and said, a NUL is a space", async () => {
    await withTempDir(async (dir) => {
      const { agent } = store(dir);
      const index = await SearchIndex.open(join(dir, "cache"), ROOTS);
      try {
        await index.update(indexTargets((await ownedStore(agent)).sessions));
        const many = parseQuery(`okapiall ${Array.from({ length: 300 }, (_, i) => `-x${i}`).join(" ")}`);
        assert.equal(many.ok, false);
        assert.match(!many.ok ? many.message : "", /at most 64 words and phrases; this one has 301/);
        // The most a query may hold runs in FTS5: as many exclusions, and as many words.
        const most = parseQuery(`okapiall ${Array.from({ length: MAX_WORDS - 1 }, (_, i) => `-x${i}`).join(" ")}`);
        assert.ok(most.ok);
        assert.equal(index.query(most).length, HITS);
        const words = parseQuery(Array.from({ length: MAX_WORDS }, () => "okapiall").join(" "));
        assert.ok(words.ok);
        assert.equal(index.query(words).length, HITS);
        const nul = parseQuery("okapiword0\u0000okapiall");
        assert.ok(nul.ok);
        assert.deepEqual(nul.terms, ["okapiword0", "okapiall"]);
        assert.equal(index.query(nul).length, HITS);
        const phrase = parseQuery('"found\u0000okapiword0"');
        assert.ok(phrase.ok);
        assert.equal(index.query(phrase).length, 1);
      } finally {
        index.close();
      }
    });
  });

  it("the CLI says why a query is refused, in one line and no stack", async () => {
    await withTempDir(async (dir) => {
      const { agent } = store(dir);
      const r = cli(["search", "okapiall", ...Array.from({ length: 300 }, (_, i) => `-x${i}`), "--agent-dir", agent], {
        PI_SESSIONS_CACHE_DIR: join(dir, "cache"),
      });
      assert.equal(r.status, 64, r.stderr);
      assert.match(r.stderr, /at most 64 words/);
      assert.ok(!/internal error|\n {4}at /.test(r.stderr), r.stderr);
    });
  });

  it("no byte of a signature or encrypted field is in the index file, after a whole read and an append", async () => {
    await withTempDir(async (dir) => {
      const { agent, slug } = store(dir);
      const cache = join(dir, "cache");
      const index = await SearchIndex.open(cache, ROOTS);
      try {
        await index.update(indexTargets((await ownedStore(agent)).sessions));
        appendFileSync(
          join(slug, "s0.jsonl"),
          jsonl(
            message("a3", "a2", "assistant", [
              { type: "thinking", thinking: "", thinkingSignature: `${SIGNATURE}-2` },
              { type: "text", text: "appended zorillaword" },
            ]),
          ),
        );
        const result = await index.update(indexTargets((await ownedStore(agent)).sessions));
        assert.equal(result.appended, 1, "the append was taken in alone (the hash of the tail matched)");
        const hit = parseQuery("zorillaword");
        assert.ok(hit.ok);
        assert.equal(index.query(hit).length, 1);
      } finally {
        index.close();
      }
      for (const name of readdirSync(cache)) {
        const bytes = readFileSync(join(cache, name)).toString("latin1");
        for (const secret of [SIGNATURE, ENCRYPTED, "c2lnbmF0dXJl", "encrypted_content"])
          assert.ok(!bytes.includes(secret), `${name} holds ${secret}`);
      }
    });
  });

  it("a cache dir of another user is refused with its name; one of ours open to others is made private", async () => {
    await withTempDir(async (dir) => {
      const theirs = join(dir, "theirs");
      mkdirSync(theirs, { mode: 0o777 });
      chmodSync(theirs, 0o777);
      chownSync(theirs, 65534, 65534);
      await assert.rejects(SearchIndex.open(theirs, ROOTS), (err: Error) => {
        assert.match(err.message, new RegExp(`cache dir ${theirs} belongs to another user \\(uid 65534\\)`));
        return true;
      });
      assert.deepEqual(readdirSync(theirs), [], "nothing was created there");
      const ours = join(dir, "ours");
      mkdirSync(ours, { mode: 0o777 });
      chmodSync(ours, 0o777);
      (await SearchIndex.open(ours, ROOTS)).close();
      assert.equal(statSync(ours).mode & 0o777, 0o700);
      const fresh = join(dir, "fresh", "cache");
      (await SearchIndex.open(fresh, ROOTS)).close();
      assert.equal(statSync(fresh).mode & 0o777, 0o700);
      const { agent } = store(dir);
      const r = cli(["search", "okapiall", "--agent-dir", agent], { PI_SESSIONS_CACHE_DIR: theirs });
      assert.equal(r.status, 2);
      assert.match(r.stderr, /^pi-sessions: cache dir .* belongs to another user/);
      assert.ok(!/internal error/.test(r.stderr));
    });
  });

  it("a cache dir that is a file, or inside one: one line naming it, no stack", async () => {
    await withTempDir(async (dir) => {
      const { agent } = store(dir);
      const file = join(dir, "afile");
      writeFileSync(file, "x");
      for (const cache of [file, join(file, "sub")]) {
        const r = cli(["search", "okapiall", "--agent-dir", agent], { PI_SESSIONS_CACHE_DIR: cache });
        assert.equal(r.status, 2, r.stderr);
        assert.match(r.stderr, /^pi-sessions: cache dir .* is not a directory/);
        assert.ok(!/internal error|\n {4}at /.test(r.stderr), r.stderr);
      }
    });
  });

  it("text after a NUL is indexed (it cannot hide from search)", async () => {
    await withTempDir(async (dir) => {
      const { agent, slug } = store(dir);
      writeFileSync(
        join(slug, "nul.jsonl"),
        jsonl(header({ id: "nul", cwd: "/w/p" }), message("u1", null, "user", "beforeword\u0000 hiddenafterword")),
      );
      const index = await SearchIndex.open(join(dir, "cache"), ROOTS);
      try {
        await index.update(indexTargets((await ownedStore(agent)).sessions));
        const q = parseQuery("hiddenafterword");
        assert.ok(q.ok);
        assert.deepEqual(
          index.query(q).map((h) => h.entryId),
          ["u1"],
        );
      } finally {
        index.close();
      }
    });
  });

  it("a link planted at the journal or the index name is never followed: its target is untouched", async () => {
    await withTempDir(async (dir) => {
      const cache = join(dir, "cache");
      mkdirSync(cache, { mode: 0o700 });
      const file = indexFileFor(cache, ROOTS);
      const victim = join(dir, "victim.txt");
      writeFileSync(victim, "precious");
      symlinkSync(victim, `${file}-journal`);
      await assert.rejects(SearchIndex.open(cache, ROOTS), /-journal is a symbolic link/);
      assert.equal(readFileSync(victim, "utf8"), "precious");
      spawnSync("rm", [`${file}-journal`]);
      symlinkSync(join(dir, "elsewhere.sqlite"), file);
      await assert.rejects(SearchIndex.open(cache, ROOTS), /\.sqlite is a symbolic link/);
      assert.ok(!existsSync(join(dir, "elsewhere.sqlite")), "no index made at the link's target");
    });
  });

  it("a lock left by a killed indexer is taken over at once: the next search answers", async () => {
    await withTempDir(async (dir) => {
      const { agent } = store(dir, 3);
      const env = { PI_SESSIONS_CACHE_DIR: join(dir, "cache") };
      assert.equal(cli(["search", "okapiall", "--agent-dir", agent], env).status, 0);
      const file = indexFileFor(join(dir, "cache"), [{ dir: join(agent, "sessions") }]);
      assert.ok(existsSync(file), file);
      // What a kill -9 inside a statement leaves: SQLite's lock directory, and the writer's file naming a dead pid.
      const dead = spawnSync(process.execPath, ["-e", "0"]).pid;
      mkdirSync(`${file}.lock`);
      writeFileSync(`${file}.writer`, `${dead}:${hostname()}:0123456789abcdef`);
      writeFileSync(join(agent, "sessions", "--w-p--", "s9.jsonl"), session("s9", "okapinew"));
      const r = cli(["search", "okapinew", "--agent-dir", agent, "--json"], env);
      assert.equal(r.status, 0, r.stderr);
      assert.equal((JSON.parse(r.stdout) as { hits: unknown[] }).hits.length, HITS);
      assert.ok(!existsSync(`${file}.lock`));
    });
  });

  it("a writer file that holds no pid (a crash between create and write) is stale after a few seconds", async () => {
    await withTempDir(async (dir) => {
      const { agent, slug } = store(dir);
      const env = { PI_SESSIONS_CACHE_DIR: join(dir, "cache") };
      assert.equal(cli(["search", "okapiall", "--agent-dir", agent], env).status, 0);
      const file = indexFileFor(join(dir, "cache"), [{ dir: join(agent, "sessions") }]);
      for (const content of ["", "garbage"]) {
        writeFileSync(`${file}.writer`, content);
        const past = new Date(Date.now() - 60_000);
        utimesSync(`${file}.writer`, past, past);
        const word = `okapifresh${content.length}`;
        writeFileSync(join(slug, `fresh${content.length}.jsonl`), session(`fresh${content.length}`, word));
        const r = cli(["search", word, "--agent-dir", agent, "--json"], env);
        assert.equal(r.status, 0, r.stderr);
        const json = JSON.parse(r.stdout) as { hits: unknown[]; indexed: { pending: number } };
        assert.equal(json.indexed.pending, 0, JSON.stringify(content));
        assert.equal(json.hits.length, HITS);
      }
    });
  });

  it("a real kill -9 of an indexing search, then a search: it answers, never an internal error", async () => {
    await withTempDir(async (dir) => {
      const { agent } = store(dir, 300);
      const env = { ...process.env, PI_SESSIONS_CACHE_DIR: join(dir, "cache") };
      for (const after of [150, 400]) {
        const p = spawn(process.execPath, ["dist/cli.js", "search", "okapiall", "--agent-dir", agent], { env });
        const closed = new Promise((r) => p.on("close", r));
        await new Promise((r) => setTimeout(r, after));
        p.kill("SIGKILL");
        await closed;
        const r = cli(["search", "okapiword7", "--agent-dir", agent, "--json"], env);
        assert.equal(r.status, 0, r.stderr);
        assert.equal((JSON.parse(r.stdout) as { hits: unknown[] }).hits.length, HITS, r.stdout.slice(0, 300));
      }
    });
  });

  it("an index a live process keeps locked: the search says so in one line, naming the writer", async () => {
    await withTempDir(async (dir) => {
      const { agent } = store(dir);
      const env = { PI_SESSIONS_CACHE_DIR: join(dir, "cache") };
      assert.equal(cli(["search", "okapiall", "--agent-dir", agent], env).status, 0);
      const file = indexFileFor(join(dir, "cache"), [{ dir: join(agent, "sessions") }]);
      const holder = spawn("sleep", ["60"]);
      try {
        mkdirSync(`${file}.lock`);
        writeFileSync(`${file}.writer`, `${holder.pid}:${hostname()}:0123456789abcdef`);
        const r = cli(["search", "okapiall", "--agent-dir", agent], env);
        assert.equal(r.status, 2, r.stderr);
        assert.match(
          r.stderr,
          new RegExp(`is busy: another process is writing it \\(its writer is process ${holder.pid}`),
        );
        assert.ok(!/internal error|\n {4}at /.test(r.stderr), r.stderr);
      } finally {
        holder.kill();
      }
    });
  });
});
