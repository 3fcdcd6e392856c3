// Checkpoints written by the real Blackmagic rc.5 inside the real pi 0.83 (fixtures/real/blackmagic): every fact
// `pi-sessions checkpoints --json` reports is checked against the fixtures' MANIFEST, which the generator computed
// from the files and the mock provider's answers, never from our reader.
import * as assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../../src/cli/main.js";
import { FILTER_MODES, SessionOutline } from "../../../src/core/outline.js";
import { parseSession } from "../../../src/core/session/index.js";
import { computeOwnership, loadStore } from "../../../src/node/store/index.js";
import { checkpointModel } from "../../../src/node/views/checkpoint.js";
import { checkpointRecord } from "../../../src/node/views/checkpointRecord.js";
import { header, message } from "../../support/builders.js";
import { REAL } from "../../support/fixtures.js";
import { jsonl } from "../../support/helpers.js";

const BLACKMAGIC = join(REAL, "blackmagic");
const MANIFEST = JSON.parse(readFileSync(join(BLACKMAGIC, "MANIFEST.json"), "utf8"));

interface ManifestCompaction {
  entryId: string;
  state: string;
  failureClass: string | null;
  surface: string | null;
  protocol: string | null;
  endpoint: string | null;
  model: string | null;
  deployment: string | null;
  integrity: { value: string; length: number; valid: boolean } | null;
  artifactItemCount: number | null;
  artifactItemTypes: string[] | null;
  compactionItemId: string | null;
  usage: Record<string, number> | null;
  latencyMs: number | null;
  replayNamespace: string | null;
  replacedItemHashCount: number | null;
  localDetails: { readFiles: string[]; modifiedFiles: string[] };
  onActiveBranch: boolean;
  isLatestActiveCheckpoint: boolean;
  isLatestCompactionOnOwnBranch: boolean;
  timelineEntry: { id: string; data: { method: string; failureClass?: string } };
  mock: { returnedUsage?: Record<string, unknown> };
}
interface ManifestFile {
  file: string;
  scenario: string;
  activeCheckpointEntryId: string | null;
  compactions: ManifestCompaction[];
}
const FILES = MANIFEST.files as ManifestFile[];

const cli = async (...args: string[]) => {
  let out = "";
  let err = "";
  const code = await run(args, { out: (t) => (out += t + "\n"), err: (t) => (err += t + "\n") });
  return { code, out, err };
};

async function records(file: string) {
  const r = await cli("checkpoints", file, "--json");
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out).checkpoints as Record<string, any>[];
}

describe("checkpoints written by Blackmagic itself", () => {
  it("the fixtures hold 15 compaction entries in 12 files, over all three surfaces and both outcomes", () => {
    assert.equal(FILES.length, 12);
    const all = FILES.flatMap((f) => f.compactions);
    assert.equal(all.length, 15);
    assert.deepEqual(
      new Set(all.map((c) => c.surface)),
      new Set(["openai_api", "azure_openai", "chatgpt_codex", null]),
    );
    assert.deepEqual(new Set(all.map((c) => c.state)), new Set(["remote_applied", "local_fallback"]));
  });

  for (const f of FILES) {
    it(`${f.scenario}: checkpoints --json agrees with every fact in the MANIFEST`, async () => {
      const ours = await records(join(BLACKMAGIC, f.file));
      assert.deepEqual(
        ours.map((r) => r.entryId),
        f.compactions.map((c) => c.entryId),
        "every compaction entry, in file order",
      );
      f.compactions.forEach((m, i) => {
        const r = ours[i]!;
        const at = `${f.scenario} ${m.entryId}`;
        assert.equal(r.producer, "blackmagic", at);
        for (const key of [
          "state",
          "failureClass",
          "surface",
          "protocol",
          "endpoint",
          "model",
          "deployment",
          "artifactItemCount",
          "compactionItemId",
          "latencyMs",
          "replayNamespace",
          "replacedItemHashCount",
          "onActiveBranch",
        ] as const)
          assert.deepEqual(r[key], m[key], `${at}: ${key}`);
        assert.deepEqual(r.usage, m.usage, `${at}: usage`);
        if (m.integrity === null) assert.equal(r.integrity, null, at);
        else
          assert.deepEqual(
            r.integrity,
            { algorithm: "sha256", value: m.integrity.value, length: m.integrity.length, valid: m.integrity.valid },
            at,
          );
        assert.equal(r.activeOnActiveBranch, m.isLatestActiveCheckpoint, `${at}: activeOnActiveBranch`);
        assert.equal(r.timelineEntryId, m.timelineEntry.id, `${at}: timeline`);
        assert.deepEqual(r.readFiles, m.localDetails.readFiles, `${at}: readFiles`);
        assert.deepEqual(r.modifiedFiles, m.localDetails.modifiedFiles, `${at}: modifiedFiles`);
        // The next compaction on the same branch: none for the branch's latest; in these files, the next one.
        const expected = m.isLatestCompactionOnOwnBranch ? null : f.compactions[i + 1]!.entryId;
        assert.equal(r.supersededBy, expected, `${at}: supersededBy`);
        // The server's usage as the mock returned it, minus the nested details Blackmagic does not keep.
        const returned = m.mock.returnedUsage;
        if (returned) {
          for (const k of ["input_tokens", "output_tokens", "total_tokens"])
            assert.equal(r.usage?.[k], returned[k], `${at}: ${k} as the mock returned it`);
        }
      });
      const active = ours.filter((r) => r.activeOnActiveBranch).map((r) => r.entryId);
      assert.deepEqual(active, f.activeCheckpointEntryId ? [f.activeCheckpointEntryId] : [], "at most one replays");
    });
  }

  it("usage: server compaction tokens as the mock returned them, unpriced, apart from the summary call", async () => {
    for (const f of FILES.filter((x) => x.compactions.length > 0)) {
      const raw = readFileSync(join(BLACKMAGIC, f.file), "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      const priced = [
        ...raw.filter((e) => e.type === "message" && e.message.role === "assistant").map((e) => e.message.usage),
        ...raw.filter((e) => e.type === "compaction" && e.usage).map((e) => e.usage), // pi's summary call
        // A branch summary's own call: pi 0.83 writes it priced, and its session totals (and pi 1.6's) count it.
        ...raw.filter((e) => e.type === "branch_summary" && e.usage).map((e) => e.usage),
      ];
      const server = f.compactions.filter((c) => c.state === "remote_applied").map((c) => c.mock.returnedUsage!);
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      const u = JSON.parse((await cli("usage", "--file", join(BLACKMAGIC, f.file), "--no-cache", "--json")).out);
      const at = f.scenario;
      assert.equal(u.total.unpriced, server.length, `${at}: unpriced records`);
      assert.equal(u.total.messages, priced.length + server.length, at);
      assert.ok(Math.abs(u.total.cost - sum(priced.map((x) => x.cost.total))) < 1e-9, `${at}: cost, priced calls only`);
      assert.equal(
        u.total.totalTokens,
        sum(priced.map((x) => x.totalTokens)) + sum(server.map((x) => x.total_tokens as number)),
        `${at}: total tokens`,
      );
      // Blackmagic drops the nested cached count, so the server's whole input counts as input.
      assert.equal(
        u.total.input,
        sum(priced.map((x) => x.input)) + sum(server.map((x) => x.input_tokens as number)),
        `${at}: input`,
      );
      const byModel = JSON.parse(
        (await cli("usage", "--file", join(BLACKMAGIC, f.file), "--by", "model", "--no-cache", "--json")).out,
      );
      const serverRows = byModel.rows.filter((r: { key: string }) => r.key.endsWith("(server compaction)"));
      assert.equal(
        sum(serverRows.map((r: { totalTokens: number }) => r.totalTokens)),
        sum(server.map((x) => x.total_tokens as number)),
      );
      assert.ok(serverRows.every((r: { cost: number }) => r.cost === 0));
    }
    const text = await cli("usage", "--file", join(BLACKMAGIC, FILES[0]!.file), "--by", "model", "--no-cache");
    assert.match(text.out, /\(server compaction\)\s.*no price \*/);
    assert.match(text.out, /\* 1 server compaction: tokens counted; the provider gives no price/);
  });

  it("over the whole store, a checkpoint a fork copied counts once", async () => {
    const u = JSON.parse(
      (await cli("usage", "--session-dir", join(BLACKMAGIC, "agent", "sessions"), "--no-cache", "--json")).out,
    );
    const distinct = new Set(
      FILES.flatMap((f) => f.compactions.filter((c) => c.state === "remote_applied").map((c) => c.entryId)),
    );
    assert.equal(u.rows.length, 12, "every file is a row");
    assert.equal(u.total.unpriced, distinct.size);
    assert.equal(distinct.size, 11, "12 applied compaction entries, one of them the fork's copy");
  });

  it("a tampered artifact reads valid: false and is not the checkpoint that replays", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pse-tamper-"));
    try {
      const f = FILES.find((x) => x.scenario === "openai-remote-replay")!;
      const file = join(dir, "s.jsonl");
      const text = readFileSync(join(BLACKMAGIC, f.file), "utf8");
      // One character of a user message inside the stored artifact changes; the stored hash and length stay.
      const lines = text.split("\n").map((l) => {
        if (!l.includes('"type":"compaction"')) return l;
        const entry = JSON.parse(l);
        const item = entry.details.checkpoint.artifact.find((i: { type: string }) => i.type === "message");
        item.content[0].text = `${item.content[0].text.slice(0, -1)}!`;
        return JSON.stringify(entry);
      });
      writeFileSync(file, lines.join("\n"));
      const [r] = await records(file);
      assert.equal(r!.integrity.valid, false);
      assert.equal(r!.integrity.value, f.compactions[0]!.integrity!.value, "the stored hash as written");
      assert.equal(r!.activeOnActiveBranch, false);
      const table = await cli("checkpoints", file);
      assert.match(table.out, /✗ tampered/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the text table marks the checkpoint that replays, and what superseded the others", async () => {
    const f = FILES.find((x) => x.scenario === "codex-two-compactions")!;
    const r = await cli("checkpoints", join(BLACKMAGIC, f.file));
    const [first, second] = f.compactions.map((c) => c.entryId);
    assert.match(r.out, new RegExp(`${first}.*Codex · gpt-5\\.4.*✓.*superseded by ${second}`));
    assert.match(r.out, new RegExp(`${second}.*active \\(replays next\\)`));
    const fallback = FILES.find((x) => x.scenario === "openai-local-fallback-500")!;
    const t = await cli("checkpoints", join(BLACKMAGIC, fallback.file));
    assert.match(t.out, /local_fallback\s+failed: remote_error/);
  });

  it("pi's and OMP's own compactions are reported as theirs, with nothing invented", async () => {
    const pi = join(
      REAL,
      "pi/sessions/--home-u-src-proj--/2026-11-29T18-50-20-901Z_01a228a4-d565-753b-85e0-3c4741e0caca.jsonl",
    );
    const ours = await records(pi);
    assert.ok(ours.length >= 1);
    const raw = readFileSync(pi, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === "compaction");
    assert.deepEqual(
      ours.map((r) => r.entryId),
      raw.map((e) => e.id),
    );
    ours.forEach((r, i) => {
      assert.equal(r.producer, "pi");
      assert.equal(r.state, null);
      assert.equal(r.integrity, null);
      assert.equal(r.surface, null);
      assert.equal(r.activeOnActiveBranch, false);
      assert.deepEqual(r.readFiles, raw[i].details?.readFiles ?? []);
    });
    const omp = join(
      REAL,
      "omp/sessions/-src-proj/2026-11-29T18-50-22-033Z_01a228a4-d9d1-7000-a845-d846825115ab.jsonl",
    );
    for (const r of await records(omp)) assert.equal(r.producer, "omp");
  });

  it("a fork that copied a checkpoint reports it as its own file does (same id, replays in the fork)", async () => {
    const [original, fork] = FILES.filter((x) => x.scenario === "openai-fork-after-checkpoint");
    const a = await records(join(BLACKMAGIC, original!.file));
    const b = await records(join(BLACKMAGIC, fork!.file));
    assert.deepEqual(
      b,
      a.map((r) => ({ ...r, line: b[0]!.line })),
    );
  });

  it("a session with no compaction says so; a file that is not a session exits 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pse-cp-"));
    try {
      writeFileSync(join(dir, "s.jsonl"), jsonl(header(), message("u0000001", null, "user", "hello")));
      assert.match(
        (await cli("checkpoints", join(dir, "s.jsonl"))).err,
        /^pi-sessions checkpoints: no compactions in this session$/m,
      );
      assert.deepEqual(JSON.parse((await cli("checkpoints", join(dir, "s.jsonl"), "--json")).out), { checkpoints: [] });
      writeFileSync(join(dir, "x.jsonl"), "#!/bin/sh\n");
      assert.equal((await cli("checkpoints", join(dir, "x.jsonl"))).code, 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the checkpoint inspector and the tree on Blackmagic's checkpoints", () => {
  const parsed = (file: string) => {
    const r = parseSession(file, readFileSync(file));
    assert.ok(r.ok);
    return r.session;
  };

  for (const f of FILES) {
    it(`${f.scenario}: the inspector's facts are the command's, with items by type and the summary call apart`, () => {
      const file = join(BLACKMAGIC, f.file);
      const session = parsed(file);
      const raw = readFileSync(file, "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      for (const c of f.compactions) {
        const m = checkpointModel(session, c.entryId);
        assert.deepEqual(m.record, checkpointRecord(session, c.entryId));
        const surface = { openai_api: "OpenAI", azure_openai: "Azure", chatgpt_codex: "Codex" }[c.surface ?? ""];
        assert.equal(
          m.method,
          c.state === "local_fallback" ? `local fallback (${c.failureClass})` : `server · ${surface}`,
        );
        // The MANIFEST names Codex's untyped user inputs `role:user`; the inspector shows them as messages.
        const types = (c.artifactItemTypes ?? []).map((t) => (t === "role:user" ? "message" : t));
        const expected = [...new Set(types)].map((type) => ({ type, count: types.filter((t) => t === type).length }));
        assert.deepEqual(m.itemTypes, expected, c.entryId);
        const entry = raw.find((e) => e.id === c.entryId && e.type === "compaction");
        assert.deepEqual(m.summaryUsage, {
          input: entry.usage.input,
          output: entry.usage.output,
          totalTokens: entry.usage.totalTokens,
          cost: entry.usage.cost.total,
        });
        assert.deepEqual(m.blackmagic?.usage ?? null, c.usage, "the server's usage, never added to the summary's");
        assert.equal(m.copiedFromParent, false, "on its own, a file knows no parent");
      }
    });
  }

  it("the fork's copy of its parent's checkpoint is marked copied from the parent (through the store)", async () => {
    const { sessions } = await loadStore({
      roots: [{ dir: join(BLACKMAGIC, "agent", "sessions"), agent: "pi", source: "test" }],
      cacheFile: null,
    });
    computeOwnership(sessions);
    const [original, fork] = FILES.filter((x) => x.scenario === "openai-fork-after-checkpoint");
    const id = fork!.compactions[0]!.entryId;
    const forkSession = sessions.find((s) => s.file === join(BLACKMAGIC, fork!.file))!;
    const originalSession = sessions.find((s) => s.file === join(BLACKMAGIC, original!.file))!;
    assert.equal(forkSession.parent, originalSession);
    assert.equal(forkSession.inherited.has(id), true);
    assert.equal(originalSession.inherited.has(id), false);
  });

  it("the tree folds each timeline entry into its compaction: no row of its own, what follows still shown", () => {
    for (const f of FILES) {
      const session = parsed(join(BLACKMAGIC, f.file));
      const timelines = f.compactions.map((c) => c.timelineEntry.id);
      for (const filter of FILTER_MODES) {
        const outline = new SessionOutline(session, filter);
        for (const id of timelines) assert.equal(outline.isVisible(session.byId.get(id)!), false, `${filter} ${id}`);
      }
      const all = new SessionOutline(session, "all");
      for (const c of f.compactions) {
        // The timeline entry's children hang under the compaction.
        const below = session.children.get(c.timelineEntry.id) ?? [];
        const visible = all.visibleChildren(c.entryId);
        for (const child of below) assert.ok(visible.includes(child), `${f.scenario}: ${child} under ${c.entryId}`);
      }
    }
  });
});
