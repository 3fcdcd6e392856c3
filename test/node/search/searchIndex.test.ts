// Full-text search (issue #17, first part): the SQLite FTS5 index over a store, kept current as files are appended,
// rewritten and deleted; every role found, fork copies once with the forks that carry them, image data and
// signatures never indexed, odd queries never an exception, a corrupt index rebuilt; and `pi-sessions search`.
import * as assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import fc from "fast-check";

import { parseQuery } from "../../../src/core/search/query.js";
import { run } from "../../../src/cli/main.js";
import { loadSqlite } from "../../../src/node/search/indexFile.js";
import { SearchIndex } from "../../../src/node/search/searchIndex.js";
import { indexTargets } from "../../../src/node/search/targets.js";
import { branchSummary, compaction, header, label, message, toolResult } from "../../support/builders.js";
import { ownedStore, writeForkFamily } from "../../support/forkFamily.js";
import { jsonl, withTempDir } from "../../support/helpers.js";

/** The index is per set of roots; these tests use one. */
const ROOTS = [{ dir: "/roots" }];
const IMAGE_DATA = "UVVKRFJFVkdSMGhKU2t0TVRVNVBVQT09";

/** A session with one unique word in every kind of text, plus image data and a signature that must not be found. */
function everyRole() {
  return jsonl(
    header({ id: "roles", cwd: "/w/alpha" }),
    message("u1", null, "user", [
      { type: "text", text: "zebraprompt please" },
      { type: "image", mimeType: "image/png", data: IMAGE_DATA },
    ]),
    message("a1", "u1", "assistant", [
      { type: "thinking", thinking: "quokkathought", thinkingSignature: "sigsecretword" },
      { type: "text", text: "ocelotreply here" },
      { type: "toolCall", id: "c1", name: "bash", arguments: { command: "grep -R narwhalcmd src/" } },
    ]),
    toolResult("r1", "a1", "c1", "bash", "ENOENT: no such file, yakoutput"),
    message("b1", "r1", "bashExecution", "", {
      extra: { command: "ls wombatdir", output: "listing", exitCode: 0 },
    }),
    compaction("k1", "b1", "b1", { summary: "## Goal\nlemursummary" }),
    branchSummary("s1", "k1", "ibexbranch summary"),
    label("l1", "s1", "u1", "badgerlabel"),
    { type: "session_info", id: "n1", parentId: "l1", timestamp: "2026-01-01T00:00:09Z", name: "Falcon session" },
    {
      type: "custom_message",
      id: "m1",
      parentId: "n1",
      timestamp: "2026-01-01T00:00:10Z",
      customType: "note",
      content: "gecko custom",
      display: true,
    },
  );
}

function find(index: SearchIndex, q: string) {
  const parsed = parseQuery(q);
  assert.ok(parsed.ok, q);
  return index.query(parsed);
}

/** Every unit of an index file with where its text is, in one order (to compare two indexes of the same store). */
async function dump(file: string): Promise<unknown[]> {
  const db = new (await loadSqlite())(file);
  try {
    const units = db.all(
      "SELECT f.file, u.entry_id, u.role, u.tool, u.time, u.active, u.at, u.len, u.part FROM units u " +
        "JOIN files f ON f.id = u.file_id ORDER BY f.file, u.entry_id, u.role, u.part",
    );
    // The words indexed for each unit, where they are in it (the index keeps no text: its vocabulary says what it has).
    db.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, fts, instance)");
    const words = db.all(
      "SELECT f.file, u.entry_id, u.role, u.part, v.term, v.offset FROM temp.vocab v JOIN units u ON u.id = v.doc " +
        "JOIN files f ON f.id = u.file_id ORDER BY f.file, u.entry_id, u.role, u.part, v.offset",
    );
    return [units, words];
  } finally {
    db.close();
  }
}

function parseQueryOk(q: string) {
  const parsed = parseQuery(q);
  assert.ok(parsed.ok, q);
  return parsed;
}

/** An agent dir under `dir` with one project folder, empty. */
function projectDir(dir: string): { agent: string; slug: string } {
  const agent = join(dir, "agent");
  const slug = join(agent, "sessions", "--p--");
  mkdirSync(slug, { recursive: true });
  return { agent, slug };
}

/** The index's targets for the store in an agent dir (ownership computed). */
const targetsOf = async (agent: string) => indexTargets((await ownedStore(agent)).sessions);

describe("search index", () => {
  it("finds every kind of text with its role; thinking only when asked; image data and signatures never", async () => {
    await withTempDir(async (dir) => {
      const slug = join(dir, "agent", "sessions", "--w-alpha--");
      mkdirSync(slug, { recursive: true });
      writeFileSync(join(slug, "roles.jsonl"), everyRole());
      const store = await ownedStore(join(dir, "agent"));
      const index = await SearchIndex.open(join(dir, "cache"), ROOTS);
      try {
        assert.deepEqual(await index.update(indexTargets(store.sessions)), {
          indexed: 1,
          appended: 0,
          removed: 0,
          pending: 0,
        });
        const roleOf = (q: string) => find(index, q).map((h) => [h.entryId, h.role, h.tool]);
        assert.deepEqual(roleOf("zebraprompt"), [["u1", "user", null]]);
        assert.deepEqual(roleOf("ocelotreply"), [["a1", "assistant", null]]);
        assert.deepEqual(roleOf("narwhalcmd"), [["a1", "tool", "bash"]], "a tool call's arguments, verbatim");
        assert.deepEqual(roleOf("yakoutput"), [["r1", "tool", "bash"]]);
        assert.deepEqual(roleOf("wombatdir"), [["b1", "tool", "bash"]]);
        assert.deepEqual(roleOf("lemursummary"), [["k1", "summary", null]]);
        assert.deepEqual(roleOf("ibexbranch"), [["s1", "summary", null]]);
        assert.deepEqual(roleOf("badgerlabel"), [["l1", "meta", null]]);
        assert.deepEqual(roleOf("falcon"), [["n1", "meta", null]]);
        assert.deepEqual(roleOf("gecko"), [["m1", "custom", null]]);
        assert.deepEqual(roleOf("quokkathought"), [], "thinking is off by default");
        assert.deepEqual(roleOf("quokkathought role:thinking"), [["a1", "thinking", null]]);
        assert.deepEqual(roleOf(IMAGE_DATA), []);
        assert.deepEqual(roleOf("sigsecretword role:thinking"), []);
        // Filters: role, tool, project, days, session prefix; a phrase; a prefix; an exclusion.
        assert.deepEqual(roleOf("ENOENT tool:bash role:tool"), [["r1", "tool", "bash"]]);
        assert.deepEqual(roleOf("ENOENT tool:read"), []);
        assert.equal(find(index, "zebraprompt project:alpha").length, 1);
        assert.equal(find(index, "zebraprompt project:beta").length, 0);
        assert.equal(find(index, "zebraprompt since:2026-01-01 until:2026-01-01").length, 1);
        assert.equal(find(index, "zebraprompt since:2026-01-02").length, 0);
        assert.equal(find(index, "zebraprompt session:rol").length, 1);
        assert.equal(find(index, '"no such file"').length, 1);
        assert.equal(find(index, '"such no file"').length, 0);
        assert.equal(find(index, "narwh*").length, 1);
        assert.equal(find(index, "zebraprompt -please").length, 0);
        assert.match(find(index, "yakoutput")[0]!.snippet, /«yakoutput»/);
      } finally {
        index.close();
      }
    });
  });

  it("a fork's copies are indexed once, in the parent, and the hit names the fork that carries them", async () => {
    await withTempDir(async (dir) => {
      const { agent, parent, child } = writeForkFamily(dir, {
        prompt: "sharedword prompt",
        answer: "sharedword answer",
        own: "ownword",
      });
      const store = await ownedStore(agent);
      const index = await SearchIndex.open(join(dir, "cache"), ROOTS);
      try {
        await index.update(indexTargets(store.sessions));
        const hits = find(index, "sharedword");
        assert.deepEqual(hits.map((h) => [h.file, h.entryId, h.alsoIn]).sort(), [
          [parent, "a1", [child]],
          [parent, "u1", [child]],
        ]);
        assert.deepEqual(
          find(index, "ownword").map((h) => [h.file, h.alsoIn]),
          [[child, []]],
        );
        // The parent deleted: the fork's copies are its own now, and found there.
        rmSync(parent);
        await index.update(indexTargets((await ownedStore(agent)).sessions));
        assert.deepEqual(
          find(index, "sharedword")
            .map((h) => [h.file, h.entryId])
            .sort(),
          [
            [child, "a1"],
            [child, "u1"],
          ],
        );
      } finally {
        index.close();
      }
    });
  });

  it("keeps current: appended, rewritten and deleted files; unchanged files are not read again", async () => {
    await withTempDir(async (dir) => {
      const { agent, slug } = projectDir(dir);
      const a = join(slug, "a.jsonl");
      const b = join(slug, "b.jsonl");
      writeFileSync(a, jsonl(header({ id: "a" }), message("u1", null, "user", "firstword")));
      writeFileSync(b, jsonl(header({ id: "b" }), message("u1", null, "user", "otherword")));
      const index = await SearchIndex.open(join(dir, "cache"), ROOTS);
      try {
        assert.equal((await index.update(await targetsOf(agent))).indexed, 2);
        assert.equal((await index.update(await targetsOf(agent))).indexed, 0, "nothing changed");
        appendFileSync(a, jsonl(message("u2", "u1", "user", "appendedword")));
        assert.deepEqual(await index.update(await targetsOf(agent)), {
          indexed: 1,
          appended: 1,
          removed: 0,
          pending: 0,
        });
        assert.equal(find(index, "appendedword").length, 1);
        assert.equal(find(index, "firstword").length, 1, "the rest of the file is still there, once");
        writeFileSync(a, jsonl(header({ id: "a" }), message("u1", null, "user", "rewrittenword")));
        utimesSync(a, new Date(), new Date(Date.now() + 5000));
        await index.update(await targetsOf(agent));
        assert.equal(find(index, "rewrittenword").length, 1);
        assert.equal(find(index, "firstword").length, 0);
        rmSync(b);
        assert.equal((await index.update(await targetsOf(agent))).removed, 1);
        assert.equal(find(index, "otherword").length, 0);
        assert.deepEqual(index.stats(), { sessions: 1, entries: 1 });
      } finally {
        index.close();
      }
    });
  });

  it("an append is indexed from the last offset, and gives what indexing the whole file gives", async () => {
    type Op = { kind: "reply" | "branch" | "dup" | "partial" | "label" | "redact" | "insert"; back: number };
    const op = fc.record({
      kind: fc.constantFrom<Op["kind"]>("reply", "reply", "branch", "dup", "partial", "label", "redact", "insert"),
      back: fc.nat(20),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
        await withTempDir(async (dir) => {
          const { agent, slug } = projectDir(dir);
          const file = join(slug, "s.jsonl");
          writeFileSync(file, jsonl(header({ id: "s" })));
          const live = await SearchIndex.open(join(dir, "live"), ROOTS);
          const ids: string[] = [];
          let leaf: string | null = null;
          try {
            await live.update(await targetsOf(agent));
            for (const [n, o] of ops.entries()) {
              const earlier = ids.length ? ids[o.back % ids.length]! : null;
              let id = `e${n}`;
              let parent = leaf;
              if (o.kind === "branch") parent = earlier;
              if (o.kind === "dup" && earlier) id = earlier;
              const line =
                o.kind === "label" && earlier
                  ? jsonl(label(id, leaf ?? earlier, earlier, `tag${n}`))
                  : jsonl(message(id, parent, n % 2 ? "assistant" : "user", `word${n} text${o.back}`, { time: n }));
              if ((o.kind === "redact" || o.kind === "insert") && ids.length) {
                // An edit in place (same inode): a word of an earlier line replaced, at the same length or longer.
                const text = readFileSync(file, "utf8");
                const at = text.indexOf(`word${o.back % n}`);
                if (at >= 0) {
                  const word = o.kind === "redact" ? "XXXX" : "wordlonger";
                  const edited = `${text.slice(0, at)}${word}${text.slice(at + 4)}`;
                  writeFileSync(file, edited);
                  utimesSync(file, new Date(), new Date(Date.now() + 1000 * (n + 1)));
                  await live.update(await targetsOf(agent));
                }
                continue;
              }
              if (o.kind === "partial") {
                appendFileSync(file, line.slice(0, line.length >> 1));
                await live.update(await targetsOf(agent));
                appendFileSync(file, line.slice(line.length >> 1));
              } else appendFileSync(file, line);
              await live.update(await targetsOf(agent));
              ids.push(id);
              leaf = id;
            }
          } finally {
            live.close();
          }
          const whole = await SearchIndex.open(join(dir, "whole"), ROOTS);
          try {
            await whole.update(await targetsOf(agent));
          } finally {
            whole.close();
          }
          assert.deepEqual(await dump(live.file), await dump(whole.file), JSON.stringify(ops));
        });
      }),
      { numRuns: 30 },
    );
  });

  it("an OMP title slot rewritten in place, or a shrunk file, is indexed whole again", async () => {
    await withTempDir(async (dir) => {
      const { agent, slug } = projectDir(dir);
      const file = join(slug, "s.jsonl");
      const slot = (title: string) => {
        const line = JSON.stringify({ type: "title", v: 1, title, updatedAt: "2026-01-01T00:00:00Z", pad: "" });
        return `${line.slice(0, -2)}${" ".repeat(255 - line.length)}"}\n`;
      };
      const body = jsonl(header({ id: "s" }), message("u1", null, "user", "slotprompt"));
      writeFileSync(file, slot("") + body);
      const index = await SearchIndex.open(join(dir, "cache"), ROOTS);
      try {
        await index.update(await targetsOf(agent));
        writeFileSync(file, slot("kestrel title") + body + jsonl(message("a1", "u1", "assistant", "slotreply")));
        assert.equal(slot("kestrel title").length, slot("").length);
        assert.deepEqual(await index.update(await targetsOf(agent)), {
          indexed: 1,
          appended: 0,
          removed: 0,
          pending: 0,
        });
        assert.deepEqual(
          find(index, "kestrel").map((h) => [h.entryId, h.role, h.snippet, h.active]),
          [["", "meta", "«kestrel» title", true]],
        );
        assert.equal(find(index, "slotreply").length, 1);
        assert.equal(find(index, "slotprompt").length, 1);
        writeFileSync(
          file,
          slot("kestrel title") + jsonl(header({ id: "s" }), message("u9", null, "user", "shortword")),
        );
        await index.update(await targetsOf(agent));
        assert.equal(find(index, "slotreply").length, 0);
        assert.equal(find(index, "shortword").length, 1);
      } finally {
        index.close();
      }
    });
  });

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
