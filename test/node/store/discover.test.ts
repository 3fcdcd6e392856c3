// The placement rule: the watcher's paths (placeFile) are placed exactly as the walk (discover) lists them.
import * as assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { discover, placeFile } from "../../../src/node/store/index.js";
import type { SessionRoot } from "../../../src/node/roots.js";
import { withTempDir } from "../../support/helpers.js";

/**
 * A root with every shape the walk knows:
 *
 *   root/flat.jsonl                      flat session
 *   root/flat/sub.jsonl                  nested in the flat session's artifacts dir
 *   root/flat/deeper/x.jsonl             too deep: not a session
 *   root/proj/a.jsonl                    in a slug folder
 *   root/proj/a/task.jsonl               nested (subagent) in a's artifacts dir
 *   root/proj/other/x.jsonl              a folder that is no session's artifacts dir: not listed
 *   root/proj/.a.jsonl.lock, a.jsonl.tmp lock and tmp siblings
 *   root/.hidden/h.jsonl                 hidden folder
 *   root/proj/out.jsonl → outside        a symlink that leaves the root
 *   root/alias → proj, proj/a-link.jsonl → a.jsonl    second paths to listed sessions
 */
function layout(dir: string): { root: SessionRoot; paths: string[] } {
  const rootDir = join(dir, "root");
  const files = [
    "flat.jsonl",
    "flat/sub.jsonl",
    "flat/deeper/x.jsonl",
    "proj/a.jsonl",
    "proj/a/task.jsonl",
    "proj/other/x.jsonl",
    "proj/.a.jsonl.lock",
    "proj/a.jsonl.tmp",
    ".hidden/h.jsonl",
  ];
  for (const f of files) {
    mkdirSync(join(rootDir, f, ".."), { recursive: true });
    writeFileSync(join(rootDir, f), "{}\n");
  }
  writeFileSync(join(dir, "outside.jsonl"), "{}\n");
  symlinkSync(join(dir, "outside.jsonl"), join(rootDir, "proj", "out.jsonl"));
  // Second paths to listed sessions: a symlinked slug folder, a symlinked file beside its target.
  symlinkSync(join(rootDir, "proj"), join(rootDir, "alias"));
  symlinkSync(join(rootDir, "proj", "a.jsonl"), join(rootDir, "proj", "a-link.jsonl"));
  const links = ["proj/out.jsonl", "alias/a.jsonl", "alias/a/task.jsonl", "proj/a-link.jsonl"];
  return { root: { dir: rootDir, agent: "pi", source: "test" }, paths: [...files, ...links] };
}

describe("placement rule", () => {
  it("placeFile places exactly the files discover lists, with the same slug and parent session", async () => {
    await withTempDir(async (dir) => {
      const { root, paths } = layout(dir);
      const { files } = await discover([root]);
      const listed = new Map(files.map((f) => [relative(root.dir, f.file), f]));
      assert.deepEqual(
        [...listed.keys()].sort(),
        ["flat.jsonl", "flat/sub.jsonl", "proj/a.jsonl", "proj/a/task.jsonl"],
        "the walk's own answer, from the layout above",
      );
      for (const p of paths) {
        const placed = placeFile(join(root.dir, p), [root]);
        const walked = listed.get(p);
        assert.equal(placed !== null, walked !== undefined, `${p}: placed iff listed`);
        if (placed && walked) {
          assert.equal(placed.slug, walked.slug, `${p}: slug`);
          assert.equal(placed.nestedIn, walked.nestedIn, `${p}: nestedIn`);
        }
      }
    });
  });

  it("a path outside every root, or a file that is gone, is placed by its position alone", async () => {
    await withTempDir(async (dir) => {
      const { root } = layout(dir);
      assert.equal(placeFile(join(dir, "outside.jsonl"), [root]), null);
      const gone = placeFile(join(root.dir, "proj", "gone.jsonl"), [root]);
      assert.deepEqual(gone && { slug: gone.slug, nestedIn: gone.nestedIn }, { slug: "proj", nestedIn: null });
    });
  });
});
