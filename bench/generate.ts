/**
 * Deterministic generator of realistic pi v3 sessions (fixed seed): user prompts, assistant turns with
 * thinking, tool calls and usage/cost, tool results of varied sizes (a few multi-hundred-KB ones),
 * model/thinking changes, labels, compactions and ~50 branch points.
 */
import { createWriteStream } from "node:fs";
import { once } from "node:events";

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  ..."the a function test file error value return import export const let type interface async await module".split(" "),
  ..."build run check path tree node branch leaf session parse entry label compact summary token cost model".split(" "),
];

export interface GenerateOptions {
  targetBytes: number;
  branchPoints: number;
  seed: number;
  cwd?: string;
  sessionId?: string;
  /** Header time (ms); entries follow it. */
  start?: number;
}

/** Writes the session to `file`; returns entry count and bytes. */
export async function generateSession(
  file: string,
  opts: GenerateOptions,
): Promise<{ entries: number; bytes: number }> {
  const rand = rng(opts.seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const hex = () =>
    Math.floor(rand() * 0xffffffff)
      .toString(16)
      .padStart(8, "0");
  const out = createWriteStream(file);
  let bytes = 0;
  let entries = 0;
  const start = opts.start ?? Date.parse("2026-06-01T09:00:00.000Z");
  let clock = start;
  const write = async (obj: unknown) => {
    const line = JSON.stringify(obj) + "\n";
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, "drain");
  };
  const ids = new Set<string>();
  const newId = () => {
    let id = hex();
    while (ids.has(id)) id = hex();
    ids.add(id);
    return id;
  };
  const base = (
    type: string,
    parentId: string | null,
  ): { type: string; id: string; parentId: string | null; timestamp: string } => {
    clock += 1000 + Math.floor(rand() * 20000);
    entries++;
    return { type, id: newId(), parentId, timestamp: new Date(clock).toISOString() };
  };
  await write({
    type: "session",
    version: 3,
    id: opts.sessionId ?? "0190a000-0000-7000-8000-000000000001",
    timestamp: new Date(start).toISOString(),
    cwd: opts.cwd ?? "/home/u/src/bench",
  });
  let leaf: string | null = null;
  let e: Record<string, unknown> = {
    ...base("model_change", leaf),
    provider: "anthropic",
    modelId: "claude-sonnet-4-5",
  };
  await write(e);
  leaf = e.id as string;
  e = { ...base("thinking_level_change", leaf), thinkingLevel: "medium" };
  await write(e);
  leaf = e.id as string;
  const userIds: string[] = [];
  const branchEvery = Math.max(1, Math.floor(opts.targetBytes / (opts.branchPoints + 1)));
  let nextBranchAt = branchEvery;
  let call = 0;
  while (bytes < opts.targetBytes) {
    if (bytes >= nextBranchAt && userIds.length > 4) {
      // re-prompt from an earlier user message's parent: a new branch point
      nextBranchAt += branchEvery;
      const target = userIds[Math.floor(rand() * (userIds.length - 1))]!;
      leaf = target; // the new user message becomes a sibling of target's child
    }
    const user: { id: string; [k: string]: unknown } = {
      ...base("message", leaf),
      message: {
        role: "user",
        content: [{ type: "text", text: words(8 + Math.floor(rand() * 60)) }],
        timestamp: clock,
      },
    };
    await write(user);
    leaf = user.id;
    userIds.push(user.id);
    const steps = 1 + Math.floor(rand() * 5);
    for (let s = 0; s < steps; s++) {
      const callId = `toolu_${(call++).toString(36).padStart(10, "0")}`;
      const input = 200 + Math.floor(rand() * 4000);
      const output = 50 + Math.floor(rand() * 1500);
      const cacheRead = Math.floor(rand() * 60000);
      const cost = {
        input: input * 3e-6,
        output: output * 15e-6,
        cacheRead: cacheRead * 3e-7,
        cacheWrite: 0,
        total: 0,
      };
      cost.total = cost.input + cost.output + cost.cacheRead;
      const assistant: { id: string; [k: string]: unknown } = {
        ...base("message", leaf),
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: words(20 + Math.floor(rand() * 80)), thinkingSignature: hex().repeat(8) },
            { type: "text", text: words(10 + Math.floor(rand() * 120)) },
            {
              type: "toolCall",
              id: callId,
              name: pick(["read", "bash", "edit", "write"]),
              arguments: { path: `src/${pick(WORDS)}/${pick(WORDS)}.ts`, command: words(6) },
            },
          ],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage: { input, output, cacheRead, cacheWrite: 0, totalTokens: input + output + cacheRead, cost },
          stopReason: "toolUse",
          timestamp: clock,
        },
      };
      await write(assistant);
      leaf = assistant.id;
      const r = rand();
      // Mostly small outputs, some file-sized ones, a rare huge one (a whole log or bundle).
      const size =
        r < 0.6
          ? 200 + Math.floor(rand() * 2000)
          : r < 0.995
            ? 2000 + Math.floor(rand() * 10000)
            : 100_000 + Math.floor(rand() * 200_000);
      const text = "x".repeat(size).replace(/x{80}/g, () => words(12).padEnd(79, ".").slice(0, 79) + "\n");
      const result: { id: string; [k: string]: unknown } = {
        ...base("message", leaf),
        message: {
          role: "toolResult",
          toolCallId: callId,
          toolName: "bash",
          content: [{ type: "text", text }],
          isError: rand() < 0.05,
          timestamp: clock,
        },
      };
      await write(result);
      leaf = result.id;
    }
    const final: { id: string; [k: string]: unknown } = {
      ...base("message", leaf),
      message: {
        role: "assistant",
        content: [{ type: "text", text: words(30) }],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: {
          input: 100,
          output: 80,
          cacheRead: 5000,
          cacheWrite: 0,
          totalTokens: 5180,
          cost: { input: 0.0003, output: 0.0012, cacheRead: 0.0015, cacheWrite: 0, total: 0.003 },
        },
        stopReason: "stop",
        timestamp: clock,
      },
    };
    await write(final);
    leaf = final.id;
    if (rand() < 0.02) {
      const label: { id: string; [k: string]: unknown } = {
        ...base("label", leaf),
        targetId: user.id,
        label: words(2),
      };
      await write(label);
      leaf = label.id;
    }
    if (rand() < 0.005) {
      const compaction: { id: string; [k: string]: unknown } = {
        ...base("compaction", leaf),
        summary: words(200),
        firstKeptEntryId: user.id,
        tokensBefore: 150000,
        details: { readFiles: [], modifiedFiles: [] },
        fromHook: false,
      };
      await write(compaction);
      leaf = compaction.id;
    }
  }
  out.end();
  await once(out, "finish");
  return { entries, bytes };
}

export interface StoreOptions {
  sessions: number;
  projects: number;
  totalBytes: number;
  /** Share of sessions that are forks of an earlier session of the same project. */
  forkShare: number;
  seed: number;
}

/**
 * A pi agent dir's sessions folder: `sessions` files across `projects` slug folders, sizes skewed (most small, a few
 * large), about `totalBytes` in all; forks copy their parent's entries (same ids and times) and add new turns.
 */
export async function generateStore(
  sessionsDir: string,
  o: StoreOptions,
): Promise<{ files: number; bytes: number; forks: number }> {
  const { mkdirSync, readFileSync, writeFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const rand = rng(o.seed);
  const mean = o.totalBytes / o.sessions;
  let bytes = 0;
  let forks = 0;
  const byProject: string[][] = Array.from({ length: o.projects }, () => []);
  for (let i = 0; i < o.sessions; i++) {
    const project = Math.floor(rand() * o.projects);
    const cwd = `/home/u/src/project-${project}`;
    const dir = join(sessionsDir, `--home-u-src-project-${project}--`);
    mkdirSync(dir, { recursive: true });
    const start = Date.parse("2026-01-01T00:00:00.000Z") + i * 3_600_000;
    const id = `0190b000-0000-7000-8000-${String(i).padStart(12, "0")}`;
    const file = join(dir, `${new Date(start).toISOString().replace(/[:.]/g, "-")}_${id}.jsonl`);
    const siblings = byProject[project]!;
    if (siblings.length && rand() < o.forkShare) {
      const parent = siblings[Math.floor(rand() * siblings.length)]!;
      const lines = readFileSync(parent, "utf8").trimEnd().split("\n").slice(1);
      const kept = lines.slice(0, Math.max(1, Math.floor(lines.length * (0.3 + rand() * 0.7))));
      const last = JSON.parse(kept[kept.length - 1]!);
      const t = Date.parse(last.timestamp) + 1000;
      const header = JSON.stringify({
        type: "session",
        version: 3,
        id,
        timestamp: new Date(t).toISOString(),
        cwd,
        parentSession: parent,
      });
      const user = JSON.stringify({
        type: "message",
        id: `f${i.toString(16).padStart(7, "0")}`,
        parentId: last.id,
        timestamp: new Date(t + 1000).toISOString(),
        message: { role: "user", content: "continue in the fork", timestamp: t + 1000 },
      });
      const text = `${[header, ...kept, user].join("\n")}\n`;
      writeFileSync(file, text);
      bytes += Buffer.byteLength(text);
      forks++;
    } else {
      const size = Math.max(8_000, Math.floor(mean * (rand() < 0.9 ? 0.3 + rand() : 3 + rand() * 6)));
      const g = await generateSession(file, {
        targetBytes: size,
        branchPoints: Math.floor(rand() * 3),
        seed: o.seed + i,
        cwd,
        sessionId: id,
        start,
      });
      bytes += g.bytes;
    }
    siblings.push(file);
  }
  return { files: o.sessions, bytes, forks };
}

/**
 * The store of a heavy user (issue #38, after pi #8013, pi #4583, ccusage #922, agentsview #1820): `sessions` ordinary
 * sessions of the bench store's shape (forks among them) with about `ordinaryBytes` in all, and three long sessions of
 * 1.8 GB, 1.4 GB and 554 MB (branch points, compactions, multi-hundred-KB tool results), each in a project of its own.
 */
export async function generateLargeStore(
  sessionsDir: string,
  o: { sessions: number; ordinaryBytes: number; longMb: number[]; seed: number },
): Promise<{ files: number; bytes: number; forks: number }> {
  const { mkdirSync } = await import("node:fs");
  const { join } = await import("node:path");
  const ordinary = await generateStore(sessionsDir, {
    sessions: o.sessions,
    projects: 60,
    totalBytes: o.ordinaryBytes,
    forkShare: 0.1,
    seed: o.seed,
  });
  let bytes = ordinary.bytes;
  for (const [k, mb] of o.longMb.entries()) {
    const dir = join(sessionsDir, `--home-u-src-long-${k}--`);
    mkdirSync(dir, { recursive: true });
    const start = Date.parse("2026-03-01T00:00:00.000Z") + k * 86_400_000;
    const id = `0190c000-0000-7000-8000-${String(k).padStart(12, "0")}`;
    const g = await generateSession(join(dir, `${new Date(start).toISOString().replace(/[:.]/g, "-")}_${id}.jsonl`), {
      targetBytes: mb * 1048576,
      branchPoints: 200,
      seed: o.seed + 100_000 + k,
      cwd: `/home/u/src/long-${k}`,
      sessionId: id,
      start,
    });
    bytes += g.bytes;
  }
  return { files: o.sessions + o.longMb.length, bytes, forks: ordinary.forks };
}
