// Oh My Pi images stored as blobs (issue #14, item 18): `context` resolves a blob reference to its data exactly as
// OMP does (the fixture and its oracle were written by the real OMP 18.2.3); a missing blob is reported with its
// hash; nothing but `<agent dir>/blobs/<64 hex>` is ever opened.
import * as assert from "node:assert/strict";
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../src/cli/main.js";
import { parseSession } from "../../src/core/session/index.js";
import { agentDirOf, agentDirOfRoot, describeBlobImages, readBlob } from "../../src/node/blobs.js";
import { contextModel } from "../../src/node/views/context.js";
import { REAL } from "../support/fixtures.js";
import { plain } from "../support/helpers.js";

const FIXTURE = join(REAL, "omp-blob");
const ORACLE = JSON.parse(readFileSync(join(FIXTURE, "oracle.json"), "utf8"));
const HASH = /blob:sha256:([0-9a-f]{64})/.exec(ORACLE.blobRef)![1]!;

const cli = async (...args: string[]) => {
  let out = "";
  let err = "";
  const code = await run(args, { out: (t) => (out += t + "\n"), err: (t) => (err += t + "\n") });
  return { code, out, err };
};

describe("hardening: OMP images stored as blobs", () => {
  let dir: string;
  let agent: string;
  let session: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pse-blob-"));
    agent = join(dir, "agent");
    cpSync(FIXTURE, agent, { recursive: true });
    const slug = readdirSync(join(agent, "sessions"))[0]!;
    session = join(agent, "sessions", slug, readdirSync(join(agent, "sessions", slug))[0]!);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("the fixture holds a blob reference, and OMP's own context the image's data", () => {
    assert.ok(readFileSync(session, "utf8").includes(ORACLE.blobRef));
    assert.equal(ORACLE.context.messages[0].content[1].data, ORACLE.imageBase64);
  });

  it("context --json resolves the blob to its data, as OMP's context does", async () => {
    const r = await cli("context", session, "--json");
    assert.equal(r.code, 0, r.err);
    const ours = JSON.parse(r.out).messages;
    assert.deepEqual(plain(ours[0].content), plain(ORACLE.context.messages[0].content));
    assert.equal(ours.length, ORACLE.context.messages.length);
  });

  it("a missing blob stays a reference, named with its hash in the text output and in the panel", async () => {
    unlinkSync(join(agent, "blobs", HASH));
    const json = JSON.parse((await cli("context", session, "--json")).out);
    assert.equal(json.messages[0].content[1].data, ORACLE.blobRef, "as OMP leaves it");
    const text = await cli("context", session);
    assert.equal(text.code, 0);
    assert.match(text.out, new RegExp(`image missing: blob sha256:${HASH}`));
    const parsed = parseSession(session, readFileSync(session));
    assert.ok(parsed.ok);
    const model = await describeBlobImages(contextModel(parsed.session, null, "t"), agentDirOf(session));
    assert.deepEqual(model.rows[0]!.images, [{ mimeType: "image/png", bytes: null, blob: HASH, missing: true }]);
  });

  it("the panel sizes a blob that is there", async () => {
    const parsed = parseSession(session, readFileSync(session));
    assert.ok(parsed.ok);
    const model = await describeBlobImages(contextModel(parsed.session, null, "t"), agentDirOf(session));
    const bytes = Buffer.from(ORACLE.imageBase64, "base64").length;
    assert.deepEqual(model.rows[0]!.images, [{ mimeType: "image/png", bytes, blob: HASH, missing: false }]);
  });

  it("only <agent dir>/blobs/<64 hex> is opened: traversal, other names and symlinks out are refused", async () => {
    writeFileSync(join(dir, "secret"), "SECRET");
    // A reference that is no hash, pointing elsewhere: left as written, never a path.
    const hostile = readFileSync(session, "utf8").replace(ORACLE.blobRef, "blob:sha256:../../../secret");
    writeFileSync(session, hostile);
    const json = JSON.parse((await cli("context", session, "--json")).out);
    assert.equal(json.messages[0].content[1].data, "blob:sha256:../../../secret");
    // A blob name that is a symlink out of the blobs folder is not followed.
    rmSync(join(agent, "blobs", HASH));
    symlinkSync(join(dir, "secret"), join(agent, "blobs", HASH));
    assert.equal(await readBlob(agent, HASH), null);
    assert.equal(await readBlob(agent, HASH.toUpperCase()), null, "only lowercase hex");
    assert.equal(await readBlob(null, HASH), null, "a session outside an agent dir has no blob store");
  });

  it("the agent dir is the parent of the sessions folder, in the agents' layouts only", () => {
    assert.equal(agentDirOf(session), agent);
    assert.equal(agentDirOf(join(agent, "sessions", "--w--", "parent-session", "sub.jsonl")), agent, "a subagent's");
    assert.equal(agentDirOf(join(dir, "flat", "x.jsonl")), null);
    assert.equal(agentDirOf(join(dir, "sessions", "a", "b", "c", "x.jsonl")), null, "deep in some sessions tree");
    assert.equal(agentDirOfRoot(join(agent, "sessions")), agent);
    assert.equal(agentDirOfRoot(join(dir, "flat")), null, "a plain session dir has no blob store");
  });

  it("a blob over the bound (32 MB) is missing in the CLI and the panel; it is never read", async () => {
    truncateSync(join(agent, "blobs", HASH), 40 * 1024 * 1024); // sparse: no disk, but 40 MB to read
    assert.equal(await readBlob(agent, HASH), null);
    const json = JSON.parse((await cli("context", session, "--json")).out);
    assert.equal(json.messages[0].content[1].data, ORACLE.blobRef);
    const parsed = parseSession(session, readFileSync(session));
    assert.ok(parsed.ok);
    const model = await describeBlobImages(contextModel(parsed.session, null, "t"), agent);
    assert.equal(model.rows[0]!.images![0]!.missing, true);
  });
});
