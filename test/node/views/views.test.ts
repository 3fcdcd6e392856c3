// The panels' view models: pure functions from the store and the core's session model to what a panel shows.
import * as assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { appendFileSync, readFileSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../../src/cli/main.js";
import type { Session } from "../../../src/core/session/index.js";
import { SessionLibrary } from "../../../src/node/library.js";
import { ownCost } from "../../../src/node/store/index.js";
import { resolveRoots } from "../../../src/node/roots.js";
import type { StoreSession } from "../../../src/node/store/index.js";
import { checkpointModel } from "../../../src/node/views/checkpoint.js";
import { checkpointInvalidReason } from "../../../src/node/views/checkpointRecord.js";
import { contextModel } from "../../../src/node/views/context.js";
import { dashboardModel, exportTable } from "../../../src/node/views/dashboard.js";
import { lineageModel } from "../../../src/node/views/lineage.js";
import { sessionUsageModel } from "../../../src/node/views/sessionUsage.js";
// @ts-expect-error: a plain ESM script shared with the VS Code runners (no type declarations)
import { buildFixtureHome } from "../../../scripts/vscode/fixture-home.mjs";
import { jsonl, parseOk } from "../../support/helpers.js";
import { loadFixture, PI_FIXTURES } from "../../support/fixtures.js";
import { compaction, fork, header, message, usage } from "../../support/builders.js";

async function cliJson(...args: string[]): Promise<any> {
  let out = "";
  const code = await run([...args, "--json", "--no-cache"], { out: (t) => (out += t + "\n"), err: () => {} });
  assert.equal(code, 0);
  return JSON.parse(out);
}

const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;

describe("panel view models", () => {
  let dir: string;
  let home: { home: string; workspace: string };
  let lib: SessionLibrary;
  const host = () => ({ home: home.home, tmpdir: tmpdir(), windows: false });
  const session = (part: string) => lib.sessions.find((s) => s.file.includes(part))!;
  const opened = async (s: StoreSession): Promise<Session> => {
    const r = await lib.open(s.file);
    assert.ok(r.ok);
    return r.session;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "pi-views-"));
    home = buildFixtureHome(join(dir, "home"));
    lib = new SessionLibrary({ roots: resolveRoots({ env: {}, home: home.home }), cacheFile: null });
    // Usage needs full summaries: the first listing only probes the larger files.
    await lib.whenComplete();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe("usage dashboard", () => {
    const agentDirs = () => [
      "--agent-dir",
      join(home.home, ".pi", "agent"),
      "--agent-dir",
      join(home.home, ".omp", "agent"),
    ];

    it("equals `pi-sessions usage --json` by model, project and session, for all projects", async () => {
      const m = dashboardModel(lib.sessions, { scope: "all", folders: [], host: host() });
      const byModel = await cliJson("usage", "--by", "model", ...agentDirs());
      assert.ok(close(m.totals.cost, byModel.total.cost) && m.totals.cost > 0);
      assert.equal(m.totals.messages, byModel.total.messages);
      assert.equal(m.totals.inheritedCost, byModel.total.inheritedCost);
      assert.deepEqual(
        m.models.map((r) => [r.key, r.cost, r.input, r.output, r.messages]),
        byModel.rows.map((r: any) => [r.key, r.cost, r.input, r.output, r.messages]),
      );
      const byProject = await cliJson("usage", "--by", "project", ...agentDirs());
      assert.deepEqual(
        m.projects.map((r) => [r.key, r.cost]),
        byProject.rows.map((r: any) => [r.key, r.cost]),
      );
      const bySession = await cliJson("usage", "--by", "session", ...agentDirs());
      assert.deepEqual(
        m.topSessions.map((r) => [r.key, r.cost, r.inheritedCost ?? 0]),
        bySession.rows.slice(0, 15).map((r: any) => [r.key, r.cost, r.inheritedCost ?? 0]),
      );
    });

    it("the workspace scope equals `usage --workspace`; the daily stack adds up to each day's cost", async () => {
      const m = dashboardModel(lib.sessions, { scope: "workspace", folders: [home.workspace], host: host() });
      const cli = await cliJson(
        "usage",
        "--by",
        "day",
        "--workspace",
        home.workspace,
        ...["--agent-dir", join(home.home, ".pi", "agent"), "--agent-dir", join(home.home, ".omp", "agent")],
      );
      assert.ok(close(m.totals.cost, cli.total.cost));
      assert.deepEqual(
        m.days.map((d) => [d.day, d.cost]),
        cli.rows.map((r: any) => [r.key, r.cost]),
      );
      for (const d of m.days)
        assert.ok(
          close(
            Object.values(d.byModel).reduce((a, b) => a + b, 0),
            d.cost,
          ),
          d.day,
        );
      assert.ok(m.sessions < lib.sessions.length);
    });

    it("a date range keeps only the records in it", () => {
      const all = dashboardModel(lib.sessions, { scope: "all", folders: [], host: host() });
      const days = all.days.map((d) => d.day);
      const first = days[0]!;
      const only = dashboardModel(lib.sessions, {
        scope: "all",
        since: first,
        until: first,
        folders: [],
        host: host(),
      });
      assert.deepEqual(
        only.days.map((d) => d.day),
        [first],
      );
      const none = dashboardModel(lib.sessions, { scope: "all", since: "2999-01-01", folders: [], host: host() });
      assert.equal(none.totals.cost, 0);
      assert.deepEqual(none.days, []);
    });

    it("exports CSV and JSON; untrusted text cannot become a spreadsheet formula", () => {
      const m = dashboardModel(lib.sessions, { scope: "all", folders: [], host: host() });
      const csv = exportTable(m, "models", "csv").trimEnd().split("\n");
      assert.equal(
        csv[0],
        "key,label,cost,activeCost,inheritedCost,input,output,cacheRead,cacheWrite,totalTokens,messages,unpriced",
      );
      assert.equal(csv.length, m.models.length + 1);
      assert.deepEqual(JSON.parse(exportTable(m, "projects", "json")).rows, m.projects);
      const hostile = { ...m, topSessions: [{ ...m.topSessions[0]!, label: '=HYPERLINK("http://x","y")' }] };
      const line = exportTable(hostile, "sessions", "csv").split("\n")[1]!;
      assert.ok(line.includes(`"'=HYPERLINK(""http://x"",""y"")"`), line);
    });
  });

  describe("session usage", () => {
    it("branch segments add up to the session total; the active ones are marked; context points per turn", async () => {
      const s2 = session("d4f8");
      const m = sessionUsageModel(await opened(s2), s2.inherited, "S2");
      assert.equal(m.segments.length, 3);
      assert.deepEqual(
        m.segments.map((g) => [g.startId, g.depth, g.active]),
        [
          ["05d457cc", 0, true],
          ["5a794bc5", 1, true],
          ["5299e542", 1, false],
        ],
      );
      assert.ok(
        close(
          m.segments.reduce((n, g) => n + g.cost, 0),
          m.totals.cost,
        ),
      );
      assert.equal(
        m.segments.reduce((n, g) => n + g.entries, 0),
        (await opened(s2)).entries.length,
      );
      assert.ok(close(m.totals.cost, ownCost(s2)));
      assert.ok(m.turns.length > 0 && m.turns.every((t) => t.context > 0));
    });

    it("every branch is charted: its own turns and compactions, the active one first; each paid turn once", () => {
      // The walk's case: two compactions and most of the cost on an abandoned branch.
      const text = jsonl(
        header({ id: "abandoned" }),
        message("u1", null, "user", "start", { time: 1 }),
        message("a1", "u1", "assistant", "one", { time: 2, usage: usage(1000, 10, 0.01) }),
        message("u2", "a1", "user", "the long way", { time: 3 }),
        message("a2", "u2", "assistant", "two", { time: 4, usage: usage(5000, 10, 0.01) }),
        compaction("k1", "a2", "a2", { time: 5, tokensBefore: 5000 }),
        message("a3", "k1", "assistant", "three", { time: 6, usage: usage(800, 10, 0.005) }),
        compaction("k2", "a3", "a3", { time: 7, tokensBefore: 800 }),
        message("a4", "k2", "assistant", "four", { time: 8, usage: usage(700, 10, 0.005) }),
        message("u3", "a1", "user", "the short way", { time: 9 }),
        message("a5", "u3", "assistant", "five", { time: 10, usage: usage(1200, 10, 0.01) }),
      );
      const s = parseOk(text);
      const m = sessionUsageModel(s, new Set(), "t");
      assert.equal(s.leafId, "a5");
      assert.deepEqual(
        m.branches.map((b) => [b.leafId, b.numbers, b.name, b.active, b.turns.map((t) => t.entryId)]),
        [
          ["a5", "1/2", "the short way", true, ["a1", "a5"]],
          ["a4", "2/2", "the long way", false, ["a1", "a2", "a3", "a4"]],
        ],
      );
      // Where each compaction sits on its own branch: after the 2nd and the 3rd of its turns.
      assert.deepEqual(m.branches[0]!.compactions, []);
      assert.deepEqual(
        m.branches[1]!.compactions.map((c) => [c.entryId, c.afterTurn]),
        [
          ["k1", 1],
          ["k2", 2],
        ],
      );
      assert.deepEqual(m.compactions, [], "the active path has none");
      assert.deepEqual(
        m.allTurns.map((t) => [t.entryId, t.active]),
        [
          ["a1", true],
          ["a2", false],
          ["a3", false],
          ["a4", false],
          ["a5", true],
        ],
      );
      assert.ok(
        close(
          m.allTurns.reduce((n, t) => n + t.cost, 0),
          m.totals.cost,
        ),
      );
    });

    it("compaction markers sit where the context dropped", async () => {
      const s3 = session("d565");
      const m = sessionUsageModel(await opened(s3), s3.inherited, "S3");
      assert.equal(m.compactions.length, 2);
      for (const c of m.compactions) {
        const before = m.turns[c.afterTurn]!;
        const after = m.turns[c.afterTurn + 1]!;
        assert.ok(
          after.context < before.context,
          `context drops after ${c.entryId}: ${before.context} → ${after.context}`,
        );
      }
    });

    it("a fork's inherited turns are shown as inherited, not as its own cost", async () => {
      const fork = session("d64a");
      assert.ok(fork.inherited.size > 0);
      const m = sessionUsageModel(await opened(fork), fork.inherited, "fork");
      assert.ok(m.totals.inheritedCost > 0);
      assert.ok(close(m.totals.cost, ownCost(fork)));
    });
  });

  describe("checkpoint inspector", () => {
    it("a native pi compaction: summary, tokens, kept and replaced ranges, file lists, supersession", async () => {
      const s3 = await opened(session("d565"));
      const [first, second] = s3.compactions;
      const m = checkpointModel(s3, first!.id);
      assert.match(m.summary, /^## Goal/);
      assert.equal(m.tokensBefore, first!.tokensBefore);
      assert.equal(m.kept?.id, first!.keptFromId);
      assert.equal(m.replaced.messages, rawReplacedMessages(s3.file)[0]);
      assert.ok(m.replaced.throughLabel);
      assert.ok(m.readFiles.length > 0);
      assert.equal(m.onActivePath, true);
      assert.equal(m.supersededBy, second!.id);
      assert.equal(m.blackmagic, null);
      assert.equal(m.activeCheckpoint, false, "a native compaction is no server checkpoint");
      assert.equal(checkpointModel(s3, second!.id).supersededBy, null);
      assert.throws(() => checkpointModel(s3, s3.leafId!), /not a compaction/);
    });

    const blackmagic = (tamper = false) => {
      const secret = "gAAAAAB" + "x".repeat(3000);
      const artifact = [
        { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
        { type: "compaction", id: "cmp_1", encrypted_content: secret },
      ];
      const json = JSON.stringify(artifact);
      const hash = createHash("sha256").update(json).digest("hex");
      const details = {
        schemaVersion: 1,
        state: "remote_applied",
        identity: {
          kind: "supported",
          surface: "openai_api",
          protocol: "responses_compact_v1",
          endpoint: "https://api.openai.com/v1",
          model: "gpt-5.2",
          api: "openai-responses",
        },
        checkpoint: {
          artifact,
          hash: tamper ? "0".repeat(64) : hash,
          length: json.length,
          retention: "canonical_provider_window",
        },
        usage: { input_tokens: 1000, output_tokens: 50, total_tokens: 1050 },
        latencyMs: 2100,
        lineage: { firstKeptEntryId: "u2", leafId: "a1" },
        replay: { namespace: "pi-openai-blackmagic-compact/1", replacedItemHashes: ["a".repeat(64), "b".repeat(64)] },
        local: { readFiles: ["src/a.ts"], modifiedFiles: ["src/b.ts"] },
      };
      const s = parseOk(
        jsonl(
          header({ id: "bm" }),
          {
            type: "message",
            id: "u1",
            parentId: null,
            timestamp: "2026-01-01T00:00:01.000Z",
            message: { role: "user", content: "one" },
          },
          {
            type: "message",
            id: "a1",
            parentId: "u1",
            timestamp: "2026-01-01T00:00:02.000Z",
            message: { role: "assistant", content: [{ type: "text", text: "ok" }] },
          },
          {
            type: "message",
            id: "u2",
            parentId: "a1",
            timestamp: "2026-01-01T00:00:03.000Z",
            message: { role: "user", content: "two" },
          },
          {
            type: "compaction",
            id: "c1",
            parentId: "u2",
            timestamp: "2026-01-01T00:00:04.000Z",
            summary: "## Goal\nkeep going",
            firstKeptEntryId: "u2",
            tokensBefore: 5000,
            details,
            fromHook: true,
          },
          {
            type: "custom",
            id: "t1",
            parentId: "c1",
            timestamp: "2026-01-01T00:00:05.000Z",
            customType: "pi-openai-blackmagic-compact/compaction-timeline/1",
            data: { method: "remote_responses_v1" },
          },
        ),
      );
      return { s, secret, hash };
    };

    it("Blackmagic details: identity, integrity recomputed, replay, usage; encrypted content never in full", () => {
      const { s, secret, hash } = blackmagic();
      const m = checkpointModel(s, "c1");
      const b = m.blackmagic!;
      assert.equal(b.identity.surface, "openai_api");
      assert.equal(b.checkpoint!.items, 2);
      assert.equal(b.checkpoint!.computedHash, hash);
      assert.equal(b.checkpoint!.hashOk, true);
      assert.equal(b.checkpoint!.lengthOk, true);
      assert.deepEqual(b.checkpoint!.encrypted, [
        {
          length: secret.length,
          sha256: createHash("sha256").update(secret).digest("hex"),
          prefix: secret.slice(0, 12),
        },
      ]);
      assert.deepEqual(b.replay, {
        namespace: "pi-openai-blackmagic-compact/1",
        scope: null,
        hashes: 2,
        hashesWellFormed: true,
      });
      assert.equal(b.invalidReason, null);
      assert.equal(m.activeCheckpoint, true);
      assert.equal(m.fromExtension, true);
      assert.deepEqual(m.readFiles, ["src/a.ts"]);
      assert.ok(!JSON.stringify(m).includes(secret.slice(0, 40)), "the encrypted blob is not in the model");
    });

    it("a tampered artifact, a foreign namespace or a later native compaction means no active checkpoint", () => {
      const tampered = checkpointModel(blackmagic(true).s, "c1");
      assert.equal(tampered.blackmagic!.checkpoint!.hashOk, false);
      assert.match(tampered.blackmagic!.invalidReason!, /sha256/);
      assert.equal(tampered.activeCheckpoint, false);
      assert.match(
        checkpointInvalidReason({ schemaVersion: 1, state: "remote_applied", replay: { namespace: "other/1" } })!,
        /namespace/,
      );
      assert.match(checkpointInvalidReason({ schemaVersion: 1, state: "local_fallback" })!, /state/);
      const { s } = blackmagic();
      const later = parseOk(
        jsonl(s.header, ...s.entries.map((e) => e.data), {
          type: "compaction",
          id: "c2",
          parentId: "t1",
          timestamp: "2026-01-01T00:00:06.000Z",
          summary: "native",
          firstKeptEntryId: "u2",
          tokensBefore: 100,
        }),
      );
      const m = checkpointModel(later, "c1");
      assert.equal(m.supersededBy, "c2");
      assert.equal(m.activeCheckpoint, false);
    });
  });

  describe("fork lineage graph", () => {
    const options = () => ({
      title: (s: StoreSession) => (s.summary.ok ? (s.summary.name ?? s.summary.firstPrompt ?? s.file) : s.file),
      ownCost,
      forkLabel: (c: StoreSession) => `at ${c.forkPointId ?? "?"}`,
      keyOf: (s: StoreSession) => s.file,
    });

    it("nodes for the root and each descendant, edges parent → child with the fork point, no overlap", () => {
      const s2 = session("d4f8");
      const m = lineageModel(session("d64a"), options());
      const files = m.nodes.map((n) => n.file);
      assert.ok(files.includes(s2.file));
      for (const c of s2.children) assert.ok(files.includes(c.file));
      assert.equal(m.nodes.find((n) => n.focus)!.file, session("d64a").file);
      const edge = m.edges.find((e) => e.to === session("d64a").file)!;
      assert.equal(edge.from, s2.file);
      assert.equal(edge.label, `at ${session("d64a").forkPointId}`);
      assert.ok(edge.points.length >= 2);
      for (const a of m.nodes) {
        assert.ok(a.x >= 0 && a.y >= 0 && a.x + a.width <= m.width + 1 && a.y + a.height <= m.height + 1);
        for (const b of m.nodes) {
          if (a === b) continue;
          const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
          assert.ok(apart, `${a.key} and ${b.key} overlap`);
        }
      }
      // Parents are drawn above their children.
      const parent = m.nodes.find((n) => n.file === s2.file)!;
      assert.ok(m.nodes.filter((n) => n.file !== s2.file && n.kind === "session").every((n) => n.y > parent.y));
    });

    it("orphan and external parents are placeholder nodes of their own kind", async () => {
      const base = lib.sessions.find((s) => s.file.includes("d4f8"))!.file.replace(/[^/]+$/, "");
      const orphanFile = `${base}2026-11-29T20-00-00-000Z_orphan.jsonl`;
      appendFileSync(
        orphanFile,
        jsonl(fork(`${base}gone.jsonl`, { id: "orph", time: "2026-11-29T20:00:00.000Z", cwd: home.workspace })),
      );
      const externalFile = `${base}2026-11-29T20-00-01-000Z_external.jsonl`;
      appendFileSync(
        externalFile,
        jsonl(fork("/etc/passwd", { id: "ext", time: "2026-11-29T20:00:01.000Z", cwd: home.workspace })),
      );
      await lib.applyChanges([orphanFile, externalFile]);
      const orphan = lineageModel(lib.get(orphanFile)!, options());
      assert.deepEqual(orphan.nodes.map((n) => n.kind).sort(), ["orphan", "session"]);
      assert.equal(orphan.edges[0]!.label, "parent not found");
      const external = lineageModel(lib.get(externalFile)!, options());
      assert.deepEqual(
        external.nodes.map((n) => [n.kind, n.label]).sort(),
        [
          ["external", "/etc/passwd"],
          ["session", external.nodes.find((n) => n.kind === "session")!.label],
        ].sort(),
      );
    });
  });

  describe("effective context", () => {
    it("at the leaf of a compacted session: the summary first, sizes per message, what each compaction dropped", () => {
      const s3 = loadFixture(PI_FIXTURES.find((f) => f.includes("d565"))!);
      const m = contextModel(s3, null, "S3");
      assert.equal(m.rows[0]!.kind, "compactionSummary");
      assert.equal(
        m.totalTokens,
        m.rows.reduce((n, r) => n + r.tokens, 0),
      );
      assert.ok(m.rows.every((r) => r.tokens >= 0));
      assert.equal(m.compactions.length, 2);
      assert.deepEqual(
        m.compactions.map((c) => c.active),
        [false, true],
      );
      assert.ok(m.compactions.every((c) => c.droppedTokens > 0));
      // Named by time and line, not id: the lines and timestamps of the raw compaction records.
      const rawLines = readFileSync(s3.file, "utf8").trimEnd().split("\n");
      const rawCompactions = rawLines
        .map((l, i) => ({ r: JSON.parse(l) as { type: string; timestamp?: string }, line: i + 1 }))
        .filter((x) => x.r.type === "compaction");
      assert.deepEqual(
        m.compactions.map((c) => [c.line, c.time]),
        rawCompactions.map((x) => [x.line, x.r.timestamp]),
      );
      assert.match(m.entryLabel ?? "", /\S/);
      // The same count as the tree's "Replaced" row and the checkpoint inspector, taken from the raw records.
      assert.deepEqual(
        m.compactions.map((c) => c.droppedEntries),
        rawReplacedMessages(s3.file),
      );
    });

    it("before the first compaction there is no summary; any entry can be the point", () => {
      const s3 = loadFixture(PI_FIXTURES.find((f) => f.includes("d565"))!);
      const before = s3.compactions[0]!.replacesThroughId!;
      const m = contextModel(s3, before, "S3");
      assert.ok(m.rows.every((r) => r.kind !== "compactionSummary"));
      assert.equal(m.compactions.length, 0);
      assert.equal(m.entryId, before);
    });
  });
});

/**
 * Per compaction in the file, from its raw records: the messages it summarized itself, on its path from where the
 * previous compaction kept (the start, for the first) to its own `firstKeptEntryId`.
 */
function rawReplacedMessages(file: string): number[] {
  type Raw = { type: string; id: string; parentId: string | null; firstKeptEntryId?: string };
  const records = readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .slice(1)
    .map((l) => JSON.parse(l) as Raw);
  const byId = new Map(records.map((r) => [r.id, r]));
  return records
    .filter((r) => r.type === "compaction")
    .map((c) => {
      const path: Raw[] = [];
      for (let r = byId.get(c.parentId!); r; r = byId.get(r.parentId!)) path.unshift(r);
      const kept = path.findIndex((r) => r.id === c.firstKeptEntryId);
      const prev = path.findLastIndex((r) => r.type === "compaction");
      const from = prev < 0 ? 0 : path.findIndex((r) => r.id === path[prev]!.firstKeptEntryId);
      return path.slice(from, kept < 0 ? path.length : kept).filter((r) => r.type === "message").length;
    });
}
