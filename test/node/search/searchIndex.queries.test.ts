// Full-text search, continued (issue #17): snippets read back from the lines, ranking a word in more units than are
// ranked, queries that are no FTS5 syntax, a corrupt index rebuilt, `pi-sessions search`, and two processes at once.
import * as assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";

import { parseQuery } from "../../../src/core/search/query.js";
import { run } from "../../../src/cli/main.js";
import { loadSqlite } from "../../../src/node/search/indexFile.js";
import { SearchIndex } from "../../../src/node/search/searchIndex.js";
import { header, message } from "../../support/builders.js";
import { jsonl, withTempDir } from "../../support/helpers.js";
import { everyRole, find, parseQueryOk, projectDir, ROOTS, targetsOf } from "./searchHelpers.js";

describe("search index: snippets, ranking, odd queries, corruption, the CLI and two processes", () => {
  it("snippets are cut from the lines read back, in v1 files (no ids) and after an append too", async () => {
    await withTempDir(async (dir) => {
      const { agent, slug } = projectDir(dir);
      const v1 = join(slug, "v1.jsonl");
      const v3 = join(slug, "v3.jsonl");
      writeFileSync(
        v1,
        jsonl(
          { type: "session", id: "old", timestamp: "2025-01-01T00:00:00Z", cwd: "/p" },
          { type: "message", timestamp: "2025-01-01T00:00:01Z", message: { role: "user", content: "an oldword here" } },
        ),
      );
      writeFileSync(v3, jsonl(header({ id: "new" }), message("u1", null, "user", "first line")));
      const index = await SearchIndex.open(join(dir, "cache"), ROOTS);
      try {
        await index.update(await targetsOf(agent));
        assert.deepEqual(
          find(index, "oldword").map((h) => h.snippet),
          ["an «oldword» here"],
        );
        appendFileSync(
          v3,
          jsonl(message("a1", "u1", "assistant", [{ type: "text", text: "x ".repeat(40) + "tailword" }])),
        );
        assert.equal((await index.update(await targetsOf(agent))).appended, 1);
        assert.match(find(index, "tailword")[0]!.snippet, /^…x x x x x x «tailword»$/);
        // A file rewritten behind the index's back: no snippet from a line that is no longer the one indexed.
        writeFileSync(v3, jsonl(header({ id: "new" }), message("u9", null, "user", "something else entirely")));
        assert.equal(find(index, "tailword")[0]!.snippet, "");
      } finally {
        index.close();
      }
    });
  });

  it("a word in more units than are ranked still finds what the filters ask for", async () => {
    await withTempDir(async (dir) => {
      const { agent, slug } = projectDir(dir);
      // The old session is indexed first; the new one has 6,000 newer matches of the same word.
      writeFileSync(
        join(slug, "a-old.jsonl"),
        jsonl(header({ id: "aaaa" }), message("u1", null, "user", "common word")),
      );
      const many = Array.from({ length: 6000 }, (_, i) =>
        message(`m${i}`, i ? `m${i - 1}` : null, "user", `common ${i}`),
      );
      writeFileSync(join(slug, "b-new.jsonl"), jsonl(header({ id: "bbbb" }), ...many));
      const index = await SearchIndex.open(join(dir, "cache"), ROOTS);
      try {
        await index.update(await targetsOf(agent));
        assert.deepEqual(
          find(index, "common session:aaaa").map((h) => h.entryId),
          ["u1"],
        );
        assert.equal(index.query(parseQueryOk("common"), { files: [join(slug, "a-old.jsonl")] }).length, 1);
      } finally {
        index.close();
      }
    });
  });

  it("a corrupt index file is detected and rebuilt", async () => {
    await withTempDir(async (dir) => {
      const cache = join(dir, "cache");
      const first = await SearchIndex.open(cache, ROOTS);
      const file = first.file;
      first.close();
      writeFileSync(file, "this is not a database at all".repeat(200));
      const again = await SearchIndex.open(cache, ROOTS);
      try {
        assert.equal(again.rebuilt, true);
        // It holds what the sessions hold: the owner's only, in a cache dir that is too.
        assert.equal(statSync(again.file).mode & 0o777, 0o600);
        assert.equal(statSync(cache).mode & 0o777, 0o700);
        assert.deepEqual(again.stats(), { sessions: 0, entries: 0 });
      } finally {
        again.close();
      }
      assert.doesNotMatch(readFileSync(file, "latin1"), /this is not a database/);
    });
  });

  it("no query is an exception: FTS5 syntax is searched literally, or answered with a message", async () => {
    await withTempDir(async (dir) => {
      const index = await SearchIndex.open(join(dir, "cache"), ROOTS);
      try {
        const odd = ['"', "*", "NOT", "a:b", "()", "-x", "AND OR", '"unbalanced', "foo*bar", "^", "🙂", "NEAR(a b)"];
        for (const q of [...odd, "x".repeat(5000), "role:bogus", "since:2026-13-45", "-only -excluded"]) {
          const p = parseQuery(q);
          if (p.ok) index.query(p);
          else assert.ok(p.message.length > 0);
        }
        fc.assert(
          fc.property(fc.string({ maxLength: 60 }), (q) => {
            const p = parseQuery(q);
            if (p.ok) index.query(p);
          }),
          { numRuns: 400 },
        );
      } finally {
        index.close();
      }
    });
  });

  it("pi-sessions search prints one line per hit, and --json the hits with what is indexed", async () => {
    await withTempDir(async (dir) => {
      const slug = join(dir, "agent", "sessions", "--w-alpha--");
      mkdirSync(slug, { recursive: true });
      writeFileSync(join(slug, "roles.jsonl"), everyRole());
      let out = "";
      let err = "";
      const io = { out: (t: string) => (out += `${t}\n`), err: (t: string) => (err += `${t}\n`) };
      const previous = process.env.PI_SESSIONS_CACHE_DIR;
      process.env.PI_SESSIONS_CACHE_DIR = join(dir, "cache");
      try {
        assert.equal(await run(["search", "yakoutput", "--agent-dir", join(dir, "agent"), "--json"], io), 0);
        const json = JSON.parse(out) as { hits: { entryId: string; role: string }[]; indexed: { sessions: number } };
        assert.deepEqual(
          json.hits.map((h) => [h.entryId, h.role]),
          [["r1", "tool"]],
        );
        assert.equal(json.indexed.sessions, 1);
        out = "";
        assert.equal(await run(["search", "gecko", "--agent-dir", join(dir, "agent")], io), 0);
        assert.match(out, /^2026-01-01 00:00 {2}alpha {2}Falcon session {2}custom {2}note «gecko» custom\n$/);
        // A page damaged after it was written: found when read, and the index is built again.
        const [file] = readdirSync(join(dir, "cache")).filter((f) => f.endsWith(".sqlite"));
        const bytes = readFileSync(join(dir, "cache", file!));
        bytes.fill(0x5a, 4096, bytes.length);
        writeFileSync(join(dir, "cache", file!), bytes);
        out = "";
        err = "";
        assert.equal(await run(["search", "gecko", "--agent-dir", join(dir, "agent")], io), 0);
        assert.match(out, /«gecko»/);
        assert.match(err, /rebuilding it/);
        assert.equal(await run(["search", "-x", "--agent-dir", join(dir, "agent")], io), 64);
        assert.match(err, /add a word to search for/);
      } finally {
        if (previous === undefined) delete process.env.PI_SESSIONS_CACHE_DIR;
        else process.env.PI_SESSIONS_CACHE_DIR = previous;
      }
    });
  });

  it("two processes at once: one writes, the other reads what is there; the index stays intact", async () => {
    await withTempDir(async (dir) => {
      const agent = join(dir, "agent");
      const slug = join(agent, "sessions", "--w-alpha--");
      mkdirSync(slug, { recursive: true });
      for (let i = 0; i < 40; i++)
        writeFileSync(join(slug, `s${i}.jsonl`), everyRole().replace(/"id":"roles"/, `"id":"roles${i}"`));
      const env = { ...process.env, PI_SESSIONS_CACHE_DIR: join(dir, "cache") };
      const args = ["dist/cli.js", "search", "zebraprompt", "--agent-dir", agent, "--json", "--limit", "100"];
      const runs = await Promise.all(
        [0, 1, 2].map(
          () =>
            new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
              const p = spawn(process.execPath, args, { env });
              let out = "";
              let err = "";
              p.stdout.on("data", (d: Buffer) => (out += d.toString()));
              p.stderr.on("data", (d: Buffer) => (err += d.toString()));
              p.on("close", (code) => resolve({ code, out, err }));
            }),
        ),
      );
      for (const r of runs) assert.equal(r.code, 0, r.err);
      const shown = runs.map((r) => r.out.slice(0, 300)).join("\n");
      const results = runs.map((r) => JSON.parse(r.out) as { hits: unknown[]; indexed: { pending: number } });
      // The writer found all 40; a reader found what was committed when it asked, and said what was pending.
      assert.ok(
        results.some((r) => r.hits.length === 40 && r.indexed.pending === 0),
        shown,
      );
      for (const r of results) assert.ok(r.hits.length + r.indexed.pending >= 40, shown);
      const after = spawnSync(process.execPath, args, { env, encoding: "utf8" });
      assert.equal((JSON.parse(after.stdout) as { hits: unknown[] }).hits.length, 40);
      const files = readdirSync(join(dir, "cache")).filter((f) => f.endsWith(".sqlite"));
      assert.equal(files.length, 1);
      const db = new (await loadSqlite())(join(dir, "cache", files[0]!));
      try {
        assert.deepEqual(db.get("PRAGMA integrity_check"), { integrity_check: "ok" });
      } finally {
        db.close();
      }
    });
  });
});
