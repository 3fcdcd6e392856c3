// Our writers' locks and appends: a stale lock is taken over by exactly one writer, a release never removes a
// successor's lock, a symlinked path shares the real file's locks, OMP's publish lock goes stale by age (a pid may
// live in another pid namespace), and an append cut short by a full disk leaves the file as it was.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { ROOT } from "../support/fixtures.js";
import { header, message } from "../support/builders.js";
import { jsonl, sleep, withTempDir } from "../support/helpers.js";
import { publishLockHeld, SessionWriteError, withWriterLock } from "../../src/node/sessionWrite.js";

/** A pid that is certainly not running: a child that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

function session(dir: string, name = "s.jsonl"): string {
  const file = join(dir, name);
  writeFileSync(file, jsonl(header(), message("a1", null, "user", "hello")));
  return file;
}

const busy = (err: unknown) => err instanceof SessionWriteError && err.reason === "busy";

describe("session locks", () => {
  it("a stale writer lock (its pid is gone on this host) is taken over by exactly one of many writers", async () =>
    withTempDir(async (dir) => {
      const file = session(dir);
      const lock = join(dir, ".s.jsonl.writer.lock");
      for (let round = 0; round < 20; round++) {
        writeFileSync(lock, `${deadPid()}:1:${hostname()}:stale\n`);
        let inside = 0;
        let most = 0;
        let ran = 0;
        const outcomes = await Promise.allSettled(
          Array.from({ length: 6 }, () =>
            withWriterLock(file, async () => {
              inside++;
              ran++;
              most = Math.max(most, inside);
              await sleep(20);
              inside--;
            }),
          ),
        );
        assert.equal(most, 1, `round ${round}: two writers held the lock at once`);
        assert.ok(ran >= 1, `round ${round}: nobody took the stale lock over`);
        for (const o of outcomes) if (o.status === "rejected") assert.ok(busy(o.reason), String(o.reason));
        assert.throws(() => statSync(lock), "released after the last writer");
      }
    }));

  it("a live writer's lock is not taken over; a lock from another host is not judged by its pid", async () =>
    withTempDir(async (dir) => {
      const file = session(dir);
      const lock = join(dir, ".s.jsonl.writer.lock");
      for (const content of [`${process.pid}:1:${hostname()}:x\n`, `${deadPid()}:1:elsewhere.example:x\n`]) {
        writeFileSync(lock, content);
        await assert.rejects(
          withWriterLock(file, async () => undefined),
          busy,
        );
        assert.equal(readFileSync(lock, "utf8"), content);
      }
    }));

  it("releasing never removes a lock that is no longer ours", async () =>
    withTempDir(async (dir) => {
      const file = session(dir);
      const lock = join(dir, ".s.jsonl.writer.lock");
      const successor = `${process.pid}:2:${hostname()}:successor\n`;
      await withWriterLock(file, async () => {
        // Another writer judged ours stale and replaced it (a new inode, new content).
        writeFileSync(join(dir, "tmp"), successor);
        spawnSync("mv", [join(dir, "tmp"), lock]);
      });
      assert.equal(readFileSync(lock, "utf8"), successor);
    }));

  it("a session reached through a symlink shares the real file's lock", async () =>
    withTempDir(async (dir) => {
      const file = session(dir);
      const link = join(dir, "link.jsonl");
      symlinkSync(file, link);
      await withWriterLock(file, async () => {
        await assert.rejects(
          withWriterLock(link, async () => undefined),
          busy,
        );
      });
    }));

  it("OMP's publish lock is held while fresh whatever its pid, and stale once old", async () =>
    withTempDir(async (dir) => {
      const file = session(dir);
      const lock = join(dir, ".s.jsonl.lock");
      writeFileSync(lock, `${deadPid()}:${Date.now()}\n`); // OMP in another pid namespace: the pid means nothing here
      assert.equal(await publishLockHeld(file), true);
      const old = (Date.now() - 60_000) / 1000;
      utimesSync(lock, old, old);
      assert.equal(await publishLockHeld(file), false);
    }));
});

describe("appending", () => {
  it("an append the disk cuts short (file size limit) is rolled back: the file is byte for byte what it was", () =>
    withTempDir((dir) => {
      const file = session(dir);
      writeFileSync(file, readFileSync(file, "utf8") + "x".repeat(3000) + "\n");
      const before = readFileSync(file);
      // bash: ignore SIGXFSZ so that writes past the limit fail with EFBIG; the limit is in 1,024-byte blocks.
      const script = [
        `import { snapshot, appendIfUnchanged } from ${JSON.stringify(join(ROOT, "src/node/sessionWrite.ts"))};`,
        "const file = process.argv[1];",
        "const { snap } = await snapshot(file);",
        "try { await appendIfUnchanged(file, snap, 'y'.repeat(10000) + '\\n'); console.log('written'); }",
        "catch (err) { console.log('failed ' + err.code); }",
      ].join("\n");
      const limit = Math.ceil(before.length / 1024) + 1;
      const run = spawnSync(
        "bash",
        [
          "-c",
          `trap '' XFSZ; ulimit -f ${limit}; exec "${process.execPath}" --import tsx --input-type=module -e "$0" "$1"`,
          script,
          file,
        ],
        { cwd: ROOT, encoding: "utf8" },
      );
      assert.match(run.stdout, /failed EFBIG/, run.stderr);
      assert.ok(readFileSync(file).equals(before), "the partial append was cut back");
    }));
});
