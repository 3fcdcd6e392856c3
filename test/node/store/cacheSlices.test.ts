// The metadata cache and the library made in slices (issue #38: an editor's event loop never held for a whole
// listing): a listing of many lines reads back as the store it came from, a damaged listing line drops the cache, a
// long line encoded in pieces is the same bytes and checksum, and ownership computed in slices is the same.
import * as assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionRoot } from "../../../src/node/roots.js";
import { usageReport } from "../../../src/node/report.js";
import { checksum, encodeInPieces } from "../../../src/node/store/cacheLines.js";
import { computeOwnership, computeOwnershipInSlices, loadStore } from "../../../src/node/store/index.js";
import { fork, header, message, usage } from "../../support/builders.js";
import { jsonl } from "../../support/helpers.js";

const SESSIONS = 1_200;

const session = (id: string, cost: number, parent?: string) =>
  jsonl(
    parent ? fork(parent, { id, time: 10 }) : header({ id, time: 0 }),
    message("u0000001", null, "user", `prompt of ${id}`, { time: 1 }),
    message("a0000001", "u0000001", "assistant", "ok", { time: 2, usage: usage(100, 10, cost) }),
    ...(parent ? [message("a0000002", "a0000001", "assistant", "mine", { time: 20, usage: usage(5, 5, 0.5) })] : []),
  );

describe("the store in slices: a long listing, long lines, ownership", function () {
  this.timeout(120_000);
  let dir: string;
  let roots: SessionRoot[];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "pse-slices-"));
    const project = join(dir, "sessions", "--proj--");
    mkdirSync(project, { recursive: true });
    for (let i = 0; i < SESSIONS; i++) {
      const id = `s${String(i).padStart(5, "0")}`;
      // Every tenth session forks the one before it (its first turn a copy).
      const parent = i % 10 === 9 ? join(project, `s${String(i - 1).padStart(5, "0")}.jsonl`) : undefined;
      writeFileSync(join(project, `${id}.jsonl`), session(id, 0.01 * (i % 7), parent));
    }
    roots = [{ dir: join(dir, "sessions"), agent: "pi", source: "test" }];
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("1,200 entries: a listing of three lines, read back whole; a damaged line drops the cache", async () => {
    const cacheFile = join(dir, "cache.json");
    const cold = await loadStore({ roots, cacheFile });
    const truth = usageReport(cold.sessions, { by: "session" });
    const text = readFileSync(cacheFile, "utf8");
    const header = JSON.parse(text.slice(0, text.indexOf("\n"))) as { bytes: number };
    const listing = text.slice(text.indexOf("\n") + 1).slice(0, header.bytes);
    assert.equal(listing.split("\n").length, 3, "500 entries a line");
    const warm = await loadStore({ roots, cacheFile });
    assert.equal(warm.filesRead, 0, "every file from the cache");
    assert.deepEqual(usageReport(warm.sessions, { by: "session" }), truth);
    // The second listing line damaged: the checksum refuses the cache, and every file is read again.
    const lines = text.split("\n");
    lines[2] = lines[2]!.replace("s00", "x00");
    writeFileSync(cacheFile, lines.join("\n"));
    const again = await loadStore({ roots, cacheFile });
    assert.equal(again.filesRead, SESSIONS);
    assert.deepEqual(usageReport(again.sessions, { by: "session" }), truth);
  });

  it("ownership computed in slices is computeOwnership's", async () => {
    const a = (await loadStore({ roots, cacheFile: null })).sessions;
    const b = (await loadStore({ roots, cacheFile: null })).sessions;
    computeOwnership(a);
    await computeOwnershipInSlices(b, 7);
    const facts = (list: typeof a) => list.map((s) => [s.file, [...s.inherited].sort(), s.forkPointId]);
    assert.deepEqual(facts(b), facts(a));
    assert.equal(a.filter((s) => s.inherited.size > 0).length, SESSIONS / 10, "every fork inherits its copy");
  });

  it("a long line encoded in pieces: the same bytes and checksum, no surrogate pair split", async () => {
    // A pair straddles the first piece's end (1,048,576 characters), and non-ASCII text fills the rest.
    const text = `${"a".repeat((1 << 20) - 1)}😀${"é∑".repeat(600_000)}😀`;
    const line = await encodeInPieces(text);
    assert.ok(line.pieces.length >= 3, `${line.pieces.length} pieces`);
    const joined = Buffer.concat(line.pieces);
    assert.ok(joined.equals(Buffer.from(text, "utf8")), "the same bytes");
    assert.equal(line.length, joined.length);
    assert.equal(line.sum, checksum(joined));
    assert.equal((await encodeInPieces("")).length, 0);
  });
});
